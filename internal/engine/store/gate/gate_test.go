package gate

import (
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lazuli-storage/lazuli/internal/engine/store"
)

func TestCloseTurnsNewcomersAway(t *testing.T) {
	var g Gate
	if err := g.Enter(); err != nil {
		t.Fatal(err)
	}
	g.Leave()
	if !g.Close() {
		t.Fatal("first Close reported the gate already closed")
	}
	if g.Close() {
		t.Fatal("second Close reported it closed the gate")
	}
	if err := g.Enter(); !errors.Is(err, store.ErrClosed) {
		t.Fatalf("Enter after Close = %v", err)
	}
}

func TestCloseWaitsForAdmitted(t *testing.T) {
	var g Gate
	if err := g.Enter(); err != nil {
		t.Fatal(err)
	}
	closed := make(chan bool)
	go func() { closed <- g.Close() }()
	// Close must not return while a transaction is inside; once it has set
	// the bit, newcomers are turned away.
	for g.Enter() == nil {
		g.Leave()
		time.Sleep(time.Millisecond)
	}
	select {
	case <-closed:
		t.Fatal("Close returned with a transaction inside")
	default:
	}
	g.Leave()
	if !<-closed {
		t.Fatal("Close reported the gate already closed")
	}
}

// Many transactions come and go while Close runs: every admitted one has
// left by the time Close returns, and none is admitted afterwards.
func TestCloseUnderLoad(t *testing.T) {
	for round := 0; round < 20; round++ {
		var g Gate
		var inside, admittedAfter atomic.Int64
		var closedDone atomic.Bool
		var wg sync.WaitGroup
		for w := 0; w < 16; w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := 0; i < 200; i++ {
					if g.Enter() != nil {
						return
					}
					if closedDone.Load() {
						admittedAfter.Add(1)
					}
					inside.Add(1)
					inside.Add(-1)
					g.Leave()
				}
			}()
		}
		closers := make(chan bool, 2)
		for c := 0; c < 2; c++ {
			go func() { closers <- g.Close() }()
		}
		first, second := <-closers, <-closers
		closedDone.Store(true)
		if n := inside.Load(); n != 0 {
			t.Fatalf("round %d: %d transactions inside after Close", round, n)
		}
		if first == second {
			t.Fatalf("round %d: both Close calls reported %v", round, first)
		}
		wg.Wait()
		if n := admittedAfter.Load(); n != 0 {
			t.Fatalf("round %d: %d transactions admitted after Close", round, n)
		}
	}
}
