package smb

import "github.com/lazuli-storage/lazuli/internal/rule/locks"

// lockStatus is the NTSTATUS of a lock table outcome.
var lockStatus = map[locks.Outcome]uint32{locks.Granted: statusOK, locks.NotGranted: statusLockNotGranted,
	locks.NotLocked: statusRangeNotLocked, locks.BadRange: statusInvalidLockRange}

// lockElement is one range of a LOCK request.
type lockElement struct {
	off, length uint64
	flags       uint32
}

// lock serves LOCK (MS-SMB2 3.3.5.14). The first element says whether the
// request unlocks or locks; an element of the other kind is invalid, as
// is a lock among several that would wait.
// Unlocks apply one by one until one fails; locks are all or nothing: when
// one is refused, those the request took are released. A single lock
// without FAIL_IMMEDIATELY waits (STATUS_PENDING) for the range.
func (c *conn) lock(r *request) (uint32, []byte) {
	o, st := c.openOf(r, 8)
	if st != statusOK {
		return st, nil
	}
	count := int(le.Uint16(r.body[2:]))
	if count == 0 || len(r.body) < 24+24*count {
		return statusInvalidParameter, nil
	}
	elems := make([]lockElement, count)
	for i := range elems {
		e := r.body[24+24*i:]
		elems[i] = lockElement{off: le.Uint64(e), length: le.Uint64(e[8:]), flags: le.Uint32(e[16:])}
	}
	if elems[0].flags&locks.Unlock != 0 {
		return c.unlockAll(o, elems), newBuf(4).u16(0, 4)
	}
	if count > 1 {
		// Several locks cannot wait: each must fail at once (MS-SMB2
		// 3.3.5.14.2).
		for _, e := range elems {
			if e.flags&(locks.Shared|locks.Exclusive) != 0 && e.flags&locks.FailImmediately == 0 {
				return statusInvalidParameter, nil
			}
		}
	}
	var taken []lockElement
	for _, e := range elems {
		switch e.flags &^ locks.FailImmediately {
		case locks.Shared, locks.Exclusive:
		default:
			c.releaseTaken(o, taken)
			return statusInvalidParameter, nil
		}
		gen := c.srv.locks.Generation()
		st := lockStatus[c.srv.locks.Apply(o.fileID, o.id, e.off, e.length, e.flags)]
		if st == statusLockNotGranted && e.flags&locks.FailImmediately == 0 && count == 1 {
			return c.waitForLock(r, o, e, gen)
		}
		if st != statusOK {
			c.releaseTaken(o, taken)
			return st, nil
		}
		taken = append(taken, e)
	}
	return statusOK, newBuf(4).u16(0, 4)
}

// unlockAll releases the ranges in order, stopping at the first failure.
func (c *conn) unlockAll(o *open, elems []lockElement) uint32 {
	for _, e := range elems {
		if e.flags != locks.Unlock {
			return statusInvalidParameter
		}
		if st := lockStatus[c.srv.locks.Apply(o.fileID, o.id, e.off, e.length, e.flags)]; st != statusOK {
			return st
		}
	}
	return statusOK
}

// releaseTaken undoes the locks a failed request took.
func (c *conn) releaseTaken(o *open, taken []lockElement) {
	for _, e := range taken {
		c.srv.locks.Apply(o.fileID, o.id, e.off, e.length, locks.Unlock)
	}
}

// waitForLock answers at once with STATUS_PENDING and grants the lock when
// the range frees, or ends with CANCELLED (or the close status).
func (c *conn) waitForLock(r *request, o *open, e lockElement, gen uint64) (uint32, []byte) {
	return c.goAsync(r, o, statusRangeNotLocked, func(stop <-chan struct{}) (uint32, []byte) {
		stopped := func() bool {
			select {
			case <-stop:
				return true
			default:
				return false
			}
		}
		for {
			c.srv.locks.Wait(gen, stopped)
			if stopped() {
				return statusCancelled, nil
			}
			gen = c.srv.locks.Generation()
			if st := lockStatus[c.srv.locks.Apply(o.fileID, o.id, e.off, e.length, e.flags)]; st != statusLockNotGranted {
				return st, nil
			}
		}
	})
}
