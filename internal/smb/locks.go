package smb

import "sync"

// Lock flags (MS-SMB2 2.2.26.1).
const (
	lockShared          = 0x1
	lockExclusive       = 0x2
	lockUnlock          = 0x4
	lockFailImmediately = 0x10
)

// byteLock is one granted byte-range lock.
type byteLock struct {
	open        uint64
	off, length uint64
	exclusive   bool
}

func (l byteLock) overlaps(off, length uint64) bool {
	if l.length == 0 || length == 0 {
		return false
	}
	return off < end(l.off, l.length) && l.off < end(off, length)
}

// end is off+length, saturating: ranges may reach the last byte offset.
func end(off, length uint64) uint64 {
	if off+length < off {
		return ^uint64(0)
	}
	return off + length
}

// byteLocks holds the byte-range locks of every file, by file id. They
// live in this process: they guard SMB reads and writes, and go with the
// open that took them.
type byteLocks struct {
	mu     sync.Mutex
	byFile map[uint64][]byteLock
	owner  map[uint64]uint64 // open -> file
	// gen counts releases; changed wakes the waiters of blocking locks.
	gen     uint64
	changed *sync.Cond
}

func newByteLocks() *byteLocks {
	b := &byteLocks{byFile: map[uint64][]byteLock{}, owner: map[uint64]uint64{}}
	b.changed = sync.NewCond(&b.mu)
	return b
}

// generation is the current release count.
func (b *byteLocks) generation() uint64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.gen
}

// wait blocks until a lock is released after generation gen, or until
// stop says so (stop is read under the lock; wake makes waiters look).
func (b *byteLocks) wait(gen uint64, stop func() bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for b.gen == gen && !stop() {
		b.changed.Wait()
	}
}

// wake makes every waiter look at its stop condition again.
func (b *byteLocks) wake() {
	b.mu.Lock()
	b.changed.Broadcast()
	b.mu.Unlock()
}

// released records a release; the caller holds b.mu.
func (b *byteLocks) released() {
	b.gen++
	b.changed.Broadcast()
}

// conflicts reports whether an I/O by open on file over [off, off+length)
// is refused: another open's exclusive lock refuses reads and writes, any
// shared lock refuses writes.
func (b *byteLocks) conflicts(file, open, off, length uint64, write bool) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, l := range b.byFile[file] {
		if !l.overlaps(off, length) {
			continue
		}
		if (l.exclusive && l.open != open) || (!l.exclusive && write) {
			return true
		}
	}
	return false
}

// apply takes or releases one lock element for open on file.
func (b *byteLocks) apply(file, open uint64, off, length uint64, flags uint32) uint32 {
	if length > 0 && off+(length-1) < off {
		return statusInvalidLockRange
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	locks := b.byFile[file]
	if flags&lockUnlock != 0 {
		for i, l := range locks {
			if l.open == open && l.off == off && l.length == length {
				b.byFile[file] = append(locks[:i:i], locks[i+1:]...)
				b.released()
				return statusOK
			}
		}
		return statusRangeNotLocked
	}
	exclusive := flags&lockExclusive != 0
	for _, l := range locks {
		// An open may stack shared locks inside its own exclusive lock.
		if l.overlaps(off, length) && (exclusive || (l.exclusive && l.open != open)) {
			return statusLockNotGranted
		}
	}
	b.byFile[file] = append(locks, byteLock{open: open, off: off, length: length, exclusive: exclusive})
	b.owner[open] = file
	return statusOK
}

// releaseOpen drops every lock of open.
func (b *byteLocks) releaseOpen(open uint64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	file, ok := b.owner[open]
	if !ok {
		return
	}
	delete(b.owner, open)
	defer b.released()
	kept := b.byFile[file][:0:0]
	for _, l := range b.byFile[file] {
		if l.open != open {
			kept = append(kept, l)
		}
	}
	if len(kept) == 0 {
		delete(b.byFile, file)
	} else {
		b.byFile[file] = kept
	}
}

func (c *conn) lock(r *request) (uint32, []byte) {
	o, st := c.openOf(r, 8)
	if st != statusOK {
		return st, nil
	}
	count := int(le.Uint16(r.body[2:]))
	if count == 0 || len(r.body) < 24+24*count {
		return statusInvalidParameter, nil
	}
	for i := 0; i < count; i++ {
		e := r.body[24+24*i:]
		flags := le.Uint32(e[16:])
		switch flags &^ lockFailImmediately {
		case lockShared, lockExclusive:
		case lockUnlock:
			if flags&lockFailImmediately != 0 {
				return statusInvalidParameter, nil
			}
		default:
			return statusInvalidParameter, nil
		}
		off, length := le.Uint64(e), le.Uint64(e[8:])
		gen := c.srv.locks.generation()
		st := c.srv.locks.apply(o.fileID, o.id, off, length, flags|lockFailImmediately)
		if st == statusLockNotGranted && flags&(lockFailImmediately|lockUnlock) == 0 && count == 1 {
			// A blocking lock waits, answered at once with STATUS_PENDING.
			return c.goAsync(r, o, func(stop func() bool) uint32 {
				for {
					c.srv.locks.wait(gen, stop)
					if stop() {
						return statusCancelled
					}
					gen = c.srv.locks.generation()
					if st := c.srv.locks.apply(o.fileID, o.id, off, length, flags|lockFailImmediately); st != statusLockNotGranted {
						return st
					}
				}
			})
		}
		if st != statusOK {
			return st, nil
		}
	}
	return statusOK, newBuf(4).u16(0, 4)
}
