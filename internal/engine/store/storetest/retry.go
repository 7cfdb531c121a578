package storetest

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/lazuli-storage/lazuli/internal/engine/store"
)

// Retry test parameters.
const (
	retryContenders = 4
	retryUpdates    = 3 // per contender
	// retryMeetWait bounds how long a closure waits for a partner to read the
	// hot key at the same time. An engine that serializes writers never runs
	// two closures at once, so there every first attempt waits this long.
	retryMeetWait = 15 * time.Millisecond
)

// testRetry forces contention: every Update reads a hot counter, then on its
// first attempt waits for a second closure to read it too before both write
// it. An engine that runs writers concurrently must make one of the pair
// conflict and run its closure again; one that serializes writers simply
// runs them one after the other. Either way the suite checks the outcome an
// engine that retries correctly must produce:
//
//   - the counter equals the number of Updates (a retry re-read the counter
//     instead of writing a stale value, and no Update was lost or doubled);
//   - each Update left exactly one attempt marker, the one written by its
//     last invocation (the writes of abandoned attempts were discarded);
//   - for an engine with ConflictRetries, some closure ran more than once.
func testRetry(t *testing.T, e Engine) {
	s := openFresh(t, e)
	hot := counterKey("retry-hot", 0)
	meet := make(chan struct{})
	attempts := make([][retryUpdates]int, retryContenders)
	var wg sync.WaitGroup
	for c := range retryContenders {
		wg.Go(func() {
			for u := range retryUpdates {
				n := &attempts[c][u]
				err := s.Update(context.Background(), func(tx store.Tx) error {
					*n++
					v, err := readInt(tx, hot)
					if err != nil {
						return err
					}
					if *n == 1 {
						rendezvous(meet)
					}
					if err := tx.Put(hot, encodeInt(v+1)); err != nil {
						return err
					}
					return tx.Put(attemptKey(c, u, *n), nil)
				})
				if err != nil {
					t.Errorf("contender %d update %d: %v", c, u, err)
				}
			}
		})
	}
	wg.Wait()

	total := 0
	view(t, s, func(tx store.Tx) error {
		got, err := readInt(tx, hot)
		if err != nil {
			return err
		}
		if got != retryContenders*retryUpdates {
			t.Errorf("hot counter = %d after %d updates", got, retryContenders*retryUpdates)
		}
		for c := range retryContenders {
			for u := range retryUpdates {
				total += attempts[c][u]
				checkAttemptMarkers(t, tx, c, u, attempts[c][u])
			}
		}
		return nil
	})
	t.Logf("%d updates, %d closure invocations", retryContenders*retryUpdates, total)
	if e.ConflictRetries && total == retryContenders*retryUpdates {
		t.Errorf("engine declares ConflictRetries but forced contention made no closure run twice")
	}
}

// rendezvous returns as soon as another closure arrives too, or after
// retryMeetWait when none does.
func rendezvous(meet chan struct{}) {
	timer := time.NewTimer(retryMeetWait)
	defer timer.Stop()
	select {
	case meet <- struct{}{}:
	case <-meet:
	case <-timer.C:
	}
}

func attemptKey(c, u, attempt int) []byte {
	return store.NewKey(store.SpaceBlob).Str("retry-attempt").Uint(uint64(c)).Uint(uint64(u)).Uint(uint64(attempt)).Bytes()
}

// checkAttemptMarkers asserts that update u of contender c left exactly one
// marker, written by its last attempt.
func checkAttemptMarkers(t *testing.T, tx store.Tx, c, u, attempts int) {
	t.Helper()
	prefix := store.NewKey(store.SpaceBlob).Str("retry-attempt").Uint(uint64(c)).Uint(uint64(u)).Bytes()
	var markers []uint64
	err := tx.Scan(prefix, store.PrefixEnd(prefix), store.ScanOptions{}, func(k, _ []byte) bool {
		r := store.ReadKey(k, store.SpaceBlob)
		r.Str()
		r.Uint()
		r.Uint()
		markers = append(markers, r.Uint())
		return r.Err() == nil
	})
	if err != nil {
		t.Fatalf("scan markers: %v", err)
	}
	if attempts < 1 || len(markers) != 1 || markers[0] != uint64(attempts) {
		t.Errorf("contender %d update %d: closure ran %d times, markers left %v; want only the last attempt's",
			c, u, attempts, markers)
	}
}
