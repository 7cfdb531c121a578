package sqlite

import (
	"sync"
	"sync/atomic"

	"github.com/lazuli-storage/lazuli/internal/store"
)

// closedBit marks a closed gate in gate.state; the bits below count the
// transactions inside.
const closedBit = 1 << 62

// gate counts running transactions so that Close can wait for them, without a
// lock on the transaction path. Once closed it turns every newcomer away with
// store.ErrClosed. A transaction nested in another (a View inside an Update
// closure) is turned away rather than waited for, so Close cannot deadlock.
type gate struct {
	state   atomic.Int64
	closeMu sync.Mutex    // serializes close calls
	drained chan struct{} // closed when the last transaction leaves a closed gate
	signal  sync.Once
}

// enter admits a transaction, or returns store.ErrClosed.
func (g *gate) enter() error {
	if g.state.Add(1)&closedBit != 0 {
		g.leave()
		return store.ErrClosed
	}
	return nil
}

// leave ends a transaction admitted by enter.
func (g *gate) leave() {
	if g.state.Add(-1) == closedBit {
		g.signal.Do(func() { close(g.drained) })
	}
}

// close turns newcomers away and waits until every admitted transaction has
// left. It reports false if the gate was already closed.
func (g *gate) close() bool {
	g.closeMu.Lock()
	defer g.closeMu.Unlock()
	if g.state.Load()&closedBit != 0 {
		return false
	}
	// drained is written before the bit is set, so any leave that sees the
	// bit also sees the channel.
	g.drained = make(chan struct{})
	if g.state.Or(closedBit) != 0 {
		<-g.drained
	}
	return true
}
