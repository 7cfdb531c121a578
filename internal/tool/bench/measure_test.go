package bench

import (
	"context"
	"sync/atomic"
	"testing"
	"time"
)

// TestMeasureFinishesOperationsUnderWay runs operations twenty times longer
// than the window: each one started is finished and counted, not cancelled
// when the window closes, so the server's work on it belongs to an
// operation the result counts.
func TestMeasureFinishesOperationsUnderWay(t *testing.T) {
	const window = time.Millisecond
	var started atomic.Int64
	do := func(ctx context.Context, w, seq int) (int64, error) {
		started.Add(1)
		select {
		case <-ctx.Done():
			return 0, ctx.Err()
		case <-time.After(20 * window):
			return 1, nil
		}
	}
	m := measure(context.Background(), do, 4, window, 0)
	n := started.Load()
	if n == 0 || m.ops != n || m.bytes != n || len(m.errors) != 0 {
		t.Fatalf("%d operations started; %d counted, bytes %d, errors %v: want every one finished and counted",
			n, m.ops, m.bytes, m.errors)
	}
	if m.elapsed < 20*window {
		t.Fatalf("elapsed %v ends before the operations it counts (%v each)", m.elapsed, 20*window)
	}
}
