package clock

import (
	"sync"
	"sync/atomic"
	"time"
)

// Controlled is the server's clock: the system clock shifted by an offset
// (Advance adds to it), or pinned at one instant. It runs
// like Real until someone moves it, so a server started with it behaves as
// with Real, and a test that drives it through the admin API sees leases,
// visibility and expiry follow.
type Controlled struct {
	mu     sync.Mutex                // serialises the writers
	offset atomic.Int64              // nanoseconds added to the system clock
	pinned atomic.Pointer[time.Time] // non-nil while pinned
}

// NewControlled returns a Controlled running with the system clock.
func NewControlled() *Controlled { return &Controlled{} }

// Now returns the pinned instant, or the system time plus the offset.
func (c *Controlled) Now() time.Time {
	if p := c.pinned.Load(); p != nil {
		return *p
	}
	return time.Now().UTC().Add(time.Duration(c.offset.Load()))
}

// Advance moves the clock forward by d, whether it runs or is pinned.
func (c *Controlled) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if p := c.pinned.Load(); p != nil {
		at := p.Add(d)
		c.pinned.Store(&at)
		return
	}
	c.offset.Add(int64(d))
}

// Pin stops the clock at t until Release.
func (c *Controlled) Pin(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	t = t.UTC()
	c.pinned.Store(&t)
}

// Release lets a pinned clock run again from the instant it was pinned at:
// the offset becomes whatever makes Now continue from there.
func (c *Controlled) Release() {
	c.mu.Lock()
	defer c.mu.Unlock()
	p := c.pinned.Load()
	if p == nil {
		return
	}
	c.offset.Store(int64(p.Sub(time.Now().UTC())))
	c.pinned.Store(nil)
}
