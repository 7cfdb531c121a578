package lazulitest

import (
	"strings"
	"testing"
	"time"

	"github.com/lazuli-storage/lazuli/internal/base/clock"
)

// StartNodes runs n Lazuli instances over the one store opts.Store names,
// as n nodes of a scaled-out deployment would: each has its own listeners
// and its own store and extent connections, and all of them share the data.
// The nodes also share one clock (a single fake clock when opts.Clock is
// nil), so advancing it expires leases and visibility on every node alike.
//
// opts.Store must name a store several processes can open at once: a
// postgres:// URL. The memory engine is private to each instance, so it is
// refused.
func StartNodes(t testing.TB, n int, opts Options) []*Instance {
	t.Helper()
	if n < 1 {
		t.Fatalf("lazulitest: StartNodes(%d): need at least one node", n)
	}
	if !sharedStore(opts.Store) {
		t.Fatalf("lazulitest: StartNodes needs a store URL every node can open (postgres://...), got %q", opts.Store)
	}
	if opts.Clock == nil {
		opts.Clock = clock.NewFake(time.Now())
	}
	nodes := make([]*Instance, n)
	for i := range nodes {
		nodes[i] = Start(t, opts)
	}
	return nodes
}

// sharedStore reports whether url names an engine that several instances
// can open together and see each other's writes.
func sharedStore(url string) bool {
	scheme, _, _ := strings.Cut(strings.ToLower(url), ":")
	return scheme == "postgres" || scheme == "postgresql"
}
