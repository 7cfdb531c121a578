// Package lazulitest runs a real Lazuli inside a Go test: the Blob, Queue,
// Table and File services of the Azure Storage REST API on free loopback
// ports, with an in-memory store (or a temporary SQLite one), ready Azure
// SDK clients, and control over what a test otherwise waits for or cannot
// provoke: the server's clock, and faults such as 503 ServerBusy, slow
// answers or a connection lost mid-download. The server stops when the
// test ends (t.Cleanup).
//
// A test that expires a lease without waiting, then checks that its retry
// policy rides over a 503:
//
//	func TestLeaseAndRetry(t *testing.T) {
//		srv := lazulitest.Start(t, lazulitest.Options{})
//		ctx := context.Background()
//		client := srv.BlobClient(t)
//		client.CreateContainer(ctx, "jobs", nil)
//		client.UploadBuffer(ctx, "jobs", "lock", nil, nil)
//		blob := client.ServiceClient().NewContainerClient("jobs").NewBlobClient("lock")
//		leaser, _ := lease.NewBlobClient(blob, nil)
//		leaser.AcquireLease(ctx, 60, nil)
//
//		srv.Advance(61 * time.Second) // no sleeping: the lease is expired now
//		props, _ := blob.GetProperties(ctx, nil)
//		fmt.Println(*props.LeaseState) // expired
//
//		srv.InjectFault(t, lazulitest.Fault{Operation: "GetBlob", Count: 1, Status: 503})
//		if _, err := client.DownloadStream(ctx, "jobs", "lock", nil); err != nil {
//			t.Fatal(err) // the SDK retried the injected 503 ServerBusy
//		}
//	}
//
// Operation names are those of Lazuli's route tables, which its access log
// and metrics show: PutBlob, GetBlob, GetBlobProperties, PutMessage,
// GetMessages, InsertEntity, QueryEntities, CreateFile, and so on.
package lazulitest

import (
	"context"
	"encoding/base64"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/lazuli-storage/lazuli/internal/base/clock"
	"github.com/lazuli-storage/lazuli/internal/check/testhost"
	"github.com/lazuli-storage/lazuli/internal/frame/fault"
	"github.com/lazuli-storage/lazuli/internal/run/app"
	"github.com/lazuli-storage/lazuli/internal/run/config"
)

// The development account every SDK's development-storage shortcut uses.
const (
	Account = "devstoreaccount1"
	Key     = "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw=="
)

// Options adjust a test server. The zero value is an in-memory server with
// every service, a clock running from the current time, and the admin
// listener (console, metrics) on a free port.
type Options struct {
	// Persistent stores data in SQLite and files under Dir (a fresh
	// t.TempDir() when empty) instead of in memory, so that Restart
	// keeps it.
	Persistent bool
	Dir        string
	// Services to start ("blob", "queue", "table", "file"); empty: all.
	Services []string
	// StartAt sets the server's clock at the start (zero: now); Frozen
	// stops it there, so that only Advance moves it.
	StartAt time.Time
	Frozen  bool
	// NoAdmin leaves out the admin listener.
	NoAdmin bool
	// ClientOptions are given to the SDK clients the server hands out
	// (retry policy, transport, logging).
	ClientOptions ClientOptions

	// Host carries settings only Lazuli's own tests give.
	Host *testhost.Options
}

// Server is a running test server.
type Server struct {
	// Service endpoints including the account, with a trailing slash;
	// empty for a service not started.
	BlobURL, QueueURL, TableURL, FileURL string
	// ConnectionString names every running service with the account key.
	ConnectionString string
	// AdminURL is the admin listener (web console, /metrics, the
	// test-control API), without a trailing slash; empty with NoAdmin.
	AdminURL string
	// Dir is the data directory of a persistent server.
	Dir string

	opts  Options
	clock clock.Clock
	app   *app.App
}

// Start runs Lazuli until the test ends.
func Start(t testing.TB, opts Options) *Server {
	t.Helper()
	if opts.Persistent && opts.Dir == "" {
		opts.Dir = t.TempDir()
	}
	host := opts.Host
	if host == nil {
		host = &testhost.Options{}
	}
	s := &Server{Dir: opts.Dir, opts: opts, clock: host.Clock}
	if s.clock == nil {
		s.clock = newClock(opts)
	}
	s.start(t)
	t.Cleanup(s.Stop)
	return s
}

func newClock(opts Options) clock.Clock {
	switch {
	case opts.Frozen:
		at := opts.StartAt
		if at.IsZero() {
			at = time.Now()
		}
		return clock.NewFake(at)
	case !opts.StartAt.IsZero():
		c := clock.NewControlled()
		c.Pin(opts.StartAt)
		c.Release()
		return c
	}
	return clock.NewControlled()
}

func (s *Server) start(t testing.TB) {
	t.Helper()
	args := []string{"--blobPort", "0", "--queuePort", "0", "--tablePort", "0", "--filePort", "0", "--smbPort", "0", "--adminPort", "0"}
	if s.opts.NoAdmin {
		args = append(args, "--noAdmin")
	}
	cfg, err := config.Parse(args, func(string) string { return "" }, io.Discard)
	if err != nil {
		t.Fatalf("lazulitest: config: %v", err)
	}
	cfg.Location = s.Dir
	cfg.InMemory = !s.opts.Persistent
	cfg.Services = s.opts.Services
	host := s.opts.Host
	if host != nil {
		cfg.Store = host.Store
		if host.Configure != nil {
			host.Configure(cfg)
		}
	}
	appOpts := app.Options{Clock: s.clock, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}
	if host != nil {
		appOpts.AccessLog = host.AccessLog
	}
	a, err := app.Start(context.Background(), cfg, appOpts)
	if err != nil {
		t.Fatalf("lazulitest: start: %v", err)
	}
	s.app = a
	s.BlobURL, s.QueueURL = endpoint(a, "blob"), endpoint(a, "queue")
	s.TableURL, s.FileURL = endpoint(a, "table"), endpoint(a, "file")
	s.ConnectionString = a.ConnectionString()
	s.AdminURL = a.AdminURL()
	if host != nil && host.Started != nil {
		host.Started(a)
	}
}

func endpoint(a *app.App, service string) string {
	if u, ok := a.Endpoints[service]; ok {
		return u + "/"
	}
	return ""
}

// Stop stops the server and closes its storage, as a process exit would;
// t.Cleanup calls it, and calling it again does nothing.
func (s *Server) Stop() {
	if s.app == nil {
		return
	}
	// A test has no request in flight at its end; a short grace keeps
	// teardown quick despite idle keep-alive connections.
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	_ = s.app.Close(ctx)
	s.app = nil
}

// Restart stops the server and starts it again on the same data (new
// ports: clients must be made again), as a process restart would. It
// needs a persistent server.
func (s *Server) Restart(t testing.TB) {
	t.Helper()
	if !s.opts.Persistent && (s.opts.Host == nil || s.opts.Host.Store == "") {
		t.Fatal("lazulitest: Restart needs Options.Persistent")
	}
	if s.opts.Host != nil && s.opts.Host.Store == "memory:" {
		t.Fatal("lazulitest: Restart needs a persistent store")
	}
	s.Stop()
	s.start(t)
}

// KeyBytes is the decoded account key.
func KeyBytes() []byte {
	b, _ := base64.StdEncoding.DecodeString(Key)
	return b
}

// Now is the server's clock.
func (s *Server) Now() time.Time { return s.clock.Now() }

// Advance moves the server's clock forward by d and returns the new time:
// leases, lease breaks, queue visibility and time-to-live, SAS windows,
// blob expiry and soft-delete retention all follow it.
func (s *Server) Advance(d time.Duration) time.Time {
	s.adjustable().Advance(d)
	return s.Now()
}

// Pin stops the server's clock at at, until Release.
func (s *Server) Pin(at time.Time) { s.adjustable().Pin(at) }

// Release lets a pinned clock run again from where it stands.
func (s *Server) Release() { s.adjustable().Release() }

func (s *Server) adjustable() clock.Adjustable {
	c, ok := s.clock.(clock.Adjustable)
	if !ok {
		panic("lazulitest: the server's clock cannot be moved")
	}
	return c
}

// Fault is a fault rule: which requests it selects (empty selectors match
// all), how often it fires among them, and what it does. See the README's
// "Test control" section for every field.
type Fault = fault.Rule

// Duration is a Fault's latency.
type Duration = fault.Duration

// InjectFault adds a fault rule and returns it with its ID; an invalid
// rule fails the test.
func (s *Server) InjectFault(t testing.TB, f Fault) Fault {
	t.Helper()
	added, err := s.app.Faults.Add(f)
	if err != nil {
		t.Fatalf("lazulitest: fault rule: %v", err)
	}
	return added
}

// Faults lists the fault rules with how many requests each selected
// (Seen) and acted on (Injected).
func (s *Server) Faults() []Fault { return s.app.Faults.List() }

// RemoveFault removes one rule; ClearFaults removes them all.
func (s *Server) RemoveFault(id int) { s.app.Faults.Remove(id) }

// ClearFaults removes every fault rule.
func (s *Server) ClearFaults() { s.app.Faults.Clear() }

// Reset deletes every container, blob, queue, table, share and service
// setting of account ("" for every account), for test isolation.
func (s *Server) Reset(t testing.TB, account string) {
	t.Helper()
	if _, err := s.app.Reset(context.Background(), account); err != nil {
		t.Fatalf("lazulitest: reset: %v", err)
	}
}
