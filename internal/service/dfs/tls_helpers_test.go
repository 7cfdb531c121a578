package dfs_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/lazuli-storage/lazuli/internal/check/lazulitest"
	"github.com/lazuli-storage/lazuli/internal/run/config"
)

// selfSignedFiles writes a certificate for 127.0.0.1 and its key, for a
// server that accepts Bearer tokens (HTTPS only), and returns the pool a
// client trusts it with.
func selfSignedFiles(t *testing.T) (certPath, keyPath string, pool *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "lazuli dfs test"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), IPAddresses: []net.IP{net.ParseIP("127.0.0.1")},
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	certPath, keyPath = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	if err := os.WriteFile(certPath, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyPath, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}), 0o600); err != nil {
		t.Fatal(err)
	}
	pool = x509.NewCertPool()
	pool.AddCert(cert)
	return certPath, keyPath, pool
}

// tokenFor is an Entra ID-shaped access token of principal oid, member
// of groups, for the storage audience, which --oauth basic without
// --oauthKeys checks for issuer, audience and lifetime only.
func tokenFor(t *testing.T, oid string, groups ...string) string {
	t.Helper()
	enc := func(v any) string {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		return base64.RawURLEncoding.EncodeToString(b)
	}
	now := time.Now()
	claims := map[string]any{"iss": "https://sts.windows.net/a1b2c3d4-0000-4000-8000-000000000001/",
		"aud": "https://storage.azure.com", "iat": now.Unix(), "nbf": now.Unix(), "exp": now.Add(time.Hour).Unix(),
		"oid": oid, "tid": "a1b2c3d4-0000-4000-8000-000000000001"}
	if len(groups) > 0 {
		claims["groups"] = groups
	}
	return enc(map[string]string{"alg": "RS256", "typ": "JWT"}) + "." + enc(claims) + "." + base64.RawURLEncoding.EncodeToString([]byte("unchecked"))
}

// startTLS runs a server whose dev account has a hierarchical namespace,
// over HTTPS only, with a client that trusts its certificate.
func startTLS(t *testing.T) *env {
	t.Helper()
	certPath, keyPath, pool := selfSignedFiles(t)
	in := lazulitest.Start(t, lazulitest.Options{InMemory: true, Services: []string{"blob"}, Configure: func(c *config.Config) {
		c.Cert, c.Key = certPath, keyPath
		c.HNSAccounts = []string{lazulitest.Account}
	}})
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	return &env{t: t, in: in, ctx: context.Background(), client: client}
}
