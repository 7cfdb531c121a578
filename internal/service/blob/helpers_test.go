package blob_test

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blockblob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/container"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/service"

	"github.com/lazuli-storage/lazuli/internal/check/lazulitest"
	"github.com/lazuli-storage/lazuli/internal/rule/auth"
)

// env is a running server with an SDK client for it.
type env struct {
	t   *testing.T
	in  *lazulitest.Instance
	svc *service.Client
	ctx context.Context
}

// clientOptions turn the SDK's retries off: a test must see each answer.
func clientOptions() *service.ClientOptions {
	return &service.ClientOptions{ClientOptions: azcore.ClientOptions{Retry: policy.RetryOptions{MaxRetries: -1}}}
}

func start(t *testing.T) *env {
	t.Helper()
	return startWith(t, lazulitest.Options{InMemory: true})
}

func startWith(t *testing.T, opts lazulitest.Options) *env {
	t.Helper()
	in := lazulitest.Start(t, opts)
	e := &env{t: t, in: in, ctx: context.Background()}
	e.connect()
	return e
}

func (e *env) connect() {
	cred, err := service.NewSharedKeyCredential(lazulitest.Account, lazulitest.Key)
	if err != nil {
		e.t.Fatal(err)
	}
	e.svc, err = service.NewClientWithSharedKeyCredential(e.in.BlobURL, cred, clientOptions())
	if err != nil {
		e.t.Fatal(err)
	}
}

// container creates a container and returns its client.
func (e *env) container(name string) *container.Client {
	e.t.Helper()
	c := e.svc.NewContainerClient(name)
	if _, err := c.Create(e.ctx, nil); err != nil {
		e.t.Fatalf("create container %s: %v", name, err)
	}
	return c
}

// upload writes a block blob with Put Blob and returns its client.
func (e *env) upload(c *container.Client, name string, data []byte) *blockblob.Client {
	e.t.Helper()
	b := c.NewBlockBlobClient(name)
	if _, err := b.Upload(e.ctx, nopCloser(data), nil); err != nil {
		e.t.Fatalf("upload %s: %v", name, err)
	}
	return b
}

// download reads a whole blob.
func (e *env) download(b *blockblob.Client) []byte {
	e.t.Helper()
	resp, err := b.DownloadStream(e.ctx, nil)
	if err != nil {
		e.t.Fatalf("download: %v", err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		e.t.Fatal(err)
	}
	return data
}

type readSeekNopCloser struct{ *bytes.Reader }

func (readSeekNopCloser) Close() error { return nil }

func nopCloser(data []byte) io.ReadSeekCloser { return readSeekNopCloser{bytes.NewReader(data)} }

// wantCode asserts err is an Azure error with the given status and code.
func wantCode(t *testing.T, err error, status int, code string) {
	t.Helper()
	var re *azcore.ResponseError
	if !errors.As(err, &re) {
		t.Fatalf("want %d %s, got %v", status, code, err)
	}
	if re.StatusCode != status || (code != "" && re.ErrorCode != code) {
		t.Fatalf("want %d %s, got %d %s", status, code, re.StatusCode, re.ErrorCode)
	}
}

// raw sends a request signed with Shared Key through the SDK pipeline and
// returns the response, for wire-level assertions the typed clients hide.
func (e *env) raw(method, path string, header http.Header, body []byte) *http.Response {
	e.t.Helper()
	req, err := http.NewRequest(method, e.in.BlobURL+path, bytes.NewReader(body))
	if err != nil {
		e.t.Fatal(err)
	}
	for k, v := range header {
		req.Header[k] = v
	}
	req.Header.Set("x-ms-version", "2025-01-05")
	signRequest(e.t, req)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(func() { resp.Body.Close() })
	return resp
}

// signRequest signs a raw request with the dev account's key.
func signRequest(t *testing.T, req *http.Request) {
	t.Helper()
	req.Header.Set("x-ms-date", time.Now().UTC().Format(http.TimeFormat))
	auth.SignSharedKey(req, auth.Blob, lazulitest.Account, lazulitest.KeyBytes())
}

// headersOnly sends a signed request that declares contentLength bytes but
// sends none of them, and returns the answer the server gives before
// reading the body (as a size limit check must).
func (e *env) headersOnly(method, path string, contentLength int64, header http.Header) *http.Response {
	e.t.Helper()
	req, err := http.NewRequest(method, e.in.BlobURL+path, nil)
	if err != nil {
		e.t.Fatal(err)
	}
	for k, v := range header {
		req.Header[k] = v
	}
	req.ContentLength = contentLength
	signRequest(e.t, req)
	conn, err := net.Dial("tcp", req.URL.Host)
	if err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(func() { conn.Close() })
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s HTTP/1.1\r\nHost: %s\r\n", method, req.URL.RequestURI(), req.URL.Host)
	for k, vs := range req.Header {
		for _, v := range vs {
			fmt.Fprintf(&b, "%s: %s\r\n", k, v)
		}
	}
	b.WriteString("\r\n")
	if _, err := conn.Write([]byte(b.String())); err != nil {
		e.t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(conn), req)
	if err != nil {
		e.t.Fatal(err)
	}
	return resp
}
