package bench

import (
	"context"
	"sync/atomic"
	"testing"
	"time"
)

// TestMeasureFinishesOperationsUnderWay runs operations that all end well
// after the window closes: each one started is finished and counted, not
// cancelled when the window closes, so the server's work on it belongs to
// an operation the result counts. The window is long enough for the
// workers to start on a loaded machine.
func TestMeasureFinishesOperationsUnderWay(t *testing.T) {
	const window = 500 * time.Millisecond
	end := time.Now().Add(2 * window)
	var started atomic.Int64
	do := func(ctx context.Context, w, seq int) (int64, error) {
		started.Add(1)
		select {
		case <-ctx.Done():
			return 0, ctx.Err()
		case <-time.After(time.Until(end)):
			return 1, nil
		}
	}
	m := measure(context.Background(), do, 4, window, 0, 0)
	n := started.Load()
	if n == 0 || m.ops != n || m.bytes != n || len(m.errors) != 0 {
		t.Fatalf("%d operations started; %d counted, bytes %d, errors %v: want every one finished and counted",
			n, m.ops, m.bytes, m.errors)
	}
	if m.elapsed < window {
		t.Fatalf("elapsed %v ends before the window (%v) whose operations it counts", m.elapsed, window)
	}
}
