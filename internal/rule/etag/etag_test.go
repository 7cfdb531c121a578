package etag

import (
	"sync"
	"testing"
	"time"
)

// restart forgets what this process issued, as a new process starts.
func restart() { lastIssued.Store(0) }

func TestTickAndTime(t *testing.T) {
	cases := []struct {
		at   time.Time
		tick Tick
	}{
		{time.Unix(0, 0).UTC(), epochOffset},
		// .NET's DateTime(2020, 1, 1).Ticks.
		{time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC), 637134336000000000},
		{time.Date(2020, 1, 1, 0, 0, 0, 100, time.UTC), 637134336000000001},
		{time.Date(2020, 1, 1, 1, 0, 0, 0, time.FixedZone("+1", 3600)), 637134336000000000},
	}
	for _, c := range cases {
		if got := FromTime(c.at); got != c.tick {
			t.Errorf("FromTime(%v) = %d, want %d", c.at, got, c.tick)
		}
		if got := c.tick.Time(); !got.Equal(c.at) || got.Location() != time.UTC {
			t.Errorf("Tick(%d).Time() = %v, want %v in UTC", c.tick, got, c.at)
		}
	}
	// Below 100 ns is dropped.
	if got := FromTime(time.Date(2020, 1, 1, 0, 0, 0, 199, time.UTC)); got != 637134336000000001 {
		t.Errorf("sub-tick nanoseconds: %d", got)
	}
}

func TestStringAndParse(t *testing.T) {
	tick := Tick(0x8D7FADAB3EA4124)
	if got := tick.String(); got != `"0x8D7FADAB3EA4124"` {
		t.Errorf("String() = %s", got)
	}
	if got := tick.Bare(); got != "0x8D7FADAB3EA4124" {
		t.Errorf("Bare() = %s", got)
	}
	cases := []struct {
		in   string
		want Tick
		ok   bool
	}{
		{`"0x8D7FADAB3EA4124"`, tick, true},
		{"0x8D7FADAB3EA4124", tick, true},
		{"0x8d7fadab3ea4124", tick, true},
		{"0X1", 1, true},
		{`"0xFFFFFFFFFFFFFFFF"`, 1<<64 - 1, true},
		{"0x", 0, false},
		{"8D7FADAB3EA4124", 0, false},
		{"0xZZ", 0, false},
		{"0x1FFFFFFFFFFFFFFFF", 0, false},
		{`W/"0x1"`, 0, false},
		{"", 0, false},
		{"*", 0, false},
	}
	for _, c := range cases {
		got, ok := Parse(c.in)
		if ok != c.ok || (ok && got != c.want) {
			t.Errorf("Parse(%q) = %d, %v; want %d, %v", c.in, got, ok, c.want, c.ok)
		}
	}
	for _, tk := range []Tick{1, epochOffset, 637134336000000000, 1<<64 - 1} {
		if got, ok := Parse(tk.String()); !ok || got != tk {
			t.Errorf("Parse(%s) = %d, %v", tk, got, ok)
		}
	}
}

func TestNext(t *testing.T) {
	at := time.Date(2030, 6, 1, 12, 0, 0, 0, time.UTC)
	now := FromTime(at)
	cases := []struct {
		name       string
		lastIssued Tick // what this process issued last
		at         time.Time
		prev       Tick
		want       Tick
	}{
		{"new object, fresh process", 0, at, 0, now},
		{"clock ahead of the object", 0, at, now - 10, now},
		{"object ahead of the clock", 0, at, now + 50, now + 51},
		{"object at the clock", 0, at, now, now + 1},
		{"process issued ahead of the clock", now + 7, at, 0, now + 8},
		{"process and object ahead: the larger wins", now + 7, at, now + 20, now + 21},
		{"clock stepped back an hour", now, at.Add(-time.Hour), now - 3, now + 1},
	}
	for _, c := range cases {
		lastIssued.Store(uint64(c.lastIssued))
		if got := Next(c.at, c.prev); got != c.want {
			t.Errorf("%s: Next = now%+d, want now%+d", c.name, int64(got-now), int64(c.want-now))
		}
	}
	restart()
}

// TestNextUniqueAndIncreasingAcrossWriters: many writers issue ETags at
// once, each for its own objects and all for one shared object (whose
// writes a transaction serialises, as the store does): every ETag is
// unique, each writer's are strictly increasing, and the shared object's
// sequence is strictly increasing, even with the clock frozen.
func TestNextUniqueAndIncreasingAcrossWriters(t *testing.T) {
	restart()
	frozen := time.Date(2030, 6, 1, 12, 0, 0, 0, time.UTC)
	const writers, each = 16, 2000
	var (
		shared      sync.Mutex
		sharedTicks []Tick
		sharedPrev  Tick
	)
	issued := make([][]Tick, writers)
	var wg sync.WaitGroup
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var prev Tick
			for i := range each {
				if i%4 == 0 {
					shared.Lock()
					sharedPrev = Next(frozen, sharedPrev)
					sharedTicks = append(sharedTicks, sharedPrev)
					issued[w] = append(issued[w], sharedPrev)
					shared.Unlock()
					continue
				}
				prev = Next(frozen, prev)
				issued[w] = append(issued[w], prev)
			}
		}()
	}
	wg.Wait()
	seen := make(map[Tick]bool, writers*each)
	for w, ticks := range issued {
		for i, tk := range ticks {
			if seen[tk] {
				t.Fatalf("ETag %s issued twice", tk)
			}
			seen[tk] = true
			if i > 0 && tk <= ticks[i-1] {
				t.Fatalf("writer %d: ETag %d after %d", w, tk, ticks[i-1])
			}
		}
	}
	for i := 1; i < len(sharedTicks); i++ {
		if sharedTicks[i] <= sharedTicks[i-1] {
			t.Fatalf("shared object: ETag %d after %d", sharedTicks[i], sharedTicks[i-1])
		}
	}
	if len(seen) != writers*each {
		t.Fatalf("%d ETags, want %d", len(seen), writers*each)
	}
}

// TestNextAcrossRestart: a new process, with a clock that has stepped
// back, still issues an object an ETag above the one stored for it,
// because the stored ETag seeds the next.
func TestNextAcrossRestart(t *testing.T) {
	restart()
	at := time.Date(2030, 6, 1, 12, 0, 0, 0, time.UTC)
	var stored Tick
	for range 1000 {
		stored = Next(at, stored)
	}
	restart()
	for _, back := range []time.Duration{0, time.Second, time.Hour, 24 * time.Hour} {
		next := Next(at.Add(-back), stored)
		if next <= stored {
			t.Fatalf("after a restart with the clock %v back: ETag %d, stored %d", back, next, stored)
		}
		stored = next
		restart()
	}
}
