package locks

import (
	"sync"
	"testing"
)

func TestApplyAndConflicts(t *testing.T) {
	const file, a, b = 1, 10, 20
	tb := New()
	steps := []struct {
		open        uint64
		off, length uint64
		flags       uint32
		want        Outcome
	}{
		{a, 0, 10, Exclusive, Granted},
		{b, 5, 10, Exclusive | FailImmediately, NotGranted},
		{b, 5, 10, Shared, NotGranted},
		{a, 2, 2, Shared, Granted},        // shared inside its own exclusive lock
		{a, 0, 10, Exclusive, NotGranted}, // but not a second exclusive
		{b, 10, 5, Shared, Granted},       // adjacent, no overlap
		{b, 11, 2, Shared, Granted},       // shared locks share
		{b, 0, 0, Exclusive, Granted},     // zero length never conflicts
		{a, 50, 5, Unlock, NotLocked},
		{b, 1<<63 + 5, 1 << 63, Shared, BadRange},
		{b, ^uint64(0), 1, Shared, Granted}, // the last byte
	}
	for i, s := range steps {
		if got := tb.Apply(file, s.open, s.off, s.length, s.flags); got != s.want {
			t.Fatalf("step %d: %v, want %v", i, got, s.want)
		}
	}
	for _, c := range []struct {
		open        uint64
		off, length uint64
		write, want bool
	}{
		{REST, 0, 1, false, true},   // a's exclusive lock refuses REST reads
		{a, 0, 1, false, false},     // but not a's own
		{REST, 12, 1, false, false}, // shared locks allow reads
		{REST, 12, 1, true, true},   // and refuse writes
		{REST, 100, 1, true, false},
	} {
		if got := tb.Conflicts(file, c.open, c.off, c.length, c.write); got != c.want {
			t.Errorf("Conflicts(open %d, [%d,+%d), write %v) = %v", c.open, c.off, c.length, c.write, got)
		}
	}
	tb.ReleaseOpen(a)
	if tb.Conflicts(file, REST, 0, 1, false) {
		t.Fatal("a's locks outlive ReleaseOpen")
	}
}

// TestWaiters: many goroutines take and release the same exclusive range;
// each waits for the previous holder, and at most one holds it at a time.
func TestWaiters(t *testing.T) {
	tb := New()
	var held sync.Mutex // TryLock fails if two hold the range at once
	var wg sync.WaitGroup
	for i := range 16 {
		wg.Go(func() {
			open := uint64(i + 1)
			for {
				gen := tb.Generation()
				if tb.Apply(1, open, 0, 100, Exclusive) == Granted {
					break
				}
				tb.Wait(gen, func() bool { return false })
			}
			if !held.TryLock() {
				t.Error("two opens hold the same exclusive range")
				return
			}
			held.Unlock()
			tb.ReleaseOpen(open)
		})
	}
	wg.Wait()
}

// TestZeroLengthLocks: a zero-length lock at X meets a range holding X
// past its first byte, and never another zero-length lock (the table
// smbtorture's smb2.lock.zerobytelength checks against Windows); ranges
// reaching the last offset meet.
func TestZeroLengthLocks(t *testing.T) {
	cases := []struct {
		off1, len1, off2, len2 uint64
		conflict               bool
	}{
		{10, 0, 10, 0, false},
		{10, 0, 9, 1, false},
		{10, 0, 10, 1, false},
		{10, 0, 11, 1, false},
		{10, 0, 9, 2, true},
		{10, 0, 10, 2, false},
		{10, 0, 9, 3, true},
		{9, 2, 10, 0, true},
		{10, 2, 10, 0, false},
		{^uint64(0), 1, ^uint64(0), 1, true},
		{^uint64(0), 0, ^uint64(0), 0, false},
	}
	for _, c := range cases {
		tb := New()
		if got := tb.Apply(1, 1, c.off1, c.len1, Exclusive|FailImmediately); got != Granted {
			t.Fatalf("first lock %+v: %v", c, got)
		}
		got := tb.Apply(1, 2, c.off2, c.len2, Exclusive|FailImmediately) == NotGranted
		if got != c.conflict {
			t.Errorf("{%d,%d} then {%d,%d}: conflict %v, want %v", c.off1, c.len1, c.off2, c.len2, got, c.conflict)
		}
	}
}
