package file_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azfile/service"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azfile/share"

	"github.com/lazuli-storage/lazuli/internal/check/lazulitest"
	"github.com/lazuli-storage/lazuli/internal/rule/auth"
)

var ctx = context.Background()

// transport carries every test client's requests. Its idle connections
// are closed before each test server stops: a connection the client dialed
// but never used would otherwise hold the server's graceful shutdown for
// the five seconds net/http grants new connections.
var transport = http.DefaultTransport.(*http.Transport).Clone()

// clientOptions turn retries off, so failure cases answer at once.
func clientOptions() *service.ClientOptions {
	return &service.ClientOptions{ClientOptions: azcore.ClientOptions{Retry: policy.RetryOptions{MaxRetries: -1},
		Transport: &http.Client{Transport: transport}}}
}

// start runs a server and returns it with a Shared Key service client.
func start(t *testing.T, opts lazulitest.Options) (*lazulitest.Instance, *service.Client) {
	t.Helper()
	in := lazulitest.Start(t, opts)
	t.Cleanup(transport.CloseIdleConnections)
	return in, serviceClient(t, in)
}

func serviceClient(t *testing.T, in *lazulitest.Instance) *service.Client {
	t.Helper()
	cred, err := service.NewSharedKeyCredential(lazulitest.Account, lazulitest.Key)
	if err != nil {
		t.Fatal(err)
	}
	c, err := service.NewClientWithSharedKeyCredential(in.FileURL, cred, clientOptions())
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// newShare creates a share and returns its client.
func newShare(t *testing.T, svc *service.Client, name string) *share.Client {
	t.Helper()
	sh := svc.NewShareClient(name)
	if _, err := sh.Create(ctx, nil); err != nil {
		t.Fatalf("create share %s: %v", name, err)
	}
	return sh
}

// code returns the Azure error code and status of err ("" and 0 for nil).
func code(err error) (string, int) {
	var re *azcore.ResponseError
	if errors.As(err, &re) {
		return re.ErrorCode, re.StatusCode
	}
	if err != nil {
		return "not an Azure error: " + err.Error(), 0
	}
	return "", 0
}

// wantCode fails the test unless err carries the Azure status and code.
func wantCode(t *testing.T, err error, status int, want string) {
	t.Helper()
	got, gotStatus := code(err)
	if got != want || gotStatus != status {
		t.Fatalf("got %d %s, want %d %s", gotStatus, got, status, want)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// meta reads a metadata value whatever case the SDK gave its name (Go
// canonicalises response header names).
func meta(m map[string]*string, name string) string {
	for k, v := range m {
		if strings.EqualFold(k, name) && v != nil {
			return *v
		}
	}
	return ""
}

// rawRequest sends a Shared Key request the SDK cannot express. path is
// after the account ("" for the service); query is raw.
func rawRequest(t *testing.T, in *lazulitest.Instance, method, path, query string, header http.Header, body string) *http.Response {
	t.Helper()
	u := in.FileURL + path
	if query != "" {
		u += "?" + query
	}
	req, err := http.NewRequest(method, u, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for k, vs := range header {
		req.Header[k] = vs
	}
	req.Header.Set("x-ms-version", "2025-05-05")
	req.Header.Set("x-ms-date", time.Now().UTC().Format(http.TimeFormat))
	auth.SignSharedKey(req, auth.File, lazulitest.Account, lazulitest.KeyBytes())
	resp, err := (&http.Client{Transport: transport}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}
