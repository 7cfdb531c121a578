package app_test

import (
	"context"
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/streaming"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/data/aztables"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/bloberror"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blockblob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/sas"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/service"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azqueue"

	"github.com/lazuli-storage/lazuli/internal/check/lazulitest"
	"github.com/lazuli-storage/lazuli/internal/check/testcert"
	"github.com/lazuli-storage/lazuli/internal/run/config"
)

// tokenIssuer mints RS256 access tokens as Entra ID would, with a key the
// server was given through --oauthKeys.
type tokenIssuer struct {
	key    *rsa.PrivateKey
	claims func(now time.Time) map[string]any
}

func (ti *tokenIssuer) token(claims map[string]any) string {
	enc := func(v any) string {
		b, _ := json.Marshal(v)
		return base64.RawURLEncoding.EncodeToString(b)
	}
	input := enc(map[string]string{"alg": "RS256", "typ": "JWT"}) + "." + enc(claims)
	digest := sha256.Sum256([]byte(input))
	sig, err := rsa.SignPKCS1v15(rand.Reader, ti.key, crypto.SHA256, digest[:])
	if err != nil {
		panic(err)
	}
	return input + "." + base64.RawURLEncoding.EncodeToString(sig)
}

// GetToken makes tokenIssuer an azcore.TokenCredential.
func (ti *tokenIssuer) GetToken(_ context.Context, _ policy.TokenRequestOptions) (azcore.AccessToken, error) {
	now := time.Now()
	return azcore.AccessToken{Token: ti.token(ti.claims(now)), ExpiresOn: now.Add(time.Hour)}, nil
}

func entraClaims(now time.Time) map[string]any {
	return map[string]any{
		"iss": "https://sts.windows.net/a1b2c3d4-0000-4000-8000-000000000001/", "aud": "https://storage.azure.com",
		"iat": now.Unix(), "nbf": now.Unix(), "exp": now.Add(time.Hour).Unix(),
		"oid": "0f000000-0000-4000-8000-00000000000f", "tid": "a1b2c3d4-0000-4000-8000-000000000001",
	}
}

// oauthServer starts Lazuli over HTTPS with --oauthKeys holding the
// issuer's public key and returns an HTTP client trusting its certificate.
func oauthServer(t *testing.T) (*lazulitest.Instance, *tokenIssuer, *http.Client) {
	t.Helper()
	cert := testcert.ForTest(t)
	certPath, keyPath := cert.WritePEMForTest(t)
	signing, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	der, _ := x509.MarshalPKIXPublicKey(&signing.PublicKey)
	keysPath := filepath.Join(t.TempDir(), "keys.pem")
	if err := os.WriteFile(keysPath, pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Parse([]string{"--cert", certPath, "--key", keyPath, "--oauth", "basic", "--oauthKeys", keysPath},
		func(string) string { return "" }, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	in := lazulitest.Start(t, lazulitest.Options{InMemory: true, Configure: func(c *config.Config) {
		c.Cert, c.Key, c.OAuth = cfg.Cert, cfg.Key, cfg.OAuth
	}})
	// Every host name is dialled on loopback and the certificate checked
	// for localhost, so production-style URLs reach the instance.
	dialer := &net.Dialer{}
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: cert.Pool(), ServerName: "localhost"},
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			_, port, _ := net.SplitHostPort(addr)
			return dialer.DialContext(ctx, network, net.JoinHostPort("127.0.0.1", port))
		}}}
	return in, &tokenIssuer{key: signing, claims: entraClaims}, client
}

// productionURL is the blob endpoint under the account's cloud host name:
// the Go SDK names a user delegation credential's account after the first
// label of the host, as Azure's own URLs have it.
func productionURL(in *lazulitest.Instance) string {
	u, _ := url.Parse(in.BlobURL)
	return "https://" + lazulitest.Account + ".blob.core.windows.net:" + u.Port() + "/"
}

func clientOptions(hc *http.Client) azcore.ClientOptions {
	return azcore.ClientOptions{Transport: hc, Retry: policy.RetryOptions{MaxRetries: -1}}
}

func TestOAuthOnEveryService(t *testing.T) {
	in, issuer, hc := oauthServer(t)
	ctx := context.Background()
	blobs, err := azblob.NewClient(in.BlobURL, issuer, &azblob.ClientOptions{ClientOptions: clientOptions(hc)})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := blobs.CreateContainer(ctx, "tokens", nil); err != nil {
		t.Fatal(err)
	}
	if _, err := blobs.UploadBuffer(ctx, "tokens", "a.txt", []byte("bearer"), nil); err != nil {
		t.Fatal(err)
	}
	queues, err := azqueue.NewServiceClient(in.QueueURL, issuer, &azqueue.ClientOptions{ClientOptions: clientOptions(hc)})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := queues.CreateQueue(ctx, "tokens", nil); err != nil {
		t.Fatal(err)
	}
	tables, err := aztables.NewServiceClient(in.TableURL, issuer, &aztables.ClientOptions{ClientOptions: clientOptions(hc)})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tables.CreateTable(ctx, "tokens", nil); err != nil {
		t.Fatal(err)
	}
	req, _ := http.NewRequest(http.MethodPut, in.FileURL+"tokens?restype=share", nil)
	req.Header.Set("x-ms-version", "2025-05-05")
	req.Header.Set("x-ms-file-request-intent", "backup")
	tok, _ := issuer.GetToken(ctx, policy.TokenRequestOptions{})
	req.Header.Set("Authorization", "Bearer "+tok.Token)
	resp, err := hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("create share with a token: %d", resp.StatusCode)
	}
}

func TestOAuthRefusesForgedTokens(t *testing.T) {
	in, issuer, hc := oauthServer(t)
	now := time.Now()
	good := issuer.token(entraClaims(now))
	parts := strings.Split(good, ".")
	forgedClaims := entraClaims(now)
	forgedClaims["oid"] = "someone-else"
	b, _ := json.Marshal(forgedClaims)
	tampered := parts[0] + "." + base64.RawURLEncoding.EncodeToString(b) + "." + parts[2]
	unsigned := base64.RawURLEncoding.EncodeToString([]byte(`{"alg":"none"}`)) + "." + parts[1] + "."
	expiredClaims := entraClaims(now.Add(-3 * time.Hour))
	expired := issuer.token(expiredClaims)
	for name, tc := range map[string]struct{ token, detail string }{
		"tampered": {tampered, "signature does not verify"},
		"unsigned": {unsigned, `is not accepted (RS256`},
		"expired":  {expired, "The token is expired"},
	} {
		t.Run(name, func(t *testing.T) {
			req, _ := http.NewRequest(http.MethodGet, in.BlobURL+"?comp=list", nil)
			req.Header.Set("x-ms-version", "2025-05-05")
			req.Header.Set("Authorization", "Bearer "+tc.token)
			resp, err := hc.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusUnauthorized || resp.Header.Get("x-ms-error-code") != "InvalidAuthenticationInfo" {
				t.Fatalf("%d %s: %s", resp.StatusCode, resp.Header.Get("x-ms-error-code"), body)
			}
			want := "Bearer authorization_uri=https://login.microsoftonline.com/a1b2c3d4-0000-4000-8000-000000000001/oauth2/authorize resource_id=https://storage.azure.com"
			if name == "tampered" || name == "unsigned" {
				// the claims are not trusted before the signature is, but
				// the tenant only picks the challenge's authority.
				want = resp.Header.Get("WWW-Authenticate")
			}
			if got := resp.Header.Get("WWW-Authenticate"); got != want || !strings.HasPrefix(got, "Bearer authorization_uri=https://login.microsoftonline.com/") {
				t.Fatalf("WWW-Authenticate %q", got)
			}
			if !strings.Contains(string(body), tc.detail) {
				t.Fatalf("body %s lacks %q", body, tc.detail)
			}
		})
	}
}

func TestUserDelegationSAS(t *testing.T) {
	in, issuer, hc := oauthServer(t)
	ctx := context.Background()
	opts := &azblob.ClientOptions{ClientOptions: clientOptions(hc)}
	base := productionURL(in)
	svc, err := service.NewClient(base, issuer, &service.ClientOptions{ClientOptions: clientOptions(hc)})
	if err != nil {
		t.Fatal(err)
	}
	blobs, _ := azblob.NewClient(base, issuer, opts)
	if _, err := blobs.CreateContainer(ctx, "delegated", nil); err != nil {
		t.Fatal(err)
	}
	if _, err := blobs.UploadBuffer(ctx, "delegated", "doc.txt", []byte("for your eyes"), nil); err != nil {
		t.Fatal(err)
	}
	now := time.Now().UTC()
	keyExpiry := now.Add(time.Hour)
	udc, err := svc.GetUserDelegationCredential(ctx, service.KeyInfo{
		Start: to.Ptr(now.Add(-time.Minute).Format(sas.TimeFormat)), Expiry: to.Ptr(keyExpiry.Format(sas.TimeFormat))}, nil)
	if err != nil {
		t.Fatal(err)
	}
	qp, err := sas.BlobSignatureValues{Protocol: sas.ProtocolHTTPS, ExpiryTime: now.Add(24 * time.Hour),
		Permissions: (&sas.BlobPermissions{Read: true}).String(), ContainerName: "delegated", BlobName: "doc.txt"}.SignWithUserDelegation(udc)
	if err != nil {
		t.Fatal(err)
	}
	if qp.SignedOID() != "0f000000-0000-4000-8000-00000000000f" || qp.SignedTID() != "a1b2c3d4-0000-4000-8000-000000000001" {
		t.Fatalf("key names %s/%s", qp.SignedOID(), qp.SignedTID())
	}
	sasURL := base + "delegated/doc.txt?" + qp.Encode()
	anon, err := blockblob.NewClientWithNoCredential(sasURL, &blockblob.ClientOptions{ClientOptions: clientOptions(hc)})
	if err != nil {
		t.Fatal(err)
	}
	resp, err := anon.DownloadStream(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(got) != "for your eyes" {
		t.Fatalf("downloaded %q", got)
	}
	if _, err := anon.Upload(ctx, streaming.NopCloser(strings.NewReader("overwrite")), nil); !bloberror.HasCode(err, bloberror.AuthorizationPermissionMismatch) {
		t.Fatalf("write with a read SAS: %v", err)
	}
	// Another blob is outside the SAS; a changed signature is refused.
	other, _ := blockblob.NewClientWithNoCredential(base+"delegated/other.txt?"+qp.Encode(), &blockblob.ClientOptions{ClientOptions: clientOptions(hc)})
	if _, err := other.DownloadStream(ctx, nil); !bloberror.HasCode(err, bloberror.AuthenticationFailed) {
		t.Fatalf("other blob: %v", err)
	}
	// The key's expiry governs even when the SAS lives longer.
	in.Fake.Advance(2 * time.Hour)
	if _, err := anon.DownloadStream(ctx, nil); !bloberror.HasCode(err, bloberror.AuthenticationFailed) {
		t.Fatalf("after the key expired: %v", err)
	}
}

func TestUserDelegationKeyNeedsBearer(t *testing.T) {
	in, issuer, hc := oauthServer(t)
	ctx := context.Background()
	cred, _ := azblob.NewSharedKeyCredential(lazulitest.Account, lazulitest.Key)
	sk, err := service.NewClientWithSharedKeyCredential(in.BlobURL, cred, &service.ClientOptions{ClientOptions: clientOptions(hc)})
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now().UTC()
	info := service.KeyInfo{Start: to.Ptr(now.Format(sas.TimeFormat)), Expiry: to.Ptr(now.Add(time.Hour).Format(sas.TimeFormat))}
	if _, err := sk.GetUserDelegationCredential(ctx, info, nil); !bloberror.HasCode(err, bloberror.AuthenticationFailed) {
		t.Fatalf("shared key: %v", err)
	}
	bearer, _ := service.NewClient(in.BlobURL, issuer, &service.ClientOptions{ClientOptions: clientOptions(hc)})
	tooLong := service.KeyInfo{Start: info.Start, Expiry: to.Ptr(now.Add(8 * 24 * time.Hour).Format(sas.TimeFormat))}
	var re *azcore.ResponseError
	if _, err := bearer.GetUserDelegationCredential(ctx, tooLong, nil); !errors.As(err, &re) || re.ErrorCode != "InvalidXmlNodeValue" {
		t.Fatalf("eight days: %v", err)
	}
}

// A copy whose destination is authorized by a SAS reads a private source of
// the same account only with x-ms-copy-source-authorization.
func TestCopySourceAuthorization(t *testing.T) {
	in, issuer, hc := oauthServer(t)
	ctx := context.Background()
	opts := &azblob.ClientOptions{ClientOptions: clientOptions(hc)}
	blobs, _ := azblob.NewClient(in.BlobURL, issuer, opts)
	for _, c := range []string{"private", "dest"} {
		if _, err := blobs.CreateContainer(ctx, c, nil); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := blobs.UploadBuffer(ctx, "private", "src.txt", []byte("copied with a token"), nil); err != nil {
		t.Fatal(err)
	}
	cred, _ := azblob.NewSharedKeyCredential(lazulitest.Account, lazulitest.Key)
	qp, err := sas.BlobSignatureValues{Protocol: sas.ProtocolHTTPS, ExpiryTime: time.Now().Add(time.Hour),
		Permissions: (&sas.BlobPermissions{Create: true, Write: true, Read: true}).String(), ContainerName: "dest", BlobName: "copy.txt"}.SignWithSharedKey(cred)
	if err != nil {
		t.Fatal(err)
	}
	dest, _ := blockblob.NewClientWithNoCredential(in.BlobURL+"dest/copy.txt?"+qp.Encode(), &blockblob.ClientOptions{ClientOptions: clientOptions(hc)})
	source := in.BlobURL + "private/src.txt"
	if _, err := dest.UploadBlobFromURL(ctx, source, nil); !bloberror.HasCode(err, bloberror.CannotVerifyCopySource) {
		t.Fatalf("without a source token: %v", err)
	}
	tok, _ := issuer.GetToken(ctx, policy.TokenRequestOptions{})
	forged := tok.Token[:len(tok.Token)-4] + "AAAA"
	if _, err := dest.UploadBlobFromURL(ctx, source, &blockblob.UploadBlobFromURLOptions{CopySourceAuthorization: to.Ptr("Bearer " + forged)}); !bloberror.HasCode(err, bloberror.CannotVerifyCopySource) {
		t.Fatalf("with a forged source token: %v", err)
	}
	if _, err := dest.UploadBlobFromURL(ctx, source, &blockblob.UploadBlobFromURLOptions{CopySourceAuthorization: to.Ptr("Bearer " + tok.Token)}); err != nil {
		t.Fatal(err)
	}
	if _, err := dest.CopyFromURL(ctx, source, &blob.CopyFromURLOptions{CopySourceAuthorization: to.Ptr("Bearer " + tok.Token)}); err != nil {
		t.Fatal(err)
	}
	resp, err := dest.DownloadStream(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(got) != "copied with a token" {
		t.Fatalf("copied %q", got)
	}
}
