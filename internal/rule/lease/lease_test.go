package lease

import (
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/lazuli-storage/lazuli/internal/rule/azerr"
)

// The lease IDs of the reference pages' tables: (A) is the current lease,
// (B) and (C) others.
const (
	idA = "11111111-1111-4111-8111-111111111111"
	idB = "22222222-2222-4222-8222-222222222222"
	idC = "33333333-3333-4333-8333-333333333333"
)

// now is the instant every table cell is evaluated at.
var now = time.Date(2024, 3, 1, 12, 0, 0, 0, time.UTC)

func ptr(n int) *int { return &n }

// mustApply runs one lease operation that must succeed.
func mustApply(t *testing.T, l Lease, req Request, at time.Time, k Kind) Lease {
	t.Helper()
	next, _, err := Apply(l, req, at, k)
	if err != nil {
		t.Fatalf("Apply(%+v): %v", req, err)
	}
	return next
}

// inState returns a lease of (A) that is in the named state at now, reached
// by real operations so the fixtures are states the machine can produce:
// leased is a fixed 60 s lease acquired 10 s ago, breaking has 25 s of a
// 30 s break left, broken was broken instantly, expired ended 5 s ago.
func inState(t *testing.T, s State, k Kind) Lease {
	t.Helper()
	acquire := func(d int) Request { return Request{Action: Acquire, ProposedID: idA, Duration: ptr(d)} }
	switch s {
	case Available:
		return Lease{}
	case Leased:
		if k == File {
			return mustApply(t, Lease{}, acquire(Infinite), now.Add(-10*time.Second), k)
		}
		return mustApply(t, Lease{}, acquire(60), now.Add(-10*time.Second), k)
	case Breaking:
		l := mustApply(t, Lease{}, acquire(Infinite), now.Add(-10*time.Second), k)
		return mustApply(t, l, Request{Action: Break, BreakPeriod: ptr(30)}, now.Add(-5*time.Second), k)
	case Broken:
		l := mustApply(t, Lease{}, acquire(Infinite), now.Add(-10*time.Second), k)
		return mustApply(t, l, Request{Action: Break, BreakPeriod: ptr(0)}, now.Add(-5*time.Second), k)
	case Expired:
		return mustApply(t, Lease{}, acquire(15), now.Add(-20*time.Second), k)
	}
	t.Fatalf("no fixture for state %q", s)
	return Lease{}
}

// wantErr checks err against an expected status and code; status 0 means
// success is expected.
func wantErr(t *testing.T, err error, status int, code string) {
	t.Helper()
	if status == 0 {
		if err != nil {
			t.Fatalf("want success, got %v", err)
		}
		return
	}
	var e *azerr.Error
	if !errors.As(err, &e) {
		t.Fatalf("want %d %s, got %v", status, code, err)
	}
	if e.Status != status || e.Code != code {
		t.Fatalf("want %d %s, got %d %s", status, code, e.Status, e.Code)
	}
}

func TestFixturesAreInTheirStates(t *testing.T) {
	for _, k := range []Kind{Blob, Container, File, Share} {
		for _, s := range []State{Available, Leased, Breaking, Broken, Expired} {
			if k == File && (s == Breaking || s == Expired) {
				continue // file leases are infinite and break at once
			}
			if got := inState(t, s, k).State(now); got != s {
				t.Errorf("kind %d: fixture %s is %s", k, s, got)
			}
		}
	}
}

// TestStatusAndDurationType: x-ms-lease-status / x-ms-lease-duration per
// state (Lease Blob's "Remarks" on lease states; the lease headers of Get
// Blob Properties' "Response headers").
func TestStatusAndDurationType(t *testing.T) {
	infinite := Lease{ID: idA, Duration: Infinite}
	tests := []struct {
		name     string
		l        Lease
		state    State
		status   string
		duration string
	}{
		{"available", Lease{}, Available, "unlocked", ""},
		{"leased fixed", inState(t, Leased, Blob), Leased, "locked", "fixed"},
		{"leased infinite", infinite, Leased, "locked", "infinite"},
		{"breaking", inState(t, Breaking, Blob), Breaking, "locked", ""},
		{"broken", inState(t, Broken, Blob), Broken, "unlocked", ""},
		{"expired", inState(t, Expired, Blob), Expired, "unlocked", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.l.State(now); got != tt.state {
				t.Errorf("State = %s, want %s", got, tt.state)
			}
			if got := tt.l.Status(now); got != tt.status {
				t.Errorf("Status = %s, want %s", got, tt.status)
			}
			if got := tt.l.DurationType(now); got != tt.duration {
				t.Errorf("DurationType = %q, want %q", got, tt.duration)
			}
		})
	}
}

// TestDurationExpires is the last row of Lease Blob's "Outcomes of lease
// operations on blobs by lease state": what time alone does to each state.
func TestDurationExpires(t *testing.T) {
	later := now.Add(2 * time.Minute)
	tests := []struct {
		from, to State
	}{
		{Available, Available},
		{Leased, Expired},
		{Breaking, Broken},
		{Broken, Broken},
		{Expired, Expired},
	}
	for _, tt := range tests {
		l := inState(t, tt.from, Blob)
		if got := l.State(later); got != tt.to {
			t.Errorf("%s after expiry: %s, want %s", tt.from, got, tt.to)
		}
		if tt.to != Available && l.ID != idA {
			t.Errorf("%s lost its ID: %q", tt.from, l.ID)
		}
	}
	if got := (Lease{ID: idA, Duration: Infinite}).State(later.Add(1000 * time.Hour)); got != Leased {
		t.Errorf("infinite lease expired: %s", got)
	}
}

// TestExpiryInstant: a fixed lease is leased strictly before Expires.
func TestExpiryInstant(t *testing.T) {
	l := mustApply(t, Lease{}, Request{Action: Acquire, ProposedID: idA, Duration: ptr(15)}, now, Blob)
	if s := l.State(now.Add(15*time.Second - time.Nanosecond)); s != Leased {
		t.Errorf("just before expiry: %s", s)
	}
	if s := l.State(now.Add(15 * time.Second)); s != Expired {
		t.Errorf("at expiry: %s", s)
	}
}

// TestAfterWrite: a write forgets an expired or broken lease (Lease Blob's
// "Outcomes of use attempts on blobs by lease state": "ok (→Available)")
// and keeps an active one.
func TestAfterWrite(t *testing.T) {
	tests := []struct {
		from State
		to   State
	}{
		{Available, Available},
		{Leased, Leased},
		{Breaking, Breaking},
		{Broken, Available},
		{Expired, Available},
	}
	for _, tt := range tests {
		l := inState(t, tt.from, Blob)
		after := l.AfterWrite(now)
		if got := after.State(now); got != tt.to {
			t.Errorf("%s after write: %s, want %s", tt.from, got, tt.to)
		}
		if tt.to == tt.from && after != l {
			t.Errorf("%s changed by a write: %+v -> %+v", tt.from, l, after)
		}
	}
}

func TestJSONRoundTrip(t *testing.T) {
	for _, s := range []State{Available, Leased, Breaking, Broken, Expired} {
		l := inState(t, s, Blob)
		raw, err := json.Marshal(l)
		if err != nil {
			t.Fatal(err)
		}
		var back Lease
		if err := json.Unmarshal(raw, &back); err != nil {
			t.Fatal(err)
		}
		if !back.Expires.Equal(l.Expires) || !back.BreakEnds.Equal(l.BreakEnds) ||
			back.ID != l.ID || back.Duration != l.Duration || back.State(now) != s {
			t.Errorf("%s: %s decoded to %+v", s, raw, back)
		}
	}
	if raw, _ := json.Marshal(Lease{}); string(raw) != "{}" {
		t.Errorf("zero lease encodes as %s", raw)
	}
}

func TestCeilSeconds(t *testing.T) {
	tests := []struct {
		d    time.Duration
		want int
	}{
		{-time.Second, 0},
		{0, 0},
		{time.Nanosecond, 1},
		{time.Second, 1},
		{time.Second + time.Millisecond, 2},
		{59*time.Second + 500*time.Millisecond, 60},
	}
	for _, tt := range tests {
		if got := ceilSeconds(tt.d); got != tt.want {
			t.Errorf("ceilSeconds(%v) = %d, want %d", tt.d, got, tt.want)
		}
	}
}
