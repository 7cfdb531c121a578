package server

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"io"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/lazuli-storage/lazuli/internal/check/testcert"
)

func testTLSConfig(t *testing.T) (*tls.Config, *x509.CertPool) {
	t.Helper()
	cert := testcert.ForTest(t)
	return &tls.Config{Certificates: []tls.Certificate{cert.TLS()}}, cert.Pool()
}

// One TLS port serves both kinds of client through the same handler (which
// tells them apart by r.TLS), many at once, and shuts down without
// reporting the shared socket's closing as a failure.
func TestTLSPortSortsPlainAndTLSClients(t *testing.T) {
	cfg, pool := testTLSConfig(t)
	handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.TLS == nil {
			io.WriteString(w, "plain")
			return
		}
		io.WriteString(w, "tls")
	})
	srv, err := Listen([]*Listener{{Name: "blob", Addr: "127.0.0.1:0", Handler: handler, MaxConns: 64}}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	srv.Serve()
	addr := srv.Listeners()[0].Bound()
	secure := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	plain := &http.Client{Transport: &http.Transport{}}
	errs := make(chan error, 40)
	for i := 0; i < 20; i++ {
		go func() { errs <- get(secure, "https://"+addr+"/", "tls") }()
		go func() { errs <- get(plain, "http://"+addr+"/", "plain") }()
	}
	for i := 0; i < 40; i++ {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	// Connections a client dialed and never used are new to the server,
	// which Shutdown waits on for 5 s: the clients close theirs first.
	secure.CloseIdleConnections()
	plain.CloseIdleConnections()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := srv.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-srv.Errors():
		t.Fatalf("shutdown reported %v", err)
	default:
	}
	if _, err := net.Dial("tcp", addr); err == nil {
		t.Fatal("the port still accepts after shutdown")
	}
}

func get(c *http.Client, url, want string) error {
	resp, err := c.Get(url)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err == nil && string(body) != want {
		err = &mismatch{url: url, got: string(body), want: want}
	}
	return err
}

type mismatch struct{ url, got, want string }

func (m *mismatch) Error() string { return m.url + ": got " + m.got + ", want " + m.want }
