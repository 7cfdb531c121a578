package app_test

import (
	"context"
	"crypto/tls"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/bloberror"
	"software.sslmate.com/src/go-pkcs12"

	"github.com/lazuli-storage/lazuli/internal/check/lazulitest"
	"github.com/lazuli-storage/lazuli/internal/check/testcert"
	"github.com/lazuli-storage/lazuli/internal/run/config"
)

// roundTripOverTLS uploads and downloads a blob with azblob trusting only cert.
func roundTripOverTLS(t *testing.T, in *lazulitest.Instance, cert *testcert.Cert) {
	t.Helper()
	if !strings.HasPrefix(in.BlobURL, "https://") {
		t.Fatalf("blob endpoint %s is not https", in.BlobURL)
	}
	httpClient := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: cert.Pool()}}}
	cred, err := azblob.NewSharedKeyCredential(lazulitest.Account, lazulitest.Key)
	if err != nil {
		t.Fatal(err)
	}
	client, err := azblob.NewClientWithSharedKeyCredential(in.BlobURL, cred, &azblob.ClientOptions{
		ClientOptions: azcore.ClientOptions{Transport: httpClient, Retry: policy.RetryOptions{MaxRetries: -1}}})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := client.CreateContainer(ctx, "secure", nil); err != nil {
		t.Fatal(err)
	}
	if _, err := client.UploadBuffer(ctx, "secure", "hello.txt", []byte("over tls"), nil); err != nil {
		t.Fatal(err)
	}
	resp, err := client.DownloadStream(ctx, "secure", "hello.txt", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if got, _ := io.ReadAll(resp.Body); string(got) != "over tls" {
		t.Errorf("downloaded %q", got)
	}
	// A plain-HTTP request to the TLS port must not be served.
	plain := strings.Replace(in.BlobURL, "https://", "http://", 1)
	if r, err := http.Get(plain); err == nil {
		if r.StatusCode < 400 {
			t.Errorf("plain HTTP answered %d on the TLS port", r.StatusCode)
		}
		r.Body.Close()
	}
}

func TestTLSWithPEM(t *testing.T) {
	cert := testcert.ForTest(t)
	certPath, keyPath := cert.WritePEMForTest(t)
	in := lazulitest.Start(t, lazulitest.Options{Services: []string{"blob"},
		Configure: func(c *config.Config) { c.Cert, c.Key = certPath, keyPath }})
	roundTripOverTLS(t, in, cert)
}

func TestTLSWithPFX(t *testing.T) {
	cert := testcert.ForTest(t)
	pfx, err := pkcs12.Modern.Encode(cert.Key, cert.Leaf, nil, "s3cret")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "cert.pfx")
	if err := os.WriteFile(path, pfx, 0o600); err != nil {
		t.Fatal(err)
	}
	in := lazulitest.Start(t, lazulitest.Options{Services: []string{"blob"},
		Configure: func(c *config.Config) { c.Cert, c.Pwd = path, "s3cret" }})
	roundTripOverTLS(t, in, cert)
}

// A client that speaks plain HTTP to a TLS port gets what Azure answers an
// http:// request to an account that requires secure transfer: 400
// AccountRequiresHttps in the service's error format (the SDKs' live
// TestServiceClientWithHTTP), on every service, while TLS clients on the
// same port are served.
func TestPlainHTTPToTLSPortIsAccountRequiresHttps(t *testing.T) {
	cert := testcert.ForTest(t)
	certPath, keyPath := cert.WritePEMForTest(t)
	in := lazulitest.Start(t, lazulitest.Options{
		Configure: func(c *config.Config) { c.Cert, c.Key = certPath, keyPath }})
	for name, url := range map[string]string{"blob": in.BlobURL, "queue": in.QueueURL, "table": in.TableURL, "file": in.FileURL} {
		plain := strings.Replace(url, "https://", "http://", 1)
		for i := 0; i < 2; i++ { // twice: the connection stays usable
			resp, err := http.Get(plain + "?comp=list")
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != 400 || resp.Header.Get("x-ms-error-code") != "AccountRequiresHttps" ||
				!strings.Contains(string(body), "AccountRequiresHttps") {
				t.Fatalf("%s: plain HTTP answered %d %q %s", name, resp.StatusCode, resp.Header.Get("x-ms-error-code"), body)
			}
		}
	}
	cred, err := azblob.NewSharedKeyCredential(lazulitest.Account, lazulitest.Key)
	if err != nil {
		t.Fatal(err)
	}
	client, err := azblob.NewClientWithSharedKeyCredential(strings.Replace(in.BlobURL, "https://", "http://", 1), cred,
		&azblob.ClientOptions{ClientOptions: azcore.ClientOptions{Retry: policy.RetryOptions{MaxRetries: -1}}})
	if err != nil {
		t.Fatal(err)
	}
	_, err = client.ServiceClient().GetProperties(context.Background(), nil)
	if !bloberror.HasCode(err, "AccountRequiresHttps") {
		t.Fatalf("azblob over http: %v", err)
	}
	roundTripOverTLS(t, in, cert)
}

// A client that connects to a TLS port and sends nothing holds only its
// own connection: others are served meanwhile.
func TestSilentClientDoesNotHoldTLSPort(t *testing.T) {
	cert := testcert.ForTest(t)
	certPath, keyPath := cert.WritePEMForTest(t)
	in := lazulitest.Start(t, lazulitest.Options{Services: []string{"blob"},
		Configure: func(c *config.Config) { c.Cert, c.Key = certPath, keyPath }})
	host := strings.SplitN(strings.TrimPrefix(in.BlobURL, "https://"), "/", 2)[0]
	for i := 0; i < 3; i++ {
		silent, err := net.Dial("tcp", host)
		if err != nil {
			t.Fatal(err)
		}
		defer silent.Close()
	}
	roundTripOverTLS(t, in, cert)
}
