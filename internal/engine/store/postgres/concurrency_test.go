package postgres

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lazuli-storage/lazuli/internal/engine/store"
)

// 16 goroutines increment 2 counters by compare-and-swap (read, add one,
// write) through two handles, as two nodes would. Serializable transactions
// plus retries must make every increment count exactly once.
func TestConcurrentIncrementsAcrossHandles(t *testing.T) {
	s, schema := openTest(t)
	handles := []*Store{s, openAt(t, schema)}
	keys := [][]byte{[]byte("counter-a"), []byte("counter-b")}
	const workers, perWorker = 16, 50
	runs := updateConcurrently(t, context.Background(), handles, workers, perWorker, func(w int, tx store.Tx) error {
		return increment(tx, keys[(w/2)%2])
	})
	t.Logf("%d closure runs for %d increments", runs, workers*perWorker)
	for _, k := range keys {
		var n uint64
		err := handles[1].View(context.Background(), func(tx store.Tx) error {
			v, err := tx.Get(k)
			if err == nil {
				n = binary.BigEndian.Uint64(v)
			}
			return err
		})
		if err != nil || n != workers/2*perWorker {
			t.Fatalf("%s = %d (%v), want %d", k, n, err, workers/2*perWorker)
		}
	}
}

// updateConcurrently runs perWorker Updates of fn under ctx in each of
// workers goroutines, worker w on handles[w%len(handles)], and returns how
// many times the closures ran, retries included.
func updateConcurrently(t *testing.T, ctx context.Context, handles []*Store, workers, perWorker int, fn func(w int, tx store.Tx) error) int64 {
	t.Helper()
	var runs atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for w := range workers {
		wg.Go(func() {
			for range perWorker {
				if err := handles[w%len(handles)].Update(ctx, func(tx store.Tx) error {
					runs.Add(1)
					return fn(w, tx)
				}); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatalf("Update: %v", err)
	}
	return runs.Load()
}

// increment adds one to the counter at k, creating it at 1.
func increment(tx store.Tx, k []byte) error {
	var n uint64
	v, err := tx.Get(k)
	switch {
	case err == nil:
		n = binary.BigEndian.Uint64(v)
	case !errors.Is(err, store.ErrNotFound):
		return err
	}
	return tx.Put(k, binary.BigEndian.AppendUint64(nil, n+1))
}

// 16 goroutines on two handles each move the head of one queue-shaped range
// to its tail, the shape of consumers taking a queue's first visible message:
// run concurrently every such Update conflicts with every other, so all but
// one of each round would be retried. Run in turn, no closure runs twice.
func TestUpdatesInTurnNeverConflict(t *testing.T) {
	s, schema := openTest(t)
	handles := []*Store{s, openAt(t, schema)}
	const workers, perWorker, queued = 16, 25, 8
	ctx := context.Background()
	err := s.Update(ctx, func(tx store.Tx) error {
		for i := range queued {
			if err := tx.Put(queueKey(uint64(i)), nil); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	turn := store.InTurn(ctx, []byte("queue"))
	runs := updateConcurrently(t, turn, handles, workers, perWorker, func(_ int, tx store.Tx) error {
		return moveHeadToTail(tx)
	})
	if got, want := runs, int64(workers*perWorker); got != want {
		t.Fatalf("%d closure runs for %d Updates in turn; want no retry", got, want)
	}
}

// queueKey is the key of the queue-shaped range at position n.
func queueKey(n uint64) []byte { return binary.BigEndian.AppendUint64([]byte("q/"), n) }

// moveHeadToTail moves the first record of the range to the position after
// its last.
func moveHeadToTail(tx store.Tx) error {
	var head, tail []byte
	err := tx.Scan([]byte("q/"), []byte("q0"), store.ScanOptions{Limit: 1}, func(k, _ []byte) bool {
		head = bytes.Clone(k)
		return false
	})
	if err == nil {
		err = tx.Scan([]byte("q/"), []byte("q0"), store.ScanOptions{Limit: 1, Reverse: true}, func(k, _ []byte) bool {
			tail = bytes.Clone(k)
			return false
		})
	}
	if err != nil {
		return err
	}
	if head == nil {
		return errors.New("queue range is empty")
	}
	if err := tx.Delete(head); err != nil {
		return err
	}
	return tx.Put(queueKey(binary.BigEndian.Uint64(tail[2:])+1), nil)
}

// An Update whose context ends while another node holds its turn gives up
// with the context's error and leaves the turn free: the connection that
// waited for the advisory lock is dropped rather than pooled, so no session
// keeps a lock nobody will release.
func TestUpdateInTurnGivesUpWithItsContext(t *testing.T) {
	s, schema := openTest(t)
	other := openAt(t, schema)
	turn := store.InTurn(context.Background(), []byte("queue"))
	holding, release := make(chan struct{}), make(chan struct{})
	held := make(chan error, 1)
	go func() {
		held <- s.Update(turn, func(store.Tx) error {
			close(holding)
			<-release
			return nil
		})
	}()
	<-holding
	ctx, cancel := context.WithTimeout(turn, 200*time.Millisecond)
	defer cancel()
	err := other.Update(ctx, func(store.Tx) error { return nil })
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Update waiting for a held turn = %v, want the context's deadline", err)
	}
	close(release)
	if err := <-held; err != nil {
		t.Fatal(err)
	}
	for _, h := range []*Store{other, s, other} {
		done, cancel := context.WithTimeout(turn, 10*time.Second)
		err := h.Update(done, func(store.Tx) error { return nil })
		cancel()
		if err != nil {
			t.Fatalf("Update after the turn was given up: %v", err)
		}
	}
}
