package auth

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"math/big"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/lazuli-storage/lazuli/internal/rule/azerr"
)

// signToken builds a compact JWS of claims signed with key (RS256 for an
// RSA key, ES256 for a P-256 key, unsigned "none" for nil).
func signToken(t testing.TB, key crypto.Signer, kid string, claims map[string]any) string {
	t.Helper()
	header := map[string]string{"typ": "JWT", "alg": "none"}
	switch key.(type) {
	case *rsa.PrivateKey:
		header["alg"] = "RS256"
	case *ecdsa.PrivateKey:
		header["alg"] = "ES256"
	}
	if kid != "" {
		header["kid"] = kid
	}
	enc := func(v any) string {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		return base64.RawURLEncoding.EncodeToString(b)
	}
	input := enc(header) + "." + enc(claims)
	digest := sha256.Sum256([]byte(input))
	var sig []byte
	switch k := key.(type) {
	case *rsa.PrivateKey:
		var err error
		if sig, err = rsa.SignPKCS1v15(rand.Reader, k, crypto.SHA256, digest[:]); err != nil {
			t.Fatal(err)
		}
	case *ecdsa.PrivateKey:
		r, s, err := ecdsa.Sign(rand.Reader, k, digest[:])
		if err != nil {
			t.Fatal(err)
		}
		sig = make([]byte, 64)
		r.FillBytes(sig[:32])
		s.FillBytes(sig[32:])
	}
	return input + "." + base64.RawURLEncoding.EncodeToString(sig)
}

func validClaims(now time.Time) map[string]any {
	return map[string]any{
		"iss": "https://sts.windows.net/72f988bf-86f1-41af-91ab-2d7cd011db47/",
		"aud": "https://storage.azure.com",
		"iat": now.Unix(), "nbf": now.Add(-time.Minute).Unix(), "exp": now.Add(time.Hour).Unix(),
		"oid": "11059fcc-5514-4800-b5f8-49808b9cfab6", "tid": "72f988bf-86f1-41af-91ab-2d7cd011db47",
	}
}

func with(c map[string]any, kv ...any) map[string]any {
	out := map[string]any{}
	for k, v := range c {
		out[k] = v
	}
	for i := 0; i < len(kv); i += 2 {
		if kv[i+1] == nil {
			delete(out, kv[i].(string))
		} else {
			out[kv[i].(string)] = kv[i+1]
		}
	}
	return out
}

func pemPublic(t testing.TB, pub crypto.PublicKey) []byte {
	der, err := x509.MarshalPKIXPublicKey(pub)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der})
}

func jwksOf(keys map[string]crypto.PublicKey) []byte {
	b64 := base64.RawURLEncoding.EncodeToString
	var list []map[string]string
	for kid, pub := range keys {
		switch k := pub.(type) {
		case *rsa.PublicKey:
			list = append(list, map[string]string{"kty": "RSA", "kid": kid, "use": "sig",
				"n": b64(k.N.Bytes()), "e": b64(big.NewInt(int64(k.E)).Bytes())})
		case *ecdsa.PublicKey:
			raw, _ := k.Bytes()
			list = append(list, map[string]string{"kty": "EC", "kid": kid, "crv": "P-256",
				"x": b64(raw[1:33]), "y": b64(raw[33:])})
		}
	}
	b, _ := json.Marshal(map[string]any{"keys": list})
	return b
}

// bearerRequest is an HTTPS request to the blob service with the token.
func bearerRequest(token string) *http.Request {
	r := httptest.NewRequest(http.MethodGet, "https://127.0.0.1:10000/devstoreaccount1/c?restype=container", nil)
	r.TLS = &tls.ConnectionState{}
	r.Header.Set("Authorization", "Bearer "+token)
	return r
}

func TestBearerTokens(t *testing.T) {
	rsaKey, _ := rsa.GenerateKey(rand.Reader, 2048)
	ecKey, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	otherKey, _ := rsa.GenerateKey(rand.Reader, 2048)
	jwks, err := ParseKeySet(jwksOf(map[string]crypto.PublicKey{"r1": &rsaKey.PublicKey, "e1": &ecKey.PublicKey}))
	if err != nil {
		t.Fatal(err)
	}
	pemKeys, err := ParseKeySet(append(pemPublic(t, &rsaKey.PublicKey), pemPublic(t, &ecKey.PublicKey)...))
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now().UTC()
	good := validClaims(now)
	tampered := signToken(t, rsaKey, "r1", good)
	parts := strings.Split(tampered, ".")
	parts[1] = base64.RawURLEncoding.EncodeToString([]byte(`{"iss":"https://sts.windows.net/x/","aud":"https://storage.azure.com","iat":1,"nbf":1,"exp":99999999999,"oid":"evil","tid":"x"}`))
	tampered = strings.Join(parts, ".")

	for _, tc := range []struct {
		name   string
		keys   *KeySet
		token  string
		detail string // "" when accepted
	}{
		{"basic accepts unsigned", nil, signToken(t, nil, "", good), ""},
		{"basic accepts any signature", nil, signToken(t, otherKey, "", good), ""},
		{"jwks RS256", jwks, signToken(t, rsaKey, "r1", good), ""},
		{"jwks ES256", jwks, signToken(t, ecKey, "e1", good), ""},
		{"jwks without kid", jwks, signToken(t, rsaKey, "", good), ""},
		{"pem RS256", pemKeys, signToken(t, rsaKey, "", good), ""},
		{"pem ES256", pemKeys, signToken(t, ecKey, "", good), ""},
		{"account audience", jwks, signToken(t, rsaKey, "r1", with(good, "aud", "https://devstoreaccount1.blob.core.windows.net/")), ""},
		{"endpoint audience", jwks, signToken(t, rsaKey, "r1", with(good, "aud", "https://127.0.0.1:10000/devstoreaccount1")), ""},
		{"audience array", jwks, signToken(t, rsaKey, "r1", with(good, "aud", []string{"x", "https://storage.azure.com/"})), ""},
		{"v2 issuer", jwks, signToken(t, rsaKey, "r1", with(good, "iss", "https://login.microsoftonline.com/t/v2.0")), ""},
		{"unsigned refused with keys", jwks, signToken(t, nil, "", good), "the token's alg \"none\" is not accepted"},
		{"tampered", jwks, tampered, "the token's signature does not verify"},
		{"unknown key", jwks, signToken(t, otherKey, "", good), "the token's signature does not verify"},
		{"kid of another key", jwks, signToken(t, rsaKey, "e1", good), "the token's signature does not verify"},
		{"expired", nil, signToken(t, nil, "", with(good, "exp", now.Add(-time.Hour).Unix())), "Lifetime validation failed. The token is expired."},
		{"not yet valid", nil, signToken(t, nil, "", with(good, "nbf", now.Add(time.Hour).Unix())), "Lifetime validation failed. The token is not yet valid"},
		{"no iat", nil, signToken(t, nil, "", with(good, "iat", nil)), "The token must carry the nbf, exp and iat claims."},
		{"bad issuer", nil, signToken(t, nil, "", with(good, "iss", "https://evil.example/")), "Issuer validation failed."},
		{"bad audience", nil, signToken(t, nil, "", with(good, "aud", "https://vault.azure.net")), "Audience validation failed."},
		{"other account", nil, signToken(t, nil, "", with(good, "aud", "https://other.blob.core.windows.net")), "Audience validation failed."},
		{"other service", nil, signToken(t, nil, "", with(good, "aud", "https://devstoreaccount1.queue.core.windows.net")), "Audience validation failed."},
		{"not a jwt", nil, "abc", "the token is not a JWT"},
		{"bad claims", nil, "eyJhbGciOiJub25lIn0.bm90IGpzb24.", "the token claims cannot be read"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := &Authenticator{Accounts: DevAccounts(), OAuth: &OAuth{Keys: tc.keys}}
			id, err := a.Authenticate(bearerRequest(tc.token), Blob, "devstoreaccount1")
			if tc.detail == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				if id.Kind != Bearer || id.Principal == nil || id.Principal.TenantID == "" {
					t.Fatalf("identity %+v", id)
				}
				return
			}
			e, ok := azerr.As(err)
			if !ok || e.Status != 401 || e.Code != azerr.InvalidAuthenticationInfo || !hasDetailPrefix(err, tc.detail) {
				t.Fatalf("got %v (%+v), want 401 InvalidAuthenticationInfo %q", err, e, tc.detail)
			}
			if got := e.Header.Get("WWW-Authenticate"); !strings.HasPrefix(got, "Bearer authorization_uri=https://login.microsoftonline.com/") ||
				!strings.HasSuffix(got, "/oauth2/authorize resource_id=https://storage.azure.com") {
				t.Fatalf("WWW-Authenticate %q", got)
			}
		})
	}
}

// TestBearerPrincipalName: an accepted token's upn claim is its
// principal's name when the token names the object (oid) and the name
// could stand in an ACL; a token with only sub, or a name with an ACL's
// separators, gives none and is accepted all the same.
func TestBearerPrincipalName(t *testing.T) {
	good := validClaims(time.Now().UTC())
	for _, tc := range []struct {
		name   string
		claims map[string]any
		want   string
	}{
		{"user", with(good, "upn", "ann@contoso.example"), "ann@contoso.example"},
		{"guest", with(good, "upn", "bo_fabrikam.example#EXT#@contoso.example"), "bo_fabrikam.example#EXT#@contoso.example"},
		{"service principal", good, ""},
		{"sub only", with(good, "oid", nil, "sub", "s-1", "upn", "ann@contoso.example"), ""},
		{"not a name", with(good, "upn", "ann"), ""},
		{"acl separator", with(good, "upn", "ann:rwx@contoso.example"), ""},
		{"entry separator", with(good, "upn", "ann,user@contoso.example"), ""},
		{"control character", with(good, "upn", "ann\r\n@contoso.example"), ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := &Authenticator{Accounts: DevAccounts(), OAuth: &OAuth{}}
			id, err := a.Authenticate(bearerRequest(signToken(t, nil, "", tc.claims)), Blob, "devstoreaccount1")
			if err != nil {
				t.Fatalf("refused: %v", err)
			}
			if id.Principal.UPN != tc.want {
				t.Errorf("UPN %q, want %q", id.Principal.UPN, tc.want)
			}
		})
	}
}

func TestBearerNeedsOAuthAndHTTPS(t *testing.T) {
	token := signToken(t, nil, "", validClaims(time.Now()))
	off := &Authenticator{Accounts: DevAccounts()}
	if _, err := off.Authenticate(bearerRequest(token), Blob, "devstoreaccount1"); !azerr.Is(err, azerr.InvalidAuthenticationInfo) {
		t.Fatalf("without --oauth: %v", err)
	}
	on := &Authenticator{Accounts: DevAccounts(), OAuth: &OAuth{}}
	r := bearerRequest(token)
	r.TLS = nil
	if _, err := on.Authenticate(r, Blob, "devstoreaccount1"); !azerr.Is(err, azerr.AuthenticationFailed) || !hasDetailPrefix(err, "Authentication scheme Bearer is not allowed with HTTP.") {
		t.Fatalf("over HTTP: %v", err)
	}
	if _, err := on.Authenticate(bearerRequest(token), Blob, "nosuchaccount"); !azerr.Is(err, azerr.AuthenticationFailed) {
		t.Fatalf("unknown account: %v", err)
	}
	// OAuth arrived with version 2017-11-09.
	old := bearerRequest(token)
	old.Header.Set("x-ms-version", "2017-07-29")
	if _, err := on.Authenticate(old, Blob, "devstoreaccount1"); !azerr.Is(err, azerr.AuthenticationFailed) || !hasDetailPrefix(err, "Authentication scheme Bearer is not supported in this version.") {
		t.Fatalf("version 2017-07-29: %v", err)
	}
	current := bearerRequest(token)
	current.Header.Set("x-ms-version", "2017-11-09")
	if _, err := on.Authenticate(current, Blob, "devstoreaccount1"); err != nil {
		t.Fatalf("version 2017-11-09: %v", err)
	}
}

func TestParseKeySetRefusesWhatItCannotUse(t *testing.T) {
	for name, data := range map[string]string{
		"empty jwks":      `{"keys": []}`,
		"oct key":         `{"keys": [{"kty": "oct", "k": "AAAA"}]}`,
		"bad curve":       `{"kty": "EC", "crv": "P-192", "x": "AA", "y": "AA"}`,
		"point off curve": `{"kty": "EC", "crv": "P-256", "x": "AQ", "y": "AQ"}`,
		"no pem":          "hello",
		"private only":    "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n",
	} {
		if _, err := ParseKeySet([]byte(data)); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

func FuzzParseJWT(f *testing.F) {
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	f.Add(signToken(f, key, "k", validClaims(time.Unix(1700000000, 0))))
	f.Add(signToken(f, nil, "", map[string]any{"aud": []string{"a", "b"}, "exp": 1.5}))
	f.Add("a.b.c")
	f.Add("eyJhbGciOiJub25lIn0.e30.")
	f.Add("eyJhbGciOiJFUzI1NiJ9.eyJleHAiOjFlMzAwfQ.AA")
	ks := &KeySet{keys: []verifyKey{{pub: &key.PublicKey}}}
	f.Fuzz(func(t *testing.T, token string) {
		tok, err := parseJWT(token)
		if err != nil {
			return
		}
		_ = ks.verify(tok) // must not panic on any header, claims or signature
		if tok.header.Alg == "" || tok.signingInput == "" {
			t.Fatalf("accepted a token without alg or signing input: %q", token)
		}
	})
}

func TestCopySourceToken(t *testing.T) {
	for _, tc := range []struct{ header, want string }{
		{"", ""},
		{"Bearer abc.def.ghi", "Bearer abc.def.ghi"},
		{"SharedKey devstoreaccount1:c2ln", "refused"},
		{"Bearer ", "refused"},
		{"bearer abc", "refused"},
	} {
		h := http.Header{}
		if tc.header != "" {
			h.Set("X-Ms-Copy-Source-Authorization", tc.header)
		}
		got, err := CopySourceToken(h)
		if tc.want == "refused" {
			if !azerr.Is(err, azerr.InvalidHeaderValue) {
				t.Errorf("%q: %q, %v", tc.header, got, err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("%q: %q, %v", tc.header, got, err)
		}
	}
}
