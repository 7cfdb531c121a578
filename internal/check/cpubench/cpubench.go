// Package cpubench runs a Go benchmark's loop and reports the process's
// CPU time per operation beside the wall time: on a shared machine whose
// other work preempts the benchmark, wall time per op swings from run to
// run while CPU time stays put.
package cpubench

import (
	"testing"

	"github.com/lazuli-storage/lazuli/internal/base/cputime"
)

// Loop runs op in b.Loop and reports cpu-ns/op.
func Loop(b *testing.B, op func()) {
	start := cputime.Process()
	for b.Loop() {
		op()
	}
	b.ReportMetric(float64(cputime.Process()-start)/float64(b.N), "cpu-ns/op")
}
