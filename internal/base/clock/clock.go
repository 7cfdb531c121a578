// Package clock is the injectable time source. Every expiry in Lazuli (lease
// durations, break periods, message visibility and TTL, SAS windows) is
// computed from stored instants and the time this package gives, so tests
// drive expiry with a Fake instead of sleeping.
package clock

import (
	"sync"
	"time"
)

// Clock tells the time.
type Clock interface {
	Now() time.Time
}

// Real is the system clock, in UTC.
type Real struct{}

// Now returns the current UTC time.
func (Real) Now() time.Time { return time.Now().UTC() }

// Fake is a manually advanced clock for tests. The zero value starts at the
// Unix epoch; use NewFake for a realistic start.
type Fake struct {
	mu  sync.Mutex
	now time.Time
}

// NewFake returns a Fake set to t.
func NewFake(t time.Time) *Fake { return &Fake{now: t.UTC()} }

// Now returns the fake time.
func (f *Fake) Now() time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.now
}

// Advance moves the fake time forward by d.
func (f *Fake) Advance(d time.Duration) {
	f.mu.Lock()
	f.now = f.now.Add(d)
	f.mu.Unlock()
}

// Set moves the fake time to t.
func (f *Fake) Set(t time.Time) {
	f.mu.Lock()
	f.now = t.UTC()
	f.mu.Unlock()
}

// Pin stops the fake time at t; a Fake never runs, so this is Set.
func (f *Fake) Pin(t time.Time) { f.Set(t) }

// Release does nothing: a Fake stands still until it is moved.
func (f *Fake) Release() {}

// Adjustable is a clock the test-control API can move: forward by a
// duration, pinned at an instant, or released to run again.
type Adjustable interface {
	Clock
	Advance(d time.Duration)
	Pin(t time.Time)
	Release()
}
