package queue

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lazuli-storage/lazuli/internal/base/clock"
	"github.com/lazuli-storage/lazuli/internal/engine/store"
	"github.com/lazuli-storage/lazuli/internal/engine/store/memory"
	"github.com/lazuli-storage/lazuli/internal/frame/server"
)

// countingStore counts the records every transaction reads (Get and each
// record a Scan visits), to check what an operation touches.
type countingStore struct {
	store.Store
	reads atomic.Int64
}

func (c *countingStore) View(ctx context.Context, fn func(store.Tx) error) error {
	return c.Store.View(ctx, func(tx store.Tx) error { return fn(countingTx{tx, &c.reads}) })
}

func (c *countingStore) Update(ctx context.Context, fn func(store.Tx) error) error {
	return c.Store.Update(ctx, func(tx store.Tx) error { return fn(countingTx{tx, &c.reads}) })
}

type countingTx struct {
	store.Tx
	reads *atomic.Int64
}

func (t countingTx) Get(key []byte) ([]byte, error) {
	t.reads.Add(1)
	return t.Tx.Get(key)
}

func (t countingTx) Scan(start, end []byte, opts store.ScanOptions, fn func(key, value []byte) bool) error {
	return t.Tx.Scan(start, end, opts, func(k, v []byte) bool {
		t.reads.Add(1)
		return fn(k, v)
	})
}

// Get Messages on a queue of 20,000 hidden messages and a few visible ones
// reads only what it returns (plus the queue record), whatever the queue's
// length; Peek likewise.
func TestGetTouchesOnlyWhatItReturns(t *testing.T) {
	cs := &countingStore{Store: memory.New()}
	fake := clock.NewFake(time.Now())
	s, err := New(server.Deps{Store: cs, Clock: fake})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := cs.Update(ctx, func(tx store.Tx) error {
		return tx.Put(queueKey("acct", "big"), queueRecord{}.encode())
	}); err != nil {
		t.Fatal(err)
	}
	hidden := putParams{Visibility: time.Hour, TTL: 7 * 24 * time.Hour}
	for i := 0; i < 20000; i++ {
		if _, err := s.enqueue(ctx, "acct", "big", []byte("hidden"), hidden); err != nil {
			t.Fatal(err)
		}
	}
	visible := putParams{TTL: 7 * 24 * time.Hour}
	for i := 0; i < 5; i++ {
		if _, err := s.enqueue(ctx, "acct", "big", []byte("visible"), visible); err != nil {
			t.Fatal(err)
		}
	}

	cs.reads.Store(0)
	got, err := s.dequeue(ctx, "acct", "big", 3, time.Minute)
	if err != nil || len(got) != 3 {
		t.Fatalf("dequeue: %d messages, %v", len(got), err)
	}
	for _, m := range got {
		if string(m.Text) != "visible" {
			t.Fatalf("dequeued %q", m.Text)
		}
	}
	if n := cs.reads.Load(); n > 1+3 {
		t.Fatalf("Get of 3 messages read %d records", n)
	}

	cs.reads.Store(0)
	peeked, err := s.peek(ctx, "acct", "big", 32)
	if err != nil || len(peeked) != 2 {
		t.Fatalf("peek: %d messages, %v", len(peeked), err)
	}
	// The scan stops at the first hidden message: one read past the two.
	if n := cs.reads.Load(); n > 1+2+1 {
		t.Fatalf("Peek of 2 messages read %d records", n)
	}

	cs.reads.Store(0)
	got, err = s.dequeue(ctx, "acct", "big", 32, time.Minute)
	if err != nil || len(got) != 2 {
		t.Fatalf("second dequeue: %d, %v", len(got), err)
	}
	if n := cs.reads.Load(); n > 1+2+1 {
		t.Fatalf("Get of the last 2 visible messages read %d records", n)
	}
}

// Expired messages met at the head are deleted by the Get that meets them.
func TestGetPurgesExpiredHead(t *testing.T) {
	cs := &countingStore{Store: memory.New()}
	fake := clock.NewFake(time.Now())
	s, _ := New(server.Deps{Store: cs, Clock: fake})
	ctx := context.Background()
	_ = cs.Update(ctx, func(tx store.Tx) error { return tx.Put(queueKey("a", "q"), queueRecord{}.encode()) })
	for i := 0; i < 10; i++ {
		if _, err := s.enqueue(ctx, "a", "q", []byte("old"), putParams{TTL: time.Second}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.enqueue(ctx, "a", "q", []byte("new"), putParams{TTL: time.Hour}); err != nil {
		t.Fatal(err)
	}
	fake.Advance(2 * time.Second)
	got, err := s.dequeue(ctx, "a", "q", 1, time.Minute)
	if err != nil || len(got) != 1 || string(got[0].Text) != "new" {
		t.Fatalf("dequeue: %+v %v", got, err)
	}
	prefix := msgPrefix("a", "q")
	left := 0
	_ = cs.View(ctx, func(tx store.Tx) error {
		return tx.Scan(prefix, store.PrefixEnd(prefix), store.ScanOptions{}, func(_, _ []byte) bool { left++; return true })
	})
	if left != 1 {
		t.Fatalf("%d records left, want only the delivered one", left)
	}
}

// Clear Messages removes a queue larger than one batch, in batches.
func TestClearInBatches(t *testing.T) {
	cs := &countingStore{Store: memory.New()}
	s, _ := New(server.Deps{Store: cs, Clock: clock.NewFake(time.Now())})
	ctx := context.Background()
	_ = cs.Update(ctx, func(tx store.Tx) error { return tx.Put(queueKey("a", "q"), queueRecord{}.encode()) })
	for i := 0; i < 2*clearBatch+10; i++ {
		if _, err := s.enqueue(ctx, "a", "q", []byte("m"), putParams{TTL: time.Hour}); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.clearBatches(ctx, "a", "q"); err != nil {
		t.Fatal(err)
	}
	var n int
	_ = cs.View(ctx, func(tx store.Tx) error {
		var err error
		n, err = countMessages(tx, msgPrefix("a", "q"), 0)
		return err
	})
	if n != 0 {
		t.Fatalf("%d messages left", n)
	}
}
