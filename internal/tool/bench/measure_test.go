package bench

import (
	"context"
	"testing"
	"time"
)

// TestMeasureFinishesOperationsUnderWay gives every worker one operation
// twenty times longer than the window: each is finished and counted, not
// cancelled when the window closes, so the server's work on it belongs to
// an operation the result counts.
func TestMeasureFinishesOperationsUnderWay(t *testing.T) {
	const window = time.Millisecond
	const workers = 4
	do := func(ctx context.Context, w, seq int) (int64, error) {
		select {
		case <-ctx.Done():
			return 0, ctx.Err()
		case <-time.After(20 * window):
			return 1, nil
		}
	}
	m := measure(context.Background(), do, workers, window, 0)
	if m.ops != workers || m.bytes != workers || len(m.errors) != 0 {
		t.Fatalf("ops %d, bytes %d, errors %v; want each of the %d operations under way finished and counted",
			m.ops, m.bytes, m.errors, workers)
	}
	if m.elapsed < 20*window {
		t.Fatalf("elapsed %v ends before the operations it counts (%v each)", m.elapsed, 20*window)
	}
}
