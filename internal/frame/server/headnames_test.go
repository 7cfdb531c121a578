package server

import (
	"bufio"
	"crypto/tls"
	"crypto/x509"
	"io"
	"net"
	"net/http"
	"sort"
	"strings"
	"testing"

	"github.com/lazuli-storage/lazuli/internal/rule/metadata"
)

// metaEcho answers the metadata names the handlers see, sorted, one per
// line, as metadata.Parse reads them.
var metaEcho = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
	m, err := metadata.Parse(r.Header)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	var names []string
	for _, p := range m {
		names = append(names, p.Name+"="+p.Value)
	}
	sort.Strings(names)
	io.WriteString(w, strings.Join(names, "\n"))
})

// Metadata names reach the handlers in the case the client wrote them
// (Azure keeps it: "Metadata names preserve the case with which they were
// created"), request after request on one connection, plain and over TLS,
// where Go's server alone would canonicalise them.
func TestMetadataNamesKeepTheirCase(t *testing.T) {
	for _, secure := range []bool{false, true} {
		cfg, pool := testTLSConfig(t)
		if !secure {
			cfg = nil
		}
		srv, err := Listen([]*Listener{{Name: "blob", Addr: "127.0.0.1:0", Handler: metaEcho, MaxConns: 8}}, cfg)
		if err != nil {
			t.Fatal(err)
		}
		srv.Serve()
		addr := srv.Listeners()[0].Bound()
		conn, err := dialMaybeTLS(addr, secure, pool)
		if err != nil {
			t.Fatal(err)
		}
		reader := bufio.NewReader(conn)
		for _, c := range []struct{ headers, want string }{
			{"x-ms-meta-UP: 1\r\nX-MS-META-camelCase: 2\r\n", "UP=1\ncamelCase=2"},
			// The next request's names are its own, not the previous one's.
			{"x-ms-meta-up: 3\r\n", "up=3"},
			{"", ""},
			// Two spellings of one name are one name, as Go joins them.
			{"x-ms-meta-Dup: a\r\nx-ms-meta-DUP: b\r\n", "Dup=a,b"},
			// A long head spans several reads.
			{"x-ms-pad: " + strings.Repeat("p", 20000) + "\r\nx-ms-meta-Tail: t\r\n", "Tail=t"},
		} {
			req := "GET / HTTP/1.1\r\nHost: x\r\n" + c.headers + "\r\n"
			if _, err := io.WriteString(conn, req); err != nil {
				t.Fatal(err)
			}
			resp, err := http.ReadResponse(reader, nil)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if string(body) != c.want {
				t.Errorf("tls=%v, headers %.60q: handler saw %q, want %q", secure, c.headers, body, c.want)
			}
		}
		conn.Close()
		srv.Shutdown(t.Context())
	}
}

// The listener's copy of a head's names matches each header line, whatever
// the case of its prefix, and nothing else.
func TestMetaHeaderNames(t *testing.T) {
	head := "PUT /c/b HTTP/1.1\r\nHost: h\r\nx-ms-meta-A: 1\r\nX-Ms-Meta-bB: 2\r\nx-ms-metadata: no\r\nx-ms-meta-: empty"
	got := strings.Join(metaHeaderNames([]byte(head)), ",")
	if got != "x-ms-meta-A,X-Ms-Meta-bB" {
		t.Fatalf("names %q", got)
	}
}

func dialMaybeTLS(addr string, secure bool, pool *x509.CertPool) (net.Conn, error) {
	if !secure {
		return net.Dial("tcp", addr)
	}
	return tls.Dial("tcp", addr, &tls.Config{RootCAs: pool})
}

// A connection does not keep a large head's buffer once the head is read:
// a client could otherwise leave each of its idle connections holding up
// to net/http's 1 MB header limit.
func TestLargeHeadBufferIsLetGo(t *testing.T) {
	var s sentHead
	s.feed([]byte("GET / HTTP/1.1\r\nx-ms-pad: " + strings.Repeat("p", 100<<10) + "\r\nx-ms-meta-A: 1\r\n\r\n"))
	if cap(s.buf) > keptHeadBuffer || len(s.metaNames) != 1 {
		t.Fatalf("kept %d bytes of buffer, names %v", cap(s.buf), s.metaNames)
	}
	s.reset()
	s.feed([]byte("GET / HTTP/1.1\r\nx-ms-meta-B: 2\r\n\r\n"))
	if cap(s.buf) == 0 || len(s.metaNames) != 1 || s.metaNames[0] != "x-ms-meta-B" {
		t.Fatalf("a small head: buffer %d, names %v", cap(s.buf), s.metaNames)
	}
}
