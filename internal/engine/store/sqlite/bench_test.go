package sqlite

import (
	"fmt"
	"testing"

	"github.com/lazuli-storage/lazuli/internal/engine/store/storetest"
)

// Benchmarks of the two hot paths: an Update writing one record, and a View
// reading one. Run them briefly, e.g. -bench . -benchtime 2000x.

// BenchmarkUpdatePut runs with one and with sixteen writers per GOMAXPROCS:
// with more writers, group commit spreads each fsync over more Updates.
func BenchmarkUpdatePut(b *testing.B) {
	for _, writers := range []int{1, 16} {
		b.Run(fmt.Sprintf("writers=%d", writers), func(b *testing.B) {
			storetest.BenchUpdatePut(b, openBench(b), writers)
		})
	}
}

func BenchmarkViewGet(b *testing.B) { storetest.BenchViewGet(b, openBench(b), 1000) }

func openBench(b *testing.B) *Store {
	s, err := Open(b.TempDir()+"/bench.db", Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	return s
}
