// Package testhost holds the settings of an in-process test server that
// only Lazuli's own tests give: the public package lazulitest takes them
// through a pointer of this package's type, which code outside the module
// cannot name, so the public API stays small while internal/check/lazulitest
// (the project's helper, built on the public one) reaches every knob.
package testhost

import (
	"log/slog"

	"github.com/lazuli-storage/lazuli/internal/base/clock"
	"github.com/lazuli-storage/lazuli/internal/run/app"
	"github.com/lazuli-storage/lazuli/internal/run/config"
)

// Options are the project-only settings of a test server.
type Options struct {
	// Clock replaces the server's clock (a *clock.Fake for the project's
	// tests, which expect time to stand still).
	Clock clock.Clock
	// Store is a store URL to open instead of the data directory's.
	Store string
	// Configure edits the configuration before each start.
	Configure func(*config.Config)
	// AccessLog receives one line per request.
	AccessLog *slog.Logger
	// Started learns the running app after each start and restart.
	Started func(*app.App)
}
