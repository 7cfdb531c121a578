package server

import (
	"testing"
	"time"
)

// TestBodyRateAllowance: the wait the next read of a body is allowed is the
// grace, plus a second for every minimum-rate's worth of bytes received,
// less the time already spent waiting.
func TestBodyRateAllowance(t *testing.T) {
	cases := []struct {
		name     string
		received int64
		waited   time.Duration
		want     time.Duration
	}{
		{"nothing yet", 0, 0, 10 * time.Second},
		{"grace half used", 0, 5 * time.Second, 5 * time.Second},
		{"bytes earn time", 1500, 0, 13 * time.Second},
		{"a part of a second", 250, 0, 10*time.Second + 500*time.Millisecond},
		{"paused after sending ahead", 50_000, 60 * time.Second, 50 * time.Second},
		{"drip behind the rate", 30, 11 * time.Second, -940 * time.Millisecond},
		{"100 MiB at full speed", 100 << 20, 2 * time.Second, 10*time.Second + (100<<20)*time.Second/500 - 2*time.Second},
	}
	for _, tc := range cases {
		r := newBodyRate(500, 10*time.Second)
		r.read(tc.received, tc.waited)
		if got := r.allowance(); got != tc.want {
			t.Errorf("%s: allowance %v, want %v", tc.name, got, tc.want)
		}
	}
	if newBodyRate(0, time.Second) != nil {
		t.Error("a minimum rate of 0 must impose none")
	}
}

// TestBodyDeadline: a read waits until the earlier of the stall timeout and
// the rate's allowance, and without either it has no deadline.
func TestBodyDeadline(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	cases := []struct {
		name string
		body progressBody
		want time.Duration // from now; -1 for none
	}{
		{"neither", progressBody{}, -1},
		{"stall only", progressBody{timeout: time.Minute}, time.Minute},
		{"rate only", progressBody{rate: newBodyRate(500, 20*time.Second)}, 20 * time.Second},
		{"rate first", progressBody{timeout: time.Minute, rate: newBodyRate(500, 20*time.Second)}, 20 * time.Second},
		{"stall first", progressBody{timeout: 5 * time.Second, rate: newBodyRate(500, 20*time.Second)}, 5 * time.Second},
	}
	for _, tc := range cases {
		got, ok := tc.body.deadline(now)
		switch {
		case tc.want < 0 && ok:
			t.Errorf("%s: deadline %v, want none", tc.name, got)
		case tc.want >= 0 && (!ok || !got.Equal(now.Add(tc.want))):
			t.Errorf("%s: deadline %v (%v), want %v", tc.name, got, ok, now.Add(tc.want))
		}
	}
}
