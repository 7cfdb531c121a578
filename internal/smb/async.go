package smb

import (
	"sync"
	"sync/atomic"
)

// pendingOp is a request answered with STATUS_PENDING whose final
// response a goroutine sends later: a blocking LOCK.
type pendingOp struct {
	asyncID   uint64
	messageID uint64
	open      uint64
	// cancel is the status the operation ends with when stopped (0: not
	// stopped): CANCELLED for CANCEL, FILE_CLOSED and the like when its
	// handle, tree or session goes.
	cancel atomic.Uint32
}

// asyncTable holds a connection's pending operations.
type asyncTable struct {
	mu     sync.Mutex
	next   uint64
	byID   map[uint64]*pendingOp
	writer sync.Mutex // serializes frames between the reader and completions
}

// goAsync answers r with an interim STATUS_PENDING and runs work in a
// goroutine; work's status becomes the final response. work polls stop.
func (c *conn) goAsync(r *request, o *open, work func(stop func() bool) uint32) (uint32, []byte) {
	t := &c.async
	t.mu.Lock()
	t.next++
	p := &pendingOp{asyncID: t.next, messageID: r.h.messageID, open: o.id}
	if t.byID == nil {
		t.byID = map[uint64]*pendingOp{}
	}
	t.byID[p.asyncID] = p
	t.mu.Unlock()
	h := r.h
	var sign *signer
	if r.sess.valid && (h.flags&flagSigned != 0 || r.sess.signAll) {
		s := r.sess.signer
		sign = &s
	}
	sealer, sealedFor := r.ch.sealer, r.ch.sealedFor
	go func() {
		status := work(func() bool { return p.cancel.Load() != 0 })
		if st := p.cancel.Load(); st != 0 {
			status = st
		}
		t.mu.Lock()
		delete(t.byID, p.asyncID)
		t.mu.Unlock()
		body := errorBody()
		if status == statusOK {
			body = newBuf(4).u16(0, 4)
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
			p.cancel.CompareAndSwap(0, status)
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
