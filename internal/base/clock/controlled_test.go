package clock_test

import (
	"testing"
	"time"

	"github.com/lazuli-storage/lazuli/internal/base/clock"
)

func TestControlledRunsWithTheSystemClock(t *testing.T) {
	c := clock.NewControlled()
	before := time.Now().UTC()
	now := c.Now()
	if now.Before(before) || now.Sub(before) > time.Minute {
		t.Fatalf("Now = %v, system clock %v", now, before)
	}
}

func TestControlledAdvancePinRelease(t *testing.T) {
	c := clock.NewControlled()
	c.Advance(90 * time.Second)
	if d := c.Now().Sub(time.Now().UTC()); d < 89*time.Second {
		t.Fatalf("after Advance(90s) the clock is %v ahead", d)
	}
	at := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
	c.Pin(at)
	if got := c.Now(); !got.Equal(at) {
		t.Fatalf("pinned clock = %v, want %v", got, at)
	}
	c.Advance(time.Hour)
	if got := c.Now(); !got.Equal(at.Add(time.Hour)) {
		t.Fatalf("pinned clock after Advance(1h) = %v", got)
	}
	c.Release()
	if got := c.Now(); got.Before(at.Add(time.Hour)) || got.Sub(at.Add(time.Hour)) > time.Minute {
		t.Fatalf("released clock = %v, want to continue from %v", got, at.Add(time.Hour))
	}
}

func TestAdjustableClocks(t *testing.T) {
	for _, c := range []clock.Adjustable{clock.NewControlled(), clock.NewFake(time.Now())} {
		at := time.Date(2031, 5, 6, 7, 8, 9, 0, time.UTC)
		c.Pin(at)
		c.Advance(time.Minute)
		if got := c.Now(); !got.Equal(at.Add(time.Minute)) {
			t.Errorf("%T: %v, want %v", c, got, at.Add(time.Minute))
		}
	}
}
