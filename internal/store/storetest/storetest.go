// Package storetest is the conformance suite every store engine passes.
// An engine's test file calls Run once with an Engine describing how to open
// it; the suite checks the guarantees documented in package store: no lost
// update under concurrent compare-and-swap, snapshot stability during writes,
// scan order, bounds and limits, retry of conflicting closures, and (for
// persistent engines) durability of acknowledged writes across a SIGKILL.
package storetest

import (
	"testing"

	"github.com/lazuli-storage/lazuli/internal/store"
)

// Engine tells the suite how to open an engine under test.
type Engine struct {
	// Name labels subtests.
	Name string
	// NewLocation returns a fresh, empty location: a directory for file
	// engines, a database URL or schema for postgres, "" for memory.
	NewLocation func(t testing.TB) string
	// Open opens a handle on the data at location. For a Shared engine,
	// opening one location twice yields two handles on the same data, as two
	// server nodes would have.
	Open func(t testing.TB, location string) (store.Store, error)
	// Persistent engines keep data across Close and reopen, and across a
	// SIGKILL of the process: the restart and kill tests run only for them.
	Persistent bool
	// Shared engines support several handles on one location at once: the
	// two-handle race test runs only for them.
	Shared bool
}
