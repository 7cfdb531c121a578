// Package lazulitest starts a real Lazuli in-process on 127.0.0.1 with free
// ports and a temporary data directory, for integration tests that drive it
// with the official Azure SDKs over real sockets.
package lazulitest

import (
	"context"
	"encoding/base64"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/lazuli-storage/lazuli/internal/app"
	"github.com/lazuli-storage/lazuli/internal/clock"
	"github.com/lazuli-storage/lazuli/internal/config"
)

// Dev account credentials, as every SDK's development-storage shortcut uses.
const (
	Account = "devstoreaccount1"
	Key     = "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw=="
)

// Options adjust a test server.
type Options struct {
	// InMemory uses the memory engines instead of sqlite and files.
	InMemory bool
	// Dir is the data directory; empty means a fresh t.TempDir().
	Dir string
	// Store is a store URL (memory:, sqlite:PATH, postgres://...) to open
	// instead of the one derived from Dir and InMemory, as --store does.
	// The extent engine goes with it (files beside a sqlite database, chunk
	// rows in the same PostgreSQL database). StartNodes needs a shared one.
	Store string
	// Clock drives expiry; nil means a fake clock at the current time,
	// reachable as Instance.Clock.
	Clock clock.Clock
	// Services to start; empty means all.
	Services []string
	// Configure edits the configuration before the start (e.g. TLS files).
	Configure func(*config.Config)
}

// Instance is a running test server.
type Instance struct {
	App   *app.App
	Dir   string
	Clock clock.Clock
	// Fake is Clock when it is a *clock.Fake (the default), else nil.
	Fake *clock.Fake

	BlobURL, QueueURL, TableURL, FileURL string
	ConnectionString                     string
	SMBAddr                              string // host:port of the SMB endpoint, "" when not running

	opts Options
}

// Start runs Lazuli until the test ends.
func Start(t testing.TB, opts Options) *Instance {
	t.Helper()
	if opts.Dir == "" && !opts.InMemory {
		opts.Dir = t.TempDir()
	}
	if opts.Clock == nil {
		opts.Clock = clock.NewFake(time.Now())
	}
	in := &Instance{Dir: opts.Dir, Clock: opts.Clock, opts: opts}
	in.Fake, _ = opts.Clock.(*clock.Fake)
	in.start(t)
	return in
}

func (in *Instance) start(t testing.TB) {
	t.Helper()
	cfg, err := config.Parse([]string{"--blobPort", "0", "--queuePort", "0", "--tablePort", "0", "--filePort", "0", "--smbPort", "0"},
		func(string) string { return "" }, io.Discard)
	if err != nil {
		t.Fatalf("lazulitest: config: %v", err)
	}
	cfg.Location = in.Dir
	cfg.InMemory = in.opts.InMemory
	cfg.Store = in.opts.Store
	cfg.Services = in.opts.Services
	if in.opts.Configure != nil {
		in.opts.Configure(cfg)
	}
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	a, err := app.Start(context.Background(), cfg, app.Options{Clock: in.Clock, Logger: logger})
	if err != nil {
		t.Fatalf("lazulitest: start: %v", err)
	}
	in.App = a
	in.BlobURL = a.Endpoints["blob"] + "/"
	in.QueueURL = a.Endpoints["queue"] + "/"
	in.TableURL = a.Endpoints["table"] + "/"
	in.FileURL = a.Endpoints["file"] + "/"
	in.SMBAddr = a.SMBAddr
	in.ConnectionString = a.ConnectionString()
	t.Cleanup(func() { in.stop() })
}

func (in *Instance) stop() {
	if in.App == nil {
		return
	}
	// Go's graceful shutdown waits up to 5 s on connections a client opened
	// but never used; a test has no request in flight at its end, so a
	// short grace keeps teardown quick.
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	_ = in.App.Close(ctx)
	in.App = nil
}

// Stop stops the server and closes its storage, as a process exit would,
// keeping the data for a later Restart or for another program to open.
func (in *Instance) Stop() { in.stop() }

// Restart stops the server and starts it again on the same data directory
// (new ports), as a process restart would.
func (in *Instance) Restart(t testing.TB) {
	t.Helper()
	if in.opts.InMemory || in.opts.Store == "memory:" {
		t.Fatal("lazulitest: Restart needs a persistent instance")
	}
	in.stop()
	in.start(t)
}

// KeyBytes is the decoded account key.
func KeyBytes() []byte {
	b, _ := base64.StdEncoding.DecodeString(Key)
	return b
}
