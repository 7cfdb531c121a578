package memory

import (
	"testing"

	"github.com/lazuli-storage/lazuli/internal/engine/store/storetest"
)

// Benchmarks of the two hot paths; run them briefly, e.g. -benchtime 20000x.

func BenchmarkUpdatePut(b *testing.B) { storetest.BenchUpdatePut(b, New(), 1) }

func BenchmarkViewGet(b *testing.B) { storetest.BenchViewGet(b, New(), 100000) }
