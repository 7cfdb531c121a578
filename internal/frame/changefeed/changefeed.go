// Package changefeed tells the SMB endpoint's pending CHANGE_NOTIFY
// requests that the File service's directories may have changed: the REST
// File service and the SMB endpoint of one process ring it after each
// request that may write, and the waiters look again at the directories
// they watch. It carries no detail (the watchers compare listings), so a
// spurious ring costs one listing and a missed one only delays the answer
// to the watchers' next periodic look.
package changefeed

import (
	"sync"
	"time"
)

// Feed is one process's change signal. The zero value is ready; a nil
// Feed ignores rings and never wakes a waiter early.
type Feed struct {
	mu      sync.Mutex
	gen     uint64
	waiters map[chan struct{}]struct{}
}

// Changed wakes every waiter.
func (f *Feed) Changed() {
	if f == nil {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.gen++
	for w := range f.waiters {
		close(w)
	}
	f.waiters = nil
}

// Generation is the number of rings so far.
func (f *Feed) Generation() uint64 {
	if f == nil {
		return 0
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.gen
}

// Wait returns when a ring comes after generation gen, when timeout passes,
// or when stop is closed.
func (f *Feed) Wait(gen uint64, timeout time.Duration, stop <-chan struct{}) {
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	if f == nil {
		select {
		case <-timer.C:
		case <-stop:
		}
		return
	}
	f.mu.Lock()
	if f.gen != gen {
		f.mu.Unlock()
		return
	}
	w := make(chan struct{})
	if f.waiters == nil {
		f.waiters = map[chan struct{}]struct{}{}
	}
	f.waiters[w] = struct{}{}
	f.mu.Unlock()
	select {
	case <-w:
		return
	case <-timer.C:
	case <-stop:
	}
	f.mu.Lock()
	delete(f.waiters, w)
	f.mu.Unlock()
}
