package liveness

import (
	"context"
	"testing"
	"time"

	"github.com/lazuli-storage/lazuli/internal/base/clock"
	"github.com/lazuli-storage/lazuli/internal/engine/store"
	"github.com/lazuli-storage/lazuli/internal/engine/store/memory"
)

func alive(t *testing.T, judge *Registry, node uint64) bool {
	t.Helper()
	var ok bool
	err := judge.store.View(context.Background(), func(tx store.Tx) error {
		var err error
		ok, err = judge.Alive(tx, node)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return ok
}

// A node is alive until the expiry after its last renewal, as another node
// sharing the store and the time judges it; never-seen nodes are dead,
// and node 0 and the judge itself always alive.
func TestExpiryAfterLastRenewal(t *testing.T) {
	st := memory.New()
	ctx := context.Background()
	c := clock.NewFake(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
	a, b := New(st, c, 30*time.Second, nil), New(st, c, 30*time.Second, nil)
	if a.Node() == b.Node() || a.Interval() != 10*time.Second {
		t.Fatalf("nodes %d %d, interval %v", a.Node(), b.Node(), a.Interval())
	}
	if alive(t, b, a.Node()) {
		t.Fatal("a node that never renewed is alive")
	}
	if !alive(t, b, 0) || !alive(t, b, b.Node()) {
		t.Fatal("node 0 or the judge itself is dead")
	}
	if err := a.Renew(ctx); err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		advance time.Duration
		renew   bool
		alive   bool
	}{
		{29 * time.Second, false, true},
		{0, true, true}, // renewed at +29 s: alive until +59 s
		{29 * time.Second, false, true},
		{time.Second, false, false},
	}
	for i, s := range steps {
		c.Advance(s.advance)
		if s.renew {
			if err := a.Renew(ctx); err != nil {
				t.Fatal(err)
			}
		}
		if got := alive(t, b, a.Node()); got != s.alive {
			t.Fatalf("step %d: alive %v, want %v", i, got, s.alive)
		}
	}
}

// Renewals delete the records of nodes dead for longer than the expiry,
// and a node that stops cleanly is dead at once.
func TestCleanupAndRetire(t *testing.T) {
	st := memory.New()
	ctx := context.Background()
	c := clock.NewFake(time.Now())
	dead, live := New(st, c, time.Minute, nil), New(st, c, time.Minute, nil)
	if err := dead.Renew(ctx); err != nil {
		t.Fatal(err)
	}
	c.Advance(3 * time.Minute)
	if err := live.Renew(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := get(st, dead.Node()); err != store.ErrNotFound {
		t.Fatalf("the long-dead record is still there: %v", err)
	}
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { live.Run(runCtx); close(done) }()
	stop()
	<-done
	if alive(t, dead, live.Node()) {
		t.Fatal("a node that stopped is still alive")
	}
}

func get(st store.Store, node uint64) ([]byte, error) {
	var v []byte
	err := st.View(context.Background(), func(tx store.Tx) error {
		var err error
		v, err = tx.Get(recordKey(node))
		return err
	})
	return v, err
}
