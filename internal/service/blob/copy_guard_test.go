package blob_test

import (
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/lazuli-storage/lazuli/internal/check/lazulitest"
	"github.com/lazuli-storage/lazuli/internal/run/config"
)

// sourceServer serves a copy source at /src and, at /hop, a redirect to
// the IPv6 loopback address, which the policies below do not list.
func sourceServer(t *testing.T) *httptest.Server {
	var srv *httptest.Server
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/hop" {
			http.Redirect(w, r, strings.Replace(srv.URL, "127.0.0.1", "[::1]", 1)+"/src", http.StatusFound)
			return
		}
		w.Header().Set("Content-Length", "6")
		_, _ = w.Write([]byte("remote"))
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestCopySourceHosts: a remote copy source is fetched only from a host
// the policy allows. A local emulator (every listener on loopback) allows
// all; --copySourceAllow narrows it, checked after name resolution and on
// every redirect, with 403 CannotVerifyCopySource.
func TestCopySourceHosts(t *testing.T) {
	src := sourceServer(t)
	for _, c := range []struct {
		name   string
		allow  []string
		path   string
		status int
	}{
		{"default on loopback", nil, "/src", 201},
		{"star", []string{"*"}, "/src", 201},
		{"listed address", []string{"127.0.0.1"}, "/src", 201},
		{"unlisted", []string{"files.example.com"}, "/src", 403},
		{"a redirect to an unlisted address", []string{"127.0.0.1"}, "/hop", 403},
	} {
		e := startWith(t, lazulitest.Options{InMemory: true, Configure: func(cfg *config.Config) { cfg.CopySourceAllow = c.allow }})
		e.container("guard")
		r := e.raw(http.MethodPut, "guard/copy", http.Header{"X-Ms-Blob-Type": {"BlockBlob"}, "X-Ms-Copy-Source": {src.URL + c.path}}, nil)
		if r.StatusCode != c.status {
			t.Errorf("%s: Put Blob From URL answered %d %s, want %d", c.name, r.StatusCode, r.Header.Get("X-Ms-Error-Code"), c.status)
		}
		if c.status == 403 && r.Header.Get("X-Ms-Error-Code") != "CannotVerifyCopySource" {
			t.Errorf("%s: error code %s", c.name, r.Header.Get("X-Ms-Error-Code"))
		}
	}
}

// TestCopyFromUnreachableHost pins the answer to a copy source the server
// is allowed to fetch but cannot reach: 502 CannotVerifyCopySource, with
// the service's message "Could not verify the copy source within the
// specified time." (Blob service error codes: CannotVerifyCopySource). Not
// 404: nothing said the source does not exist.
func TestCopyFromUnreachableHost(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + l.Addr().String() + "/src"
	l.Close()
	e := start(t)
	e.container("unreach")
	for _, h := range []http.Header{
		{"X-Ms-Blob-Type": {"BlockBlob"}, "X-Ms-Copy-Source": {closed}},
		{"X-Ms-Copy-Source": {closed}},
		{"X-Ms-Copy-Source": {closed}, "X-Ms-Requires-Sync": {"true"}},
	} {
		r := e.raw(http.MethodPut, "unreach/dst", h, nil)
		body, _ := io.ReadAll(r.Body)
		if r.StatusCode != http.StatusBadGateway || r.Header.Get("X-Ms-Error-Code") != "CannotVerifyCopySource" ||
			!strings.Contains(string(body), "Could not verify the copy source within the specified time") {
			t.Errorf("%v: %d %s %s", h, r.StatusCode, r.Header.Get("X-Ms-Error-Code"), body)
		}
	}
}
