package blob_test

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"net/http"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/service"

	"github.com/lazuli-storage/lazuli/internal/check/lazulitest"
	"github.com/lazuli-storage/lazuli/internal/check/testcert"
	"github.com/lazuli-storage/lazuli/internal/run/config"
)

// startTLS runs a Blob service over HTTPS with a fresh self-signed
// certificate, and an SDK client that trusts it (customer-provided keys
// are taken over HTTPS only). configure, when not nil, edits the rest of
// the configuration.
func startTLS(t *testing.T, configure func(*config.Config)) *env {
	t.Helper()
	certPath, keyPath, pool := selfSignedFiles(t)
	in := lazulitest.Start(t, lazulitest.Options{InMemory: true, Services: []string{"blob"},
		Configure: func(c *config.Config) {
			c.Cert, c.Key = certPath, keyPath
			if configure != nil {
				configure(c)
			}
		}})
	e := &env{t: t, in: in, ctx: context.Background()}
	cred, err := service.NewSharedKeyCredential(lazulitest.Account, lazulitest.Key)
	if err != nil {
		t.Fatal(err)
	}
	transport := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	e.svc, err = service.NewClientWithSharedKeyCredential(in.BlobURL, cred, &service.ClientOptions{
		ClientOptions: azcore.ClientOptions{Transport: transport, Retry: policy.RetryOptions{MaxRetries: -1}}})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// selfSignedFiles writes a certificate for 127.0.0.1 and its key and
// returns their paths and a pool that trusts the certificate.
func selfSignedFiles(t *testing.T) (certPath, keyPath string, pool *x509.CertPool) {
	t.Helper()
	cert := testcert.ForTest(t)
	certPath, keyPath = cert.WritePEMForTest(t)
	return certPath, keyPath, cert.Pool()
}
