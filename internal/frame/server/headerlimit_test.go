package server

import (
	"bufio"
	"context"
	"crypto/tls"
	"crypto/x509"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeAnswer is a response body that looks like Go's 431: it must reach the
// client as it is.
const fakeAnswer = "HTTP/1.1 431 Request Header Fields Too Large\r\n\r\nthis is response data"

// copied is a body /copy sends through the connection's ReadFrom.
var copied = strings.Repeat("0123456789abcdef", 4096)

// headerLimitHandler answers "tls" or "plain" by r.TLS; on /fake it sends
// fakeAnswer as the body after flushing its headers, so that the body is a
// write of its own, made after the handler has returned; on /copy it sends
// copied from a reader that leaves the copying to the ResponseWriter's
// ReadFrom (a bare TCP connection's own ReadFrom below it).
var headerLimitHandler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
	switch r.URL.Path {
	case "/fake":
		w.Header().Set("Content-Length", strconv.Itoa(len(fakeAnswer)))
		w.WriteHeader(http.StatusOK)
		w.(http.Flusher).Flush()
		io.WriteString(w, fakeAnswer)
		return
	case "/copy":
		w.Header().Set("Content-Length", strconv.Itoa(len(copied)))
		io.Copy(w, io.LimitReader(strings.NewReader(copied), int64(len(copied))))
		return
	}
	if r.TLS == nil {
		io.WriteString(w, "plain")
		return
	}
	io.WriteString(w, "tls")
})

// headerLimitClient is one kind of client: a plain server's, or a TLS
// port's speaking plain HTTP or TLS.
type headerLimitClient struct {
	name     string
	tlsPort  bool
	tls      bool
	maxConns int    // 0 leaves the server a bare TCP connection
	want     string // what the handler answers it
}

var headerLimitClients = []headerLimitClient{
	{"plain server", false, false, 0, "plain"},
	{"plain server, connections bounded", false, false, 8, "plain"},
	{"TLS port, plain client", true, false, 8, "plain"},
	{"TLS port, TLS client", true, true, 8, "tls"},
}

// startHeaderLimitServer serves headerLimitHandler and returns a dialer
// for the client kind, and the states its ConnState hook saw.
func startHeaderLimitServer(t *testing.T, kind headerLimitClient) (dial func() net.Conn, states func() []http.ConnState) {
	t.Helper()
	var cfg, clientCfg *tls.Config
	if kind.tlsPort {
		var pool *x509.CertPool
		cfg, pool = testTLSConfig(t)
		clientCfg = &tls.Config{RootCAs: pool}
	}
	var mu sync.Mutex
	var seen []http.ConnState
	hook := func(_ net.Conn, s http.ConnState) {
		mu.Lock()
		seen = append(seen, s)
		mu.Unlock()
	}
	srv, err := Listen([]*Listener{{Name: "blob", Addr: "127.0.0.1:0", Handler: headerLimitHandler, ConnState: hook, MaxConns: kind.maxConns}}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	srv.Serve()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := srv.Shutdown(ctx); err != nil {
			t.Error(err)
		}
	})
	addr := srv.Listeners()[0].Bound()
	dial = func() net.Conn {
		t.Helper()
		var c net.Conn
		var err error
		if kind.tls {
			c, err = tls.Dial("tcp", addr, clientCfg)
		} else {
			c, err = net.Dial("tcp", addr)
		}
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		_ = c.SetDeadline(time.Now().Add(20 * time.Second))
		return c
	}
	states = func() []http.ConnState {
		mu.Lock()
		defer mu.Unlock()
		return append([]http.ConnState(nil), seen...)
	}
	return dial, states
}

// oversized is a request whose headers pass net/http's 1 MB limit.
var oversized = "GET /big HTTP/1.1\r\nHost: x\r\nX-Big: " + strings.Repeat("a", 2<<20) + "\r\n\r\n"

func normal(path string) string { return "GET " + path + " HTTP/1.1\r\nHost: x\r\n\r\n" }

// exchange sends req on c while reading the answer, as a client must when
// the server answers before the request is all sent.
func exchange(t *testing.T, c net.Conn, br *bufio.Reader, req string) (*http.Response, string) {
	t.Helper()
	go func() { _, _ = io.WriteString(c, req) }()
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatalf("reading the answer: %v", err)
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		t.Fatalf("reading the answer's body: %v", err)
	}
	return resp, string(body)
}

func checkTooLong(t *testing.T, resp *http.Response, body string) {
	t.Helper()
	// ReadResponse takes "Connection: close" out of the headers into Close.
	if resp.StatusCode != http.StatusBadRequest || !resp.Close {
		t.Fatalf("oversized headers: %s, close %v, headers %v", resp.Status, resp.Close, resp.Header)
	}
	if ct := resp.Header.Get("Content-Type"); ct != "text/html; charset=us-ascii" {
		t.Errorf("oversized headers: Content-Type %q", ct)
	}
	if resp.ContentLength != int64(len(body)) || !strings.Contains(body, "too long") {
		t.Errorf("oversized headers: length %d, body %q", resp.ContentLength, body)
	}
	if resp.Header.Get("X-Ms-Error-Code") != "" {
		t.Errorf("oversized headers: error code %q", resp.Header.Get("X-Ms-Error-Code"))
	}
}

// Headers over net/http's limit get Azure's front end's answer, 400 and a
// closed connection, on every kind of connection, on a new connection and
// after others served on the same one; normal requests are served as
// before, TLS ones with r.TLS.
func TestOversizedHeadersAnswer400(t *testing.T) {
	for _, kind := range headerLimitClients {
		t.Run(kind.name, func(t *testing.T) {
			dial, states := startHeaderLimitServer(t, kind)

			c := dial()
			resp, body := exchange(t, c, bufio.NewReader(c), oversized)
			checkTooLong(t, resp, body)

			c = dial()
			br := bufio.NewReader(c)
			for i := 0; i < 2; i++ {
				resp, body = exchange(t, c, br, normal("/"))
				if resp.StatusCode != http.StatusOK || body != kind.want || resp.Close {
					t.Fatalf("request %d: %s %q, close %v", i+1, resp.Status, body, resp.Close)
				}
			}
			resp, body = exchange(t, c, br, oversized)
			checkTooLong(t, resp, body)

			// The listener's own hook still follows the connections.
			idle := 0
			for _, s := range states() {
				if s == http.StateIdle {
					idle++
				}
			}
			if idle < 2 {
				t.Errorf("ConnState hook saw %v", states())
			}
		})
	}
}

// A response that itself begins like Go's 431 is data, and goes out as the
// handler wrote it, even when its body is flushed after the handler
// returned; a body copied through the connection's ReadFrom arrives whole.
func TestResponseDataUnchanged(t *testing.T) {
	for _, kind := range headerLimitClients {
		t.Run(kind.name, func(t *testing.T) {
			dial, _ := startHeaderLimitServer(t, kind)
			c := dial()
			br := bufio.NewReader(c)
			for i, req := range []struct{ path, want string }{{"/fake", fakeAnswer}, {"/fake", fakeAnswer}, {"/copy", copied}} {
				resp, body := exchange(t, c, br, normal(req.path))
				if resp.StatusCode != http.StatusOK || body != req.want {
					t.Fatalf("request %d: %s %q", i+1, resp.Status, body[:min(len(body), 100)])
				}
			}
		})
	}
}
