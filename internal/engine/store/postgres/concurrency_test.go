package postgres

import (
	"context"
	"encoding/binary"
	"errors"
	"sync"
	"sync/atomic"
	"testing"

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
	var runs atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for w := range workers {
		wg.Go(func() {
			h, k := handles[w%2], keys[(w/2)%2]
			for range perWorker {
				if err := h.Update(context.Background(), func(tx store.Tx) error {
					runs.Add(1)
					return increment(tx, k)
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
	t.Logf("%d closure runs for %d increments", runs.Load(), workers*perWorker)
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
