package auth

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rsa"
	_ "crypto/sha256" // crypto.SHA256.New
	_ "crypto/sha512" // crypto.SHA384.New, crypto.SHA512.New
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"os"
	"strings"
)

// KeySet holds the public keys Bearer token signatures are verified with
// (--oauthKeys): the token issuer's signing keys, or a test's own.
type KeySet struct {
	keys []verifyKey
}

// verifyKey is one public key, with the key id a JWKS gave it.
type verifyKey struct {
	kid string
	pub crypto.PublicKey // *rsa.PublicKey or *ecdsa.PublicKey
}

// LoadKeySet reads a JWKS document ({"keys": [...]}), a single JWK, or PEM
// blocks (PUBLIC KEY, RSA PUBLIC KEY, CERTIFICATE) from path.
func LoadKeySet(path string) (*KeySet, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return ParseKeySet(data)
}

// ParseKeySet reads the formats LoadKeySet accepts from data.
func ParseKeySet(data []byte) (*KeySet, error) {
	var ks *KeySet
	var err error
	if strings.HasPrefix(strings.TrimSpace(string(data)), "{") {
		ks, err = parseJWKS(data)
	} else {
		ks, err = parsePEMKeys(data)
	}
	if err != nil {
		return nil, err
	}
	if len(ks.keys) == 0 {
		return nil, errors.New("no RSA or EC public key found")
	}
	return ks, nil
}

// jwk is the subset of RFC 7517 members the RSA and EC keys need.
type jwk struct {
	Kty, Kid, Use, Crv, N, E, X, Y string
	X5c                            []string
}

func parseJWKS(data []byte) (*KeySet, error) {
	var doc struct {
		Keys []jwk `json:"keys"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("not a JWKS document: %w", err)
	}
	if doc.Keys == nil {
		var one jwk
		if err := json.Unmarshal(data, &one); err != nil || one.Kty == "" {
			return nil, errors.New("neither a JWKS ({\"keys\": [...]}) nor a JWK")
		}
		doc.Keys = []jwk{one}
	}
	ks := &KeySet{}
	for i, k := range doc.Keys {
		if k.Use != "" && k.Use != "sig" {
			continue
		}
		pub, err := k.publicKey()
		if err != nil {
			return nil, fmt.Errorf("key %d (kid %q): %w", i, k.Kid, err)
		}
		ks.keys = append(ks.keys, verifyKey{kid: k.Kid, pub: pub})
	}
	return ks, nil
}

func (k jwk) publicKey() (crypto.PublicKey, error) {
	switch k.Kty {
	case "RSA":
		n, err1 := base64.RawURLEncoding.DecodeString(k.N)
		e, err2 := base64.RawURLEncoding.DecodeString(k.E)
		if err1 != nil || err2 != nil || len(n) == 0 || len(e) == 0 || len(e) > 4 {
			return nil, errors.New("RSA key needs base64url n and e")
		}
		return &rsa.PublicKey{N: new(big.Int).SetBytes(n), E: int(new(big.Int).SetBytes(e).Int64())}, nil
	case "EC":
		curve := map[string]elliptic.Curve{"P-256": elliptic.P256(), "P-384": elliptic.P384(), "P-521": elliptic.P521()}[k.Crv]
		if curve == nil {
			return nil, fmt.Errorf("EC curve %q is not supported (P-256, P-384, P-521)", k.Crv)
		}
		x, err1 := base64.RawURLEncoding.DecodeString(k.X)
		y, err2 := base64.RawURLEncoding.DecodeString(k.Y)
		if err1 != nil || err2 != nil {
			return nil, errors.New("EC key needs base64url x and y")
		}
		// Go through the uncompressed point encoding so the point is checked
		// to lie on the curve.
		size := (curve.Params().BitSize + 7) / 8
		if len(x) > size || len(y) > size {
			return nil, errors.New("EC coordinates are longer than the curve allows")
		}
		point := make([]byte, 1+2*size)
		point[0] = 4
		copy(point[1+size-len(x):1+size], x)
		copy(point[1+2*size-len(y):], y)
		return ecdsa.ParseUncompressedPublicKey(curve, point)
	}
	if len(k.X5c) > 0 {
		return certificateKey(k.X5c[0])
	}
	return nil, fmt.Errorf("key type %q is not supported (RSA, EC)", k.Kty)
}

func certificateKey(b64 string) (crypto.PublicKey, error) {
	der, err := base64.StdEncoding.DecodeString(b64)
	if err != nil {
		return nil, err
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, err
	}
	return cert.PublicKey, nil
}

func parsePEMKeys(data []byte) (*KeySet, error) {
	ks := &KeySet{}
	for {
		var block *pem.Block
		block, data = pem.Decode(data)
		if block == nil {
			return ks, nil
		}
		var pub crypto.PublicKey
		var err error
		switch block.Type {
		case "PUBLIC KEY":
			pub, err = x509.ParsePKIXPublicKey(block.Bytes)
		case "RSA PUBLIC KEY":
			pub, err = x509.ParsePKCS1PublicKey(block.Bytes)
		case "CERTIFICATE":
			var cert *x509.Certificate
			if cert, err = x509.ParseCertificate(block.Bytes); err == nil {
				pub = cert.PublicKey
			}
		default:
			continue // private keys and others are not for verifying
		}
		if err != nil {
			return nil, fmt.Errorf("PEM %s: %w", block.Type, err)
		}
		switch pub.(type) {
		case *rsa.PublicKey, *ecdsa.PublicKey:
			ks.keys = append(ks.keys, verifyKey{pub: pub})
		}
	}
}

// verify checks t's signature against the keys its alg and kid select.
func (ks *KeySet) verify(t *jwt) error {
	hash, family, ok := jwsAlgorithm(t.header.Alg)
	if !ok {
		return fmt.Errorf("the token's alg %q is not accepted (RS256, RS384, RS512, PS256, PS384, PS512, ES256, ES384, ES512)", t.header.Alg)
	}
	h := hash.New()
	h.Write([]byte(t.signingInput))
	digest := h.Sum(nil)
	for _, k := range ks.keys {
		if t.header.Kid != "" && k.kid != "" && t.header.Kid != k.kid {
			continue
		}
		if verifyWith(k.pub, family, hash, digest, t.signature) {
			return nil
		}
	}
	return errors.New("the token's signature does not verify with any key of --oauthKeys")
}

// jwsAlgorithm maps a JWS alg (RFC 7518 3.1) to its hash and key family.
// "none" and the HMAC algorithms are refused: a public key cannot check them.
func jwsAlgorithm(alg string) (hash crypto.Hash, family string, ok bool) {
	if len(alg) != 5 {
		return 0, "", false
	}
	hashes := map[string]crypto.Hash{"256": crypto.SHA256, "384": crypto.SHA384, "512": crypto.SHA512}
	hash, ok = hashes[alg[2:]]
	family = alg[:2]
	switch family {
	case "RS", "PS", "ES":
		return hash, family, ok
	}
	return 0, "", false
}

func verifyWith(pub crypto.PublicKey, family string, hash crypto.Hash, digest, sig []byte) bool {
	switch key := pub.(type) {
	case *rsa.PublicKey:
		switch family {
		case "RS":
			return rsa.VerifyPKCS1v15(key, hash, digest, sig) == nil
		case "PS":
			return rsa.VerifyPSS(key, hash, digest, sig, &rsa.PSSOptions{SaltLength: rsa.PSSSaltLengthEqualsHash}) == nil
		}
	case *ecdsa.PublicKey:
		size := (key.Curve.Params().BitSize + 7) / 8
		if family != "ES" || len(sig) != 2*size || !curveMatchesHash(key.Curve, hash) {
			return false
		}
		r := new(big.Int).SetBytes(sig[:size])
		s := new(big.Int).SetBytes(sig[size:])
		return ecdsa.Verify(key, digest, r, s)
	}
	return false
}

// curveMatchesHash pairs ES256 with P-256, ES384 with P-384 and ES512 with
// P-521, as RFC 7518 3.4 requires.
func curveMatchesHash(c elliptic.Curve, h crypto.Hash) bool {
	switch h {
	case crypto.SHA256:
		return c == elliptic.P256()
	case crypto.SHA384:
		return c == elliptic.P384()
	case crypto.SHA512:
		return c == elliptic.P521()
	}
	return false
}
