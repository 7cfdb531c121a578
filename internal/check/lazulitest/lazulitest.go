// Package lazulitest is the project's own test server helper: it starts a
// real Lazuli in-process on 127.0.0.1 with free ports and a temporary data
// directory, for integration tests that drive it with the official Azure
// SDKs over real sockets. It is built on the public package
// github.com/lazuli-storage/lazuli/lazulitest, adding what only the
// project's tests need: a clock that stands still by default, an explicit
// store URL, configuration edits, the running app, and several nodes over
// one store.
package lazulitest

import (
	"log/slog"
	"os"
	"testing"
	"time"

	"github.com/lazuli-storage/lazuli/internal/base/clock"
	"github.com/lazuli-storage/lazuli/internal/check/testhost"
	"github.com/lazuli-storage/lazuli/internal/run/app"
	"github.com/lazuli-storage/lazuli/internal/run/config"
	public "github.com/lazuli-storage/lazuli/lazulitest"
)

// Dev account credentials, as every SDK's development-storage shortcut uses.
const (
	Account = public.Account
	Key     = public.Key
)

// Options adjust a test server.
type Options struct {
	// InMemory uses the memory engines instead of sqlite and files, unless
	// the environment says LAZULI_TEST_ENGINE=sqlite: `make test` runs the
	// SDK suites once more that way, on the store users get by default.
	InMemory bool
	// Dir is the data directory; empty means a fresh t.TempDir().
	Dir string
	// Store is a store URL (memory:, sqlite:PATH, postgres://...) to open
	// instead of the one derived from Dir and InMemory, as --store does.
	// The extent engine goes with it (files beside a sqlite database, chunk
	// rows in the same PostgreSQL database). StartNodes needs a shared one.
	Store string
	// Extents, when set, keeps blob and file content there instead of
	// beside the store, as --extents does: an s3:// URL (S3Extents gives a
	// fresh one).
	Extents string
	// Clock drives expiry; nil means a fake clock at the current time,
	// reachable as Instance.Clock.
	Clock clock.Clock
	// Services to start; empty means all.
	Services []string
	// Configure edits the configuration before the start (e.g. TLS files).
	Configure func(*config.Config)
	// AccessLog receives one line per request; nil for none.
	AccessLog *slog.Logger
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
	// AdminURL is the admin listener (test control), without a trailing slash.
	AdminURL string
	// SMBAddr is host:port of the SMB endpoint, "" when it is not running.
	SMBAddr string

	// Server is the public test server this instance runs on.
	Server *public.Server
}

// EngineEnv names the variable that, set to "sqlite", runs servers asked
// for InMemory on sqlite and files instead.
const EngineEnv = "LAZULI_TEST_ENGINE"

// Start runs Lazuli until the test ends.
func Start(t testing.TB, opts Options) *Instance {
	t.Helper()
	if opts.Clock == nil {
		opts.Clock = clock.NewFake(time.Now())
	}
	in := &Instance{Clock: opts.Clock}
	in.Fake, _ = opts.Clock.(*clock.Fake)
	host := &testhost.Options{Clock: opts.Clock, Store: opts.Store, Configure: withExtents(opts.Extents, opts.Configure),
		AccessLog: opts.AccessLog, Started: func(a *app.App) { in.App = a }}
	if opts.InMemory && opts.Store == "" && os.Getenv(EngineEnv) == "sqlite" {
		opts.InMemory = false
	}
	in.Server = public.Start(t, public.Options{Persistent: !opts.InMemory, Dir: opts.Dir, Services: opts.Services, Host: host})
	in.Dir = in.Server.Dir
	in.sync()
	return in
}

// withExtents returns configure preceded by setting the extents URL, or
// configure unchanged when there is none.
func withExtents(extents string, configure func(*config.Config)) func(*config.Config) {
	if extents == "" {
		return configure
	}
	return func(cfg *config.Config) {
		cfg.Extents = extents
		if configure != nil {
			configure(cfg)
		}
	}
}

// sync copies the server's endpoints after a start.
func (in *Instance) sync() {
	s := in.Server
	in.BlobURL, in.QueueURL, in.TableURL, in.FileURL = s.BlobURL, s.QueueURL, s.TableURL, s.FileURL
	in.ConnectionString, in.AdminURL = s.ConnectionString, s.AdminURL
	if in.App != nil {
		in.SMBAddr = in.App.SMBAddr
	}
}

// Stop stops the server and closes its storage, as a process exit would,
// keeping the data for a later Restart or for another program to open.
func (in *Instance) Stop() {
	in.Server.Stop()
	in.App = nil
}

// Restart stops the server and starts it again on the same data directory
// (new ports), as a process restart would.
func (in *Instance) Restart(t testing.TB) {
	t.Helper()
	in.Server.Restart(t)
	in.sync()
}

// KeyBytes is the decoded account key.
func KeyBytes() []byte { return public.KeyBytes() }
