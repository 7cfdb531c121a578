package main

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// TestProxyTunnelsOnlyLazuliHosts checks the proxy's one promise: the
// accounts' service host names reach Lazuli, nothing else goes anywhere.
func TestProxyTunnelsOnlyLazuliHosts(t *testing.T) {
	backend := echoBackend(t)
	accounts := []testAccount{{Name: "acct"}}
	addrs := map[string]string{"blob": backend.Addr().String(), "queue": backend.Addr().String(),
		"table": backend.Addr().String(), "file": backend.Addr().String()}
	p, err := startProxy(router(accounts, addrs, map[string]string{"login.example": backend.Addr().String()}))
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	for _, tc := range []struct {
		request string
		tunnel  bool
	}{
		{"CONNECT acct.blob.core.windows.net:443", true},
		{"CONNECT acct-secondary.queue.core.windows.net:443", true},
		{"CONNECT acct.table.cosmos.azure.com:443", true},
		{"CONNECT ACCT.FILE.CORE.WINDOWS.NET:443", true},
		{"CONNECT other.blob.core.windows.net:443", false},
		{"CONNECT acct.blob.core.windows.net:80", false},
		{"CONNECT acct.dfs.core.windows.net:443", true},
		{"CONNECT login.microsoftonline.com:443", false},
		{"CONNECT login.example:443", true},
		{"CONNECT a.b.blob.core.windows.net:443", false},
		{"GET http://169.254.169.254/metadata/identity/oauth2/token", false},
	} {
		host := strings.Fields(tc.request)[1]
		conn, err := net.Dial("tcp", strings.TrimPrefix(p.URL(), "http://"))
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(conn, "%s HTTP/1.1\r\nHost: %s\r\n\r\n", tc.request, strings.TrimPrefix(host, "http://"))
		reader := bufio.NewReader(conn)
		resp, err := http.ReadResponse(reader, nil)
		if err != nil {
			t.Fatalf("%s: %v", tc.request, err)
		}
		if !tc.tunnel {
			if resp.StatusCode != http.StatusForbidden {
				t.Errorf("%s: %s, want 403", tc.request, resp.Status)
			}
			conn.Close()
			continue
		}
		if resp.StatusCode != http.StatusOK {
			t.Errorf("%s: %s, want 200", tc.request, resp.Status)
		}
		io.WriteString(conn, "ping")
		buf := make([]byte, 4)
		if _, err := io.ReadFull(reader, buf); err != nil || string(buf) != "ping" {
			t.Errorf("%s: tunnel echoed %q, %v", tc.request, buf, err)
		}
		conn.Close()
	}
	if got := p.Refused()["login.microsoftonline.com:443"]; got != 1 {
		t.Errorf("refusals of login.microsoftonline.com counted %d, want 1", got)
	}
}

// A plain http:// request for an account's host reaches Lazuli in origin
// form (where Lazuli answers AccountRequiresHttps); others are refused.
func TestProxyRelaysPlainHTTPToLazuliHostsOnly(t *testing.T) {
	backend := echoBackend(t)
	addr := backend.Addr().String()
	p, err := startProxy(router([]testAccount{{Name: "acct"}},
		map[string]string{"blob": addr, "queue": addr, "table": addr, "file": addr}, nil))
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	for _, tc := range []struct {
		url   string
		relay bool
	}{
		{"http://acct.blob.core.windows.net/?comp=list", true},
		{"http://acct.file.core.windows.net:80/share", true},
		{"http://acct.blob.core.windows.net:8080/", false},
		{"http://other.blob.core.windows.net/", false},
		{"https://acct.blob.core.windows.net/", false},
	} {
		conn, err := net.Dial("tcp", strings.TrimPrefix(p.URL(), "http://"))
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(conn, "GET %s HTTP/1.1\r\nHost: x\r\n\r\n", tc.url)
		reader := bufio.NewReader(conn)
		if !tc.relay {
			resp, err := http.ReadResponse(reader, nil)
			if err != nil || resp.StatusCode != http.StatusForbidden {
				t.Errorf("%s: %v %v, want 403", tc.url, resp, err)
			}
			conn.Close()
			continue
		}
		line, err := reader.ReadString('\n')
		u, _ := url.Parse(tc.url)
		if want := "GET " + u.RequestURI() + " HTTP/1.1\r\n"; err != nil || line != want {
			t.Errorf("%s: relayed %q, %v; want origin form", tc.url, line, err)
		}
		conn.Close()
	}
}

// echoBackend listens on loopback and echoes what each connection sends.
func echoBackend(t *testing.T) net.Listener {
	t.Helper()
	backend, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { backend.Close() })
	go func() {
		for {
			c, err := backend.Accept()
			if err != nil {
				return
			}
			go func() { defer c.Close(); io.Copy(c, c) }()
		}
	}()
	return backend
}
