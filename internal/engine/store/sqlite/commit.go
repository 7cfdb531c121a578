package sqlite

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/lazuli-storage/lazuli/internal/engine/store"
)

// Group commit. Update queues its closure and waits. One committer goroutine
// owns the writer connection: it takes every queued closure (up to
// MaxBatch), opens one transaction, runs each closure inside its own
// SAVEPOINT (a closure that fails is rolled back to its savepoint alone), and
// commits once, so a single fsync makes the whole batch durable. Closures
// never overlap, so they never conflict, and the batch is equivalent to
// running them one after another in queue order.
//
// If the batch transaction itself fails (BEGIN, COMMIT, or SQLite rolling
// the transaction back under a closure), none of it was kept; each closure is
// then run again in a transaction of its own, so one bad closure cannot fail
// its neighbours. The store contract allows a closure to run more than once.

// request is one queued Update. Requests are recycled through requestPool.
type request struct {
	ctx context.Context
	fn  func(store.Tx) error

	err      error
	panicked bool
	panicVal any
	done     chan struct{} // receives once the request is answered
}

var requestPool = sync.Pool{New: func() any { return &request{done: make(chan struct{}, 1)} }}

// errClosurePanicked stands in for a panicking closure's error inside the
// committer; the caller re-raises the panic itself.
var errClosurePanicked = errors.New("sqlite: update closure panicked")

type committer struct {
	c        *conn
	maxBatch int

	mu    sync.Mutex
	queue []*request // guarded by mu

	wake    chan struct{} // capacity 1: "the queue may be non-empty"
	stop    chan struct{}
	stopped chan struct{}

	// observe, when set, learns the size of every committed batch.
	observe atomic.Pointer[func(updates int)]
}

func newCommitter(c *conn, maxBatch int) *committer {
	w := &committer{
		c:        c,
		maxBatch: maxBatch,
		wake:     make(chan struct{}, 1),
		stop:     make(chan struct{}),
		stopped:  make(chan struct{}),
	}
	go w.run()
	return w
}

// do queues fn, waits for the committer's answer and returns it, re-raising
// a panic of fn in the calling goroutine.
func (w *committer) do(ctx context.Context, fn func(store.Tx) error) error {
	r := requestPool.Get().(*request)
	r.ctx, r.fn = ctx, fn
	w.mu.Lock()
	w.queue = append(w.queue, r)
	w.mu.Unlock()
	select {
	case w.wake <- struct{}{}:
	default: // a wake-up is already pending
	}
	<-r.done
	err, panicked, panicVal := r.err, r.panicked, r.panicVal
	*r = request{done: r.done}
	requestPool.Put(r)
	if panicked {
		panic(panicVal)
	}
	return err
}

func (w *committer) run() {
	defer close(w.stopped)
	var batch []*request
	for {
		select {
		case <-w.wake:
		case <-w.stop:
			// Close waits for every Update first, so the queue is empty;
			// drain it anyway rather than strand a caller.
			w.drain(batch)
			return
		}
		batch = w.drain(batch)
	}
}

// drain commits batches until the queue is empty, and returns batch's
// storage for reuse.
func (w *committer) drain(batch []*request) []*request {
	for {
		batch = w.take(batch[:0])
		if len(batch) == 0 {
			return batch
		}
		w.commit(batch)
		clear(batch)
	}
}

// take moves up to maxBatch queued requests into batch.
func (w *committer) take(batch []*request) []*request {
	w.mu.Lock()
	defer w.mu.Unlock()
	n := min(len(w.queue), w.maxBatch)
	batch = append(batch, w.queue[:n]...)
	rest := copy(w.queue, w.queue[n:])
	clear(w.queue[rest:])
	w.queue = w.queue[:rest]
	return batch
}

// commit runs batch as one transaction, falling back to one transaction per
// closure if that fails, and answers every request.
func (w *committer) commit(batch []*request) {
	err := w.runTransaction(batch)
	if err != nil && len(batch) > 1 {
		for _, r := range batch {
			if err := w.runTransaction([]*request{r}); err != nil {
				r.err = err
			}
			r.done <- struct{}{}
		}
		return
	}
	for _, r := range batch {
		if err != nil {
			r.err = err
		}
		r.done <- struct{}{}
	}
}

// runTransaction runs the closures of reqs in one transaction, each in its
// own savepoint, and commits. A closure's own failure is recorded in its
// request and does not fail the transaction; the returned error means the
// transaction as a whole was not committed.
func (w *committer) runTransaction(reqs []*request) error {
	c := w.c
	if c.broken {
		// An earlier ROLLBACK failed, so a transaction may still be open.
		_ = c.control(c.rollback)
		c.broken = false
	}
	if err := c.control(c.begin); err != nil {
		return fmt.Errorf("sqlite: begin: %w", err)
	}
	for _, r := range reqs {
		if err := w.runInSavepoint(r); err != nil {
			w.abandon()
			return err
		}
	}
	if err := c.control(c.commit); err != nil {
		w.abandon()
		return fmt.Errorf("sqlite: commit: %w", err)
	}
	if fn := w.observe.Load(); fn != nil {
		(*fn)(len(reqs))
	}
	return nil
}

// runInSavepoint runs one closure inside a savepoint, keeping its writes if
// it succeeds and rolling back to the savepoint if it fails. The returned
// error means the enclosing transaction can no longer be trusted.
func (w *committer) runInSavepoint(r *request) error {
	r.err, r.panicked, r.panicVal = nil, false, nil
	if err := r.ctx.Err(); err != nil {
		r.err = err
		return nil
	}
	c := w.c
	if err := c.control(c.savepoint); err != nil {
		return fmt.Errorf("sqlite: savepoint: %w", err)
	}
	if r.err = runClosure(c, r); r.err != nil {
		if err := c.control(c.rollSave); err != nil {
			return fmt.Errorf("sqlite: transaction lost under a failing closure (%v): %w", r.err, err)
		}
	}
	if err := c.control(c.release); err != nil {
		return fmt.Errorf("sqlite: release savepoint: %w", err)
	}
	return nil
}

// runClosure calls the request's closure with a fresh Tx, turning a panic
// into a recorded panic and a statement failure the closure ignored into
// its error.
func runClosure(c *conn, r *request) (err error) {
	tx := &writeTx{c: c}
	defer func() {
		tx.done = true
		if p := recover(); p != nil {
			r.panicked, r.panicVal = true, p
			err = errClosurePanicked
		}
	}()
	err = r.fn(tx)
	if err == nil {
		err = tx.err
	}
	return err
}

// abandon rolls back whatever is left of a failed batch transaction. The
// ROLLBACK may itself fail because SQLite already rolled back; either way no
// transaction is open afterwards.
func (w *committer) abandon() {
	_ = w.c.control(w.c.rollback)
}

// close stops the committer once the queue is drained.
func (w *committer) close() {
	close(w.stop)
	<-w.stopped
}
