package smb

import "github.com/lazuli-storage/lazuli/internal/locks"

// lockStatus is the NTSTATUS of a lock table outcome.
var lockStatus = map[locks.Outcome]uint32{locks.Granted: statusOK, locks.NotGranted: statusLockNotGranted,
	locks.NotLocked: statusRangeNotLocked, locks.BadRange: statusInvalidLockRange}

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
		switch flags &^ locks.FailImmediately {
		case locks.Shared, locks.Exclusive:
		case locks.Unlock:
			if flags&locks.FailImmediately != 0 {
				return statusInvalidParameter, nil
			}
		default:
			return statusInvalidParameter, nil
		}
		off, length := le.Uint64(e), le.Uint64(e[8:])
		gen := c.srv.locks.Generation()
		st := lockStatus[c.srv.locks.Apply(o.fileID, o.id, off, length, flags)]
		if st == statusLockNotGranted && flags&(locks.FailImmediately|locks.Unlock) == 0 && count == 1 {
			// A blocking lock waits, answered at once with STATUS_PENDING.
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
					if st := lockStatus[c.srv.locks.Apply(o.fileID, o.id, off, length, flags)]; st != statusLockNotGranted {
						return st, nil
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
