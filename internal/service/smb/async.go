package smb

import (
	"sync"
	"sync/atomic"
)

// pendingOp is a request answered with STATUS_PENDING whose final
// response a goroutine sends later: a blocking LOCK, a CHANGE_NOTIFY.
type pendingOp struct {
	asyncID   uint64
	messageID uint64
	open      uint64
	// cancel is the status the operation ends with when stopped (0: not
	// stopped): CANCELLED for CANCEL, closeStatus when its handle, tree or
	// session goes.
	cancel      atomic.Uint32
	closeStatus uint32
	// stopped is closed when cancel is set.
	stopped chan struct{}
}

// stop ends the operation with status unless it was stopped already.
func (p *pendingOp) stop(status uint32) {
	if p.cancel.CompareAndSwap(0, status) {
		close(p.stopped)
	}
}

// asyncTable holds a connection's pending operations.
type asyncTable struct {
	mu     sync.Mutex
	next   uint64
	byID   map[uint64]*pendingOp
	writer sync.Mutex // serializes frames between the reader and completions
}

// goAsync answers r with an interim STATUS_PENDING and runs work in a
// goroutine; work's status and body (nil: the command's empty success or
// an error body) become the final response. work watches stop, closed when
// the operation is cancelled; closing the handle ends it with closeStatus.
func (c *conn) goAsync(r *request, o *open, closeStatus uint32, work func(stop <-chan struct{}) (uint32, []byte)) (uint32, []byte) {
	t := &c.async
	t.mu.Lock()
	t.next++
	p := &pendingOp{asyncID: t.next, messageID: r.h.messageID, open: o.id, closeStatus: closeStatus,
		stopped: make(chan struct{})}
	if t.byID == nil {
		t.byID = map[uint64]*pendingOp{}
	}
	t.byID[p.asyncID] = p
	t.mu.Unlock()
	h := r.h
	var sign *signer
	if r.sess.valid && (h.flags&flagSigned != 0 || r.sess.signingRequired) {
		s := r.sess.signer
		sign = &s
	}
	sealer, sealedFor := r.ch.sealer, r.ch.sealedFor
	go func() {
		status, body := work(p.stopped)
		if st := p.cancel.Load(); st != 0 {
			status, body = st, nil
		}
		t.mu.Lock()
		delete(t.byID, p.asyncID)
		t.mu.Unlock()
		switch {
		case body != nil:
		case status == statusOK:
			body = newBuf(4).u16(0, 4)
		case h.command == cmdChangeNotify && status == statusNotifyCleanup:
			body = notifyBody(nil)
		default:
			body = errorBody()
		}
		msg := asyncHeader(response(h, status, 0, body), p.asyncID)
		switch {
		case sealer != nil:
			msg = sealer.seal(msg, sealedFor)
		case sign != nil:
			sign.sign(msg)
		}
		_ = c.writeFrame(msg)
	}()
	r.asyncID = p.asyncID
	return statusPending, nil
}

// asyncHeader turns a response header into its async form.
func asyncHeader(msg []byte, asyncID uint64) []byte {
	le.PutUint32(msg[16:], le.Uint32(msg[16:])|flagAsync)
	le.PutUint64(msg[32:], asyncID)
	return msg
}

// cancelWhere stops the pending operations match selects, with status.
func (c *conn) cancelWhere(status uint32, match func(*pendingOp) bool) {
	c.async.mu.Lock()
	for _, p := range c.async.byID {
		if match(p) {
			p.stop(status)
		}
	}
	c.async.mu.Unlock()
	c.srv.locks.Wake()
}

// closeWaits ends the pending operations of the open id as its closing
// does: each with its own close status.
func (c *conn) closeWaits(id uint64) {
	c.async.mu.Lock()
	for _, p := range c.async.byID {
		if p.open == id {
			p.stop(p.closeStatus)
		}
	}
	c.async.mu.Unlock()
	c.srv.locks.Wake()
}

// cancelRequest serves CANCEL: it has no response of its own.
func (c *conn) cancelRequest(h header) {
	c.cancelWhere(statusCancelled, func(p *pendingOp) bool {
		if h.flags&flagAsync != 0 {
			return p.asyncID == h.asyncID
		}
		return p.messageID == h.messageID
	})
}
