// Package locks holds the byte-range locks SMB clients take on files, in
// one table the SMB endpoint and the REST File service share: SMB reads
// and writes of other opens, and REST Get File and Put Range, are refused
// over a locked range. Locks live in this process with the opens that took
// them (they go when the open closes or its connection drops).
package locks

import "sync"

// Lock flags (MS-SMB2 2.2.26.1).
const (
	Shared          = 0x1
	Exclusive       = 0x2
	Unlock          = 0x4
	FailImmediately = 0x10
)

// Outcomes of Apply.
type Outcome int

// Apply's outcomes.
const (
	Granted    Outcome = iota
	NotGranted         // a conflicting lock is held
	NotLocked          // an unlock of a range this open does not hold
	BadRange           // offset + length overflows
	REST       = 0     // the open id REST operations use: they own no lock
)

type byteLock struct {
	open        uint64
	off, length uint64
	exclusive   bool
}

// overlaps reports whether an I/O over [off, off+length) touches l's
// bytes; zero-length locks and I/Os touch none.
func (l byteLock) overlaps(off, length uint64) bool {
	if l.length == 0 || length == 0 {
		return false
	}
	return off <= last(l.off, l.length) && l.off <= last(off, length)
}

// contends reports whether a lock request over [off, off+length) meets
// l, as Windows judges it: ranges that share a byte; a zero-length lock at
// X meets a range that holds X past its first byte (smbtorture's
// zero-byte table); two zero-length locks never meet.
func (l byteLock) contends(off, length uint64) bool {
	switch {
	case l.length == 0 && length == 0:
		return false
	case length == 0:
		return l.off < off && off <= last(l.off, l.length)
	case l.length == 0:
		return off < l.off && l.off <= last(off, length)
	}
	return l.overlaps(off, length)
}

// last is the offset of the last byte of a non-empty range, saturating
// for ranges that run past the end of the offset space.
func last(off, length uint64) uint64 {
	if off+length < off {
		return ^uint64(0)
	}
	return off + length - 1
}

// Table is the byte-range locks of every file, by file id.
type Table struct {
	mu     sync.Mutex
	byFile map[uint64][]byteLock
	owner  map[uint64]uint64 // open -> file
	// gen counts releases; changed wakes the waiters of blocking locks.
	gen     uint64
	changed *sync.Cond
}

// New returns an empty table.
func New() *Table {
	t := &Table{byFile: map[uint64][]byteLock{}, owner: map[uint64]uint64{}}
	t.changed = sync.NewCond(&t.mu)
	return t
}

// Conflicts reports whether an I/O by open (REST for a REST operation) on
// file over [off, off+length) is refused: another open's exclusive lock
// refuses reads and writes, any shared lock refuses writes.
func (t *Table) Conflicts(file, open, off, length uint64, write bool) bool {
	if t == nil {
		return false
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, l := range t.byFile[file] {
		if !l.overlaps(off, length) {
			continue
		}
		if (l.exclusive && l.open != open) || (!l.exclusive && write) {
			return true
		}
	}
	return false
}

// Apply takes or releases one lock for open on file. A conflicting lock is
// NotGranted whatever the flags; waiting is the caller's (Wait).
func (t *Table) Apply(file, open, off, length uint64, flags uint32) Outcome {
	if length > 0 && off+(length-1) < off {
		return BadRange
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	held := t.byFile[file]
	if flags&Unlock != 0 {
		for i, l := range held {
			if l.open == open && l.off == off && l.length == length {
				t.byFile[file] = append(held[:i:i], held[i+1:]...)
				t.released()
				return Granted
			}
		}
		return NotLocked
	}
	exclusive := flags&Exclusive != 0
	for _, l := range held {
		// An open may stack shared locks inside its own exclusive lock.
		if l.contends(off, length) && (exclusive || (l.exclusive && l.open != open)) {
			return NotGranted
		}
	}
	t.byFile[file] = append(held, byteLock{open: open, off: off, length: length, exclusive: exclusive})
	t.owner[open] = file
	return Granted
}

// ReleaseOpen drops every lock of open.
func (t *Table) ReleaseOpen(open uint64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	file, ok := t.owner[open]
	if !ok {
		return
	}
	delete(t.owner, open)
	defer t.released()
	kept := t.byFile[file][:0:0]
	for _, l := range t.byFile[file] {
		if l.open != open {
			kept = append(kept, l)
		}
	}
	if len(kept) == 0 {
		delete(t.byFile, file)
	} else {
		t.byFile[file] = kept
	}
}

// Generation is the current release count.
func (t *Table) Generation() uint64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.gen
}

// Wait blocks until a lock is released after generation gen, or until
// stop says so (stop is read under the table's lock; Wake makes waiters
// look at it again).
func (t *Table) Wait(gen uint64, stop func() bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for t.gen == gen && !stop() {
		t.changed.Wait()
	}
}

// Wake makes every waiter look at its stop condition again.
func (t *Table) Wake() {
	t.mu.Lock()
	t.changed.Broadcast()
	t.mu.Unlock()
}

// released records a release; the caller holds t.mu.
func (t *Table) released() {
	t.gen++
	t.changed.Broadcast()
}
