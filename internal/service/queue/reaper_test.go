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

// boundedStore records the most records any one read-write transaction
// touched (reads, writes and deletes), to check that none holds the writer
// for work proportional to a backlog. Read-only snapshots are not counted:
// they hold no lock.
type boundedStore struct {
	store.Store
	most atomic.Int64
}

func (b *boundedStore) Update(ctx context.Context, fn func(store.Tx) error) error {
	var n atomic.Int64
	err := b.Store.Update(ctx, func(tx store.Tx) error {
		n.Store(0)
		return fn(touchingTx{tx, &n})
	})
	b.record(n.Load())
	return err
}

func (b *boundedStore) record(n int64) {
	for {
		m := b.most.Load()
		if n <= m || b.most.CompareAndSwap(m, n) {
			return
		}
	}
}

type touchingTx struct {
	store.Tx
	n *atomic.Int64
}

func (t touchingTx) Get(k []byte) ([]byte, error) { t.n.Add(1); return t.Tx.Get(k) }
func (t touchingTx) Put(k, v []byte) error        { t.n.Add(1); return t.Tx.Put(k, v) }
func (t touchingTx) Delete(k []byte) error        { t.n.Add(1); return t.Tx.Delete(k) }
func (t touchingTx) Scan(start, end []byte, opts store.ScanOptions, fn func(k, v []byte) bool) error {
	return t.Tx.Scan(start, end, opts, func(k, v []byte) bool { t.n.Add(1); return fn(k, v) })
}

// TestExpiredBacklogIsReapedInBounds expires 100,000 messages at once. A
// Get that meets them deletes at most expiredBound, still delivers the
// live message behind them, and asks the reaper; the reaper clears the rest
// one bounded transaction at a time; no read-write transaction touches more
// than its bound. Before, the first Get collected every expired key and
// deleted them all in one transaction, stalling every service behind the
// single SQLite writer for seconds.
func TestExpiredBacklogIsReapedInBounds(t *testing.T) {
	const backlog = 100_000
	bs := &boundedStore{Store: memory.New()}
	fake := clock.NewFake(time.Now())
	s, err := New(server.Deps{Store: bs, Clock: fake})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	_ = bs.Store.Update(ctx, func(tx store.Tx) error { return tx.Put(queueKey("a", "q"), queueRecord{}.encode()) })
	prefix := msgPrefix("a", "q")
	now := nanos(fake.Now())
	for start := 0; start < backlog; start += 5000 {
		err := bs.Store.Update(ctx, func(tx store.Tx) error {
			for i := start; i < start+5000; i++ {
				m := message{VisibleAt: now, Seq: uint64(i), Inserted: now, Expires: now + uint64(time.Second)}
				m.ID[0], m.ID[1], m.ID[2] = byte(i>>16), byte(i>>8), byte(i)
				if err := tx.Put(msgKey(prefix, m.VisibleAt, m.Seq, &m.ID), encodeValue(&m)); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	fake.Advance(2 * time.Second)
	if _, err := s.enqueue(ctx, "a", "q", []byte("fresh"), putParams{TTL: time.Hour}); err != nil {
		t.Fatal(err)
	}

	bs.most.Store(0)
	got, err := s.dequeue(ctx, "a", "q", 1, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || string(got[0].Text) != "fresh" {
		t.Fatalf("got %d messages from behind the backlog in the first call, want the fresh one", len(got))
	}
	if most := bs.most.Load(); most > 2*expiredBound+2 {
		t.Fatalf("a Get touched %d records in one transaction, bound %d", most, 2*expiredBound+2)
	}
	select {
	case q := <-s.reaper.requests:
		if q != (queueRef{"a", "q"}) {
			t.Fatalf("reap requested for %+v", q)
		}
	default:
		t.Fatal("the Get did not ask the reaper to clear the backlog")
	}

	bs.most.Store(0)
	n, err := s.ReapQueue(ctx, "a", "q")
	if err != nil {
		t.Fatal(err)
	}
	if n != backlog-expiredBound {
		t.Fatalf("reaped %d, want %d", n, backlog-expiredBound)
	}
	if most := bs.most.Load(); most > reapScanBound+expiredBound {
		t.Fatalf("a reaper transaction touched %d records, bound %d", most, reapScanBound+expiredBound)
	}
	fake.Advance(time.Minute)
	got, err = s.dequeue(ctx, "a", "q", 1, time.Minute)
	if err != nil || len(got) != 1 || string(got[0].Text) != "fresh" || got[0].Dequeues != 2 {
		t.Fatalf("after reaping: %+v %v", got, err)
	}
}

// TestSweepReapsEveryQueue: the periodic sweep finds expired messages in
// queues nobody reads.
func TestSweepReapsEveryQueue(t *testing.T) {
	fake := clock.NewFake(time.Now())
	st := memory.New()
	s, _ := New(server.Deps{Store: st, Clock: fake})
	ctx := context.Background()
	for _, q := range []string{"one", "two"} {
		_ = st.Update(ctx, func(tx store.Tx) error { return tx.Put(queueKey("acct", q), queueRecord{}.encode()) })
		for i := 0; i < 300; i++ {
			if _, err := s.enqueue(ctx, "acct", q, []byte("m"), putParams{TTL: time.Second}); err != nil {
				t.Fatal(err)
			}
		}
	}
	fake.Advance(2 * time.Second)
	n, err := s.Sweep(ctx)
	if err != nil || n != 600 {
		t.Fatalf("sweep reaped %d, %v; want 600", n, err)
	}
}
