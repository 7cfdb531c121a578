package dfs_test

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/lazuli-storage/lazuli/internal/check/lazulitest"
	"github.com/lazuli-storage/lazuli/internal/check/testcert"
	"github.com/lazuli-storage/lazuli/internal/run/config"
)

// selfSignedFiles writes a certificate for 127.0.0.1 and its key and
// returns their paths and a pool that trusts the certificate.
func selfSignedFiles(t *testing.T) (certPath, keyPath string, pool *x509.CertPool) {
	t.Helper()
	cert := testcert.ForTest(t)
	certPath, keyPath = cert.WritePEMForTest(t)
	return certPath, keyPath, cert.Pool()
}

// tokenFor is an Entra ID-shaped access token of principal oid, member
// of groups, for the storage audience, which --oauth basic without
// --oauthKeys checks for issuer, audience and lifetime only.
func tokenFor(t *testing.T, oid string, groups ...string) string {
	t.Helper()
	extra := map[string]any{}
	if len(groups) > 0 {
		extra["groups"] = groups
	}
	return tokenWith(t, oid, extra)
}

// tokenWith is tokenFor's token of oid with the extra claims besides
// (groups, upn).
func tokenWith(t *testing.T, oid string, extra map[string]any) string {
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
	for k, v := range extra {
		claims[k] = v
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
