package dfs_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/lazuli-storage/lazuli/internal/check/lazulitest"
	"github.com/lazuli-storage/lazuli/internal/rule/auth"
	"github.com/lazuli-storage/lazuli/internal/run/config"
)

// env is a running server, its dev account served with a hierarchical
// namespace unless the test asks for a flat one.
type env struct {
	t   *testing.T
	in  *lazulitest.Instance
	ctx context.Context
	// base is the endpoint requests go to: the Blob endpoint's unless a
	// test points them at another listener (--dfsPort).
	base string
	// client sends the requests: http.DefaultClient unless the server
	// speaks HTTPS (startTLS).
	client *http.Client
}

// start runs a server whose dev account has a hierarchical namespace.
func start(t *testing.T) *env { return startWith(t, true) }

func startWith(t *testing.T, hns bool) *env {
	t.Helper()
	in := lazulitest.Start(t, lazulitest.Options{InMemory: true, Services: []string{"blob"}, Configure: func(c *config.Config) {
		if hns {
			c.HNSAccounts = []string{lazulitest.Account}
		}
	}})
	return &env{t: t, in: in, ctx: context.Background()}
}

// url is the IP-style URL of path (no leading slash) on the endpoint.
func (e *env) url(path string) string {
	base := e.base
	if base == "" {
		base = e.in.BlobURL
	}
	return strings.TrimSuffix(base, "/") + "/" + path
}

// raw sends a request signed with Shared Key and returns the answer with
// its body read.
func (e *env) raw(method, path string, header http.Header, body []byte) (*http.Response, []byte) {
	e.t.Helper()
	return e.send(method, path, header, body, func(req *http.Request) {
		auth.SignSharedKey(req, auth.Blob, lazulitest.Account, lazulitest.KeyBytes())
	})
}

// send sends a request signed by sign (nil: with no credentials but what
// path's query carries) and returns the answer with its body read.
func (e *env) send(method, path string, header http.Header, body []byte, sign func(*http.Request)) (*http.Response, []byte) {
	e.t.Helper()
	req, err := http.NewRequest(method, e.url(path), bytes.NewReader(body))
	if err != nil {
		e.t.Fatal(err)
	}
	for k, v := range header {
		req.Header[k] = v
	}
	req.Header.Set("x-ms-version", "2025-01-05")
	req.Header.Set("x-ms-date", time.Now().UTC().Format(http.TimeFormat))
	if sign != nil {
		sign(req)
	}
	client := e.client
	if client == nil {
		client = http.DefaultClient
	}
	resp, err := client.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		e.t.Fatal(err)
	}
	return resp, b
}

// wantJSONError asserts a raw answer is the dfs JSON error with status and
// code, in body and header.
func wantJSONError(t *testing.T, resp *http.Response, body []byte, status int, code string) {
	t.Helper()
	var doc struct {
		Error struct{ Code, Message string } `json:"error"`
	}
	if err := json.Unmarshal(body, &doc); err != nil {
		t.Fatalf("%d body %q: %v", resp.StatusCode, body, err)
	}
	if resp.StatusCode != status || doc.Error.Code != code || resp.Header.Get("x-ms-error-code") != code ||
		!strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") || !strings.Contains(doc.Error.Message, "\nRequestId:") {
		t.Fatalf("want %d %s, got %d %s %s (%s)", status, code, resp.StatusCode, resp.Header, body, resp.Header.Get("Content-Type"))
	}
}
