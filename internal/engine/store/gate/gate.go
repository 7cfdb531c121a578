// Package gate lets a store engine's Close wait for the transactions already
// running and turn later ones away, without a lock on the transaction path.
// The memory and SQLite engines use it.
package gate

import (
	"sync"
	"sync/atomic"

	"github.com/lazuli-storage/lazuli/internal/engine/store"
)

// closedBit marks a closed gate in Gate.state; the bits below count the
// transactions inside.
const closedBit = 1 << 62

// Gate counts running transactions so that Close can wait for them, without a
// lock on the transaction path. Once closed it turns every newcomer away with
// store.ErrClosed. A transaction nested in another (a View inside an Update
// closure) is turned away rather than waited for, so Close cannot deadlock.
// The zero value is an open gate.
type Gate struct {
	state   atomic.Int64
	closeMu sync.Mutex    // serializes close calls
	drained chan struct{} // closed when the last transaction leaves a closed gate
	signal  sync.Once
}

// Enter admits a transaction, or returns store.ErrClosed.
func (g *Gate) Enter() error {
	if g.state.Add(1)&closedBit != 0 {
		g.Leave()
		return store.ErrClosed
	}
	return nil
}

// Leave ends a transaction admitted by Enter.
func (g *Gate) Leave() {
	if g.state.Add(-1) == closedBit {
		g.signal.Do(func() { close(g.drained) })
	}
}

// Close turns newcomers away and waits until every admitted transaction has
// left. It reports false if the gate was already closed.
func (g *Gate) Close() bool {
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
