package bench

import (
	"context"
	"encoding/base64"
	"net"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"
)

// connectionCounter is a server that answers every request 201 with no
// body and counts the TCP connections its clients open.
type connectionCounter struct {
	server *httptest.Server
	opened atomic.Int64
}

func startConnectionCounter(t *testing.T) *connectionCounter {
	t.Helper()
	cc := &connectionCounter{}
	cc.server = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusCreated)
	}))
	cc.server.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			cc.opened.Add(1)
		}
	}
	cc.server.Start()
	t.Cleanup(cc.server.Close)
	return cc
}

func (cc *connectionCounter) target() Target {
	base := cc.server.URL + "/devstoreaccount1"
	return Target{Name: "counter", BlobURL: base, QueueURL: base, TableURL: base, FileURL: base,
		Account: "devstoreaccount1", Key: base64.StdEncoding.EncodeToString([]byte("key"))}
}

// TestSeedingKeepsItsConnections fills list-blobs' container for one
// measuring worker: the setup's requests in flight reuse their keep-alive
// connections, where a client sized for the one worker kept 16 idle for
// the setup's 32 requests in flight and kept opening new ones (102 for
// these 5,000 blobs).
func TestSeedingKeepsItsConnections(t *testing.T) {
	cc := startConnectionCounter(t)
	opts := Options{Duration: time.Millisecond, Concurrency: 1, ListBlobs: 5000}
	if _, err := Run(context.Background(), cc.target(), []string{"list-blobs"}, opts); err != nil {
		t.Fatal(err)
	}
	if opened := cc.opened.Load(); opened > seedInFlight {
		t.Errorf("seeding 5,000 blobs opened %d connections, want at most %d (one per request in flight)", opened, seedInFlight)
	}
}
