package changefeed

import (
	"testing"
	"time"
)

// A ring wakes a waiter at once; a ring before the wait makes it return
// without waiting; without rings the wait ends at its timeout or stop.
func TestWaitAndRing(t *testing.T) {
	var f Feed
	gen := f.Generation()
	done := make(chan struct{})
	go func() { f.Wait(gen, time.Minute, nil); close(done) }()
	time.Sleep(10 * time.Millisecond)
	f.Changed()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("a ring did not wake the waiter")
	}
	start := time.Now()
	f.Wait(gen, time.Minute, nil) // rung since gen: returns at once
	if time.Since(start) > time.Second {
		t.Fatal("a wait on an old generation blocked")
	}
	stop := make(chan struct{})
	close(stop)
	f.Wait(f.Generation(), time.Minute, stop)
	start = time.Now()
	var none *Feed
	none.Changed()
	none.Wait(0, 20*time.Millisecond, nil)
	if time.Since(start) < 20*time.Millisecond {
		t.Fatal("a nil feed's wait ended before its timeout")
	}
}
