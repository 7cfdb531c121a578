package queue_test

import (
	"testing"
	"time"

	"github.com/lazuli-storage/lazuli/internal/base/clock"
	"github.com/lazuli-storage/lazuli/internal/check/lazulitest"
)

// With the real clock, a message hidden for one second comes back by itself.
func TestRealTimeVisibility(t *testing.T) {
	e := start(t, lazulitest.Options{InMemory: true, Clock: clock.Real{}})
	q := e.queue("realtime")
	e.put(q, "tick", nil)
	if got := e.get(q, 1, 1); len(got) != 1 {
		t.Fatal("not delivered")
	}
	if got := e.get(q, 1, 1); len(got) != 0 {
		t.Fatal("delivered twice within its timeout")
	}
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		if got := e.get(q, 1, 1); len(got) == 1 {
			if *got[0].DequeueCount != 2 {
				t.Fatalf("dequeue count %d", *got[0].DequeueCount)
			}
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatal("message did not become visible again within 5 s")
}
