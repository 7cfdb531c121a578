package table_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/data/aztables"
	"github.com/lazuli-storage/lazuli/internal/check/lazulitest"
)

// env is a running server with a shared-key service client.
type env struct {
	in  *lazulitest.Instance
	svc *aztables.ServiceClient
	ctx context.Context
}

func start(t *testing.T, opts lazulitest.Options) *env {
	t.Helper()
	if len(opts.Services) == 0 {
		opts.Services = []string{"table"}
	}
	in := lazulitest.Start(t, opts)
	return &env{in: in, svc: serviceClient(t, in), ctx: context.Background()}
}

func serviceClient(t *testing.T, in *lazulitest.Instance) *aztables.ServiceClient {
	t.Helper()
	cred, err := aztables.NewSharedKeyCredential(lazulitest.Account, lazulitest.Key)
	if err != nil {
		t.Fatal(err)
	}
	svc, err := aztables.NewServiceClientWithSharedKey(in.TableURL, cred, nil)
	if err != nil {
		t.Fatal(err)
	}
	return svc
}

// table creates a table and returns its client.
func (e *env) table(t *testing.T, name string) *aztables.Client {
	t.Helper()
	if _, err := e.svc.CreateTable(e.ctx, name, nil); err != nil {
		t.Fatalf("CreateTable(%s): %v", name, err)
	}
	return e.svc.NewClient(name)
}

// wantCode asserts err is an Azure error with the status and code.
func wantCode(t *testing.T, err error, status int, code string) {
	t.Helper()
	var re *azcore.ResponseError
	if !errors.As(err, &re) {
		t.Fatalf("want %d %s, got %v", status, code, err)
	}
	if re.StatusCode != status || re.ErrorCode != code {
		t.Fatalf("want %d %s, got %d %s", status, code, re.StatusCode, re.ErrorCode)
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func decode(t *testing.T, b []byte) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("decode %s: %v", b, err)
	}
	return m
}

// raw sends a request signed with Shared Key Lite (Table form), for cases
// the SDK cannot express.
func (e *env) raw(t *testing.T, method, path string, header http.Header, body string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(method, strings.TrimSuffix(e.in.TableURL, "/")+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for k, vs := range header {
		req.Header[k] = vs
	}
	if req.Header.Get("x-ms-version") == "" {
		req.Header.Set("x-ms-version", "2019-02-02")
	}
	signLite(t, req)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

func jsonUnmarshal(b []byte, v any) error { return json.Unmarshal(b, v) }

func jsonMarshal(v any) ([]byte, error) { return json.Marshal(v) }
