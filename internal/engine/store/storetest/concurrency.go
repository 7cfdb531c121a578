package storetest

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lazuli-storage/lazuli/internal/engine/store"
)

func counterKey(name string, i int) []byte {
	return store.NewKey(store.SpaceBlob).Str(name).Uint(uint64(i)).Bytes()
}

// testLostUpdate has 16 goroutines increment a few shared counters with
// read-modify-write Updates. Any lost update shows as a short count.
func testLostUpdate(t *testing.T, e Engine) {
	s := openFresh(t, e)
	const goroutines, increments, counters = 16, 20, 3
	var invocations atomic.Int64
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Go(func() {
			for i := range increments {
				key := counterKey("lost", (g+i)%counters)
				err := s.Update(context.Background(), func(tx store.Tx) error {
					invocations.Add(1)
					return addInt(tx, key, 1)
				})
				if err != nil {
					t.Errorf("goroutine %d increment %d: %v", g, i, err)
					return
				}
			}
		})
	}
	wg.Wait()
	want := make([]int64, counters)
	for g := range goroutines {
		for i := range increments {
			want[(g+i)%counters]++
		}
	}
	view(t, s, func(tx store.Tx) error {
		for c := range counters {
			got, err := readInt(tx, counterKey("lost", c))
			if err != nil {
				return err
			}
			if got != want[c] {
				t.Errorf("counter %d = %d after %d increments: updates were lost or doubled", c, got, want[c])
			}
		}
		return nil
	})
	t.Logf("%d updates, %d closure invocations", goroutines*increments, invocations.Load())
}

// Snapshot test parameters: accounts hold balances that writers move
// between, so their sum never changes.
const (
	snapshotAccounts = 32
	snapshotBalance  = 100
	snapshotWriters  = 4
)

// testSnapshot runs writers that move amounts between accounts (and now and
// then rotate every balance in one Update) while Views read every account,
// wait until writers have committed, and read them again. Each View must see
// the same values both times and a constant total: it neither drifts to later
// commits nor sees half of one. The wait also proves a View does not block
// writers, since it lasts until writers have made progress.
func testSnapshot(t *testing.T, e Engine) {
	s := openFresh(t, e)
	update(t, s, func(tx store.Tx) error {
		for a := range snapshotAccounts {
			if err := tx.Put(counterKey("acct", a), encodeInt(snapshotBalance)); err != nil {
				return err
			}
		}
		return nil
	})
	var committed atomic.Int64
	stop := make(chan struct{})
	var writers sync.WaitGroup
	for w := range snapshotWriters {
		writers.Go(func() { moveBalances(t, s, uint64(w), stop, &committed) })
	}
	var readers sync.WaitGroup
	for r := range 2 {
		readers.Go(func() {
			for v := range 6 {
				if err := s.View(context.Background(), func(tx store.Tx) error {
					return checkStableView(tx, &committed)
				}); err != nil {
					t.Errorf("reader %d view %d: %v", r, v, err)
					return
				}
			}
		})
	}
	readers.Wait()
	close(stop)
	writers.Wait()
	view(t, s, func(tx store.Tx) error {
		_, err := readBalances(tx)
		return err
	})
}

// moveBalances runs Updates until stop closes, counting each one that
// committed.
func moveBalances(t *testing.T, s store.Store, seed uint64, stop <-chan struct{}, committed *atomic.Int64) {
	rng := rand.New(rand.NewPCG(seed, 99))
	for n := 0; ; n++ {
		select {
		case <-stop:
			return
		default:
		}
		from, to := rng.IntN(snapshotAccounts), rng.IntN(snapshotAccounts-1)
		if to >= from {
			to++
		}
		amount := int64(rng.IntN(10) + 1)
		rotate := n%10 == 9
		err := s.Update(context.Background(), func(tx store.Tx) error {
			if rotate {
				return rotateBalances(tx)
			}
			if err := addInt(tx, counterKey("acct", from), -amount); err != nil {
				return err
			}
			return addInt(tx, counterKey("acct", to), amount)
		})
		if err != nil {
			t.Errorf("writer: %v", err)
			return
		}
		committed.Add(1)
	}
}

// rotateBalances shifts every balance one account along: a multi-key Update
// that changes every record at once.
func rotateBalances(tx store.Tx) error {
	balances, err := readBalances(tx)
	if err != nil {
		return err
	}
	for a := range balances {
		next := balances[(a+1)%len(balances)]
		if err := tx.Put(counterKey("acct", a), encodeInt(next)); err != nil {
			return err
		}
	}
	return nil
}

// readBalances reads every account with Get and checks the total.
func readBalances(tx store.Tx) ([]int64, error) {
	balances := make([]int64, snapshotAccounts)
	var total int64
	for a := range balances {
		b, err := tx.Get(counterKey("acct", a))
		if err != nil {
			return nil, fmt.Errorf("account %d: %w", a, err)
		}
		if balances[a], err = decodeInt(b); err != nil {
			return nil, err
		}
		total += balances[a]
	}
	if total != snapshotAccounts*snapshotBalance {
		return nil, fmt.Errorf("total %d, want %d: a View saw part of an Update", total, snapshotAccounts*snapshotBalance)
	}
	return balances, nil
}

// scanBalances reads every account with one Scan.
func scanBalances(tx store.Tx) ([]int64, error) {
	prefix := store.NewKey(store.SpaceBlob).Str("acct").Bytes()
	var balances []int64
	var decodeErr error
	err := tx.Scan(prefix, store.PrefixEnd(prefix), store.ScanOptions{}, func(_, v []byte) bool {
		n, err := decodeInt(v)
		balances = append(balances, n)
		decodeErr = err
		return err == nil
	})
	if err == nil {
		err = decodeErr
	}
	return balances, err
}

// checkStableView reads every balance, waits until writers have committed
// enough Updates that at least one began after the first read, and checks the
// second reading (by Get and by Scan) against the first.
func checkStableView(tx store.Tx, committed *atomic.Int64) error {
	first, err := readBalances(tx)
	if err != nil {
		return err
	}
	// Each writer may have one Update committed but not yet counted, so
	// snapshotWriters+1 more counts include an Update that started after the
	// first reading.
	target := committed.Load() + snapshotWriters + 1
	deadline := time.Now().Add(10 * time.Second)
	for committed.Load() < target {
		if time.Now().After(deadline) {
			return fmt.Errorf("writers made no progress while a View was open: does View block writers?")
		}
		time.Sleep(time.Millisecond)
	}
	second, err := readBalances(tx)
	if err != nil {
		return err
	}
	scanned, err := scanBalances(tx)
	if err != nil {
		return err
	}
	if !slices.Equal(first, second) || !slices.Equal(first, scanned) {
		return fmt.Errorf("snapshot moved during a View:\nfirst %v\nthen  %v\nscan  %v", first, second, scanned)
	}
	return nil
}
