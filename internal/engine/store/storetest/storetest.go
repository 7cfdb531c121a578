// Package storetest is the conformance suite every store engine passes.
// An engine's test file calls Run once with an Engine describing how to open
// it; the suite checks the guarantees documented in package store: no lost
// update under concurrent compare-and-swap, snapshot stability during writes,
// scan order, bounds and limits, retry of conflicting closures, and (for
// persistent engines) durability of acknowledged writes across a SIGKILL.
package storetest

import (
	"context"
	"encoding/binary"
	"errors"
	"testing"

	"github.com/lazuli-storage/lazuli/internal/engine/store"
)

// Engine tells the suite how to open an engine under test.
type Engine struct {
	// Name labels subtests.
	Name string
	// NewLocation returns a fresh, empty location: a directory for file
	// engines, a database URL or schema for postgres, "" for memory.
	NewLocation func(t testing.TB) string
	// Open opens a handle on the data at location. For a Shared engine,
	// opening one location twice yields two handles on the same data, as two
	// server nodes would have.
	Open func(t testing.TB, location string) (store.Store, error)
	// Persistent engines keep data across Close and reopen, and across a
	// SIGKILL of the process: the restart and kill tests run only for them.
	Persistent bool
	// Shared engines support several handles on one location at once: the
	// two-handle race test runs only for them.
	Shared bool
	// ConflictRetries is set for engines that run write transactions
	// concurrently and retry a closure that conflicts (postgres). The retry
	// test then also requires that contention it forces made the engine run
	// some closure more than once. Engines that serialize writers (memory,
	// sqlite) never conflict and leave it false.
	ConflictRetries bool
}

// Run runs the whole suite against e. Called from a child process started by
// the kill test, it runs that test's writer instead (see killtest.go).
func Run(t *testing.T, e Engine) {
	if runKillChildIfAsked(t, e) {
		return
	}
	t.Run(e.Name, func(t *testing.T) {
		t.Run("Basic", func(t *testing.T) { runBasic(t, e) })
		t.Run("Scan", func(t *testing.T) { runScan(t, e) })
		t.Run("LostUpdate", func(t *testing.T) { testLostUpdate(t, e) })
		t.Run("Snapshot", func(t *testing.T) { testSnapshot(t, e) })
		t.Run("Retry", func(t *testing.T) { testRetry(t, e) })
		t.Run("Persistent", func(t *testing.T) {
			if !e.Persistent {
				t.Skip("engine is not persistent")
			}
			t.Run("Reopen", func(t *testing.T) { testReopen(t, e) })
			t.Run("SurvivesKill", func(t *testing.T) { testSurvivesKill(t, e) })
		})
		t.Run("Shared", func(t *testing.T) {
			if !e.Shared {
				t.Skip("engine is not shared")
			}
			testTwoHandles(t, e)
		})
	})
}

// openAt opens a handle on location and closes it when the test ends.
func openAt(t testing.TB, e Engine, location string) store.Store {
	t.Helper()
	s, err := e.Open(t, location)
	if err != nil {
		t.Fatalf("open %s at %q: %v", e.Name, location, err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil && !errors.Is(err, store.ErrClosed) {
			t.Errorf("close: %v", err)
		}
	})
	return s
}

// openFresh opens a handle on a new, empty location.
func openFresh(t testing.TB, e Engine) store.Store {
	t.Helper()
	return openAt(t, e, e.NewLocation(t))
}

// update runs an Update that must succeed.
func update(t testing.TB, s store.Store, fn func(store.Tx) error) {
	t.Helper()
	if err := s.Update(context.Background(), fn); err != nil {
		t.Fatalf("update: %v", err)
	}
}

// view runs a View that must succeed.
func view(t testing.TB, s store.Store, fn func(store.Tx) error) {
	t.Helper()
	if err := s.View(context.Background(), fn); err != nil {
		t.Fatalf("view: %v", err)
	}
}

// putAll writes every pair of kv in one Update.
func putAll(t testing.TB, s store.Store, kv map[string]string) {
	t.Helper()
	update(t, s, func(tx store.Tx) error {
		for k, v := range kv {
			if err := tx.Put([]byte(k), []byte(v)); err != nil {
				return err
			}
		}
		return nil
	})
}

// record is one key/value pair met by a Scan, copied out of the transaction.
type record struct {
	key, value string
}

// collect returns the records Scan visits, copied.
func collect(tx store.Tx, start, end []byte, opts store.ScanOptions) ([]record, error) {
	var out []record
	err := tx.Scan(start, end, opts, func(k, v []byte) bool {
		out = append(out, record{string(k), string(v)})
		return true
	})
	return out, err
}

// encodeInt and decodeInt store signed counters as 8 big-endian bytes.
func encodeInt(n int64) []byte { return binary.BigEndian.AppendUint64(nil, uint64(n)) }

func decodeInt(b []byte) (int64, error) {
	if len(b) != 8 {
		return 0, errors.New("storetest: counter value is not 8 bytes")
	}
	return int64(binary.BigEndian.Uint64(b)), nil
}

// readInt returns the counter at key, 0 if absent.
func readInt(tx store.Tx, key []byte) (int64, error) {
	b, err := tx.Get(key)
	if errors.Is(err, store.ErrNotFound) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	return decodeInt(b)
}

// addInt adds delta to the counter at key.
func addInt(tx store.Tx, key []byte, delta int64) error {
	n, err := readInt(tx, key)
	if err != nil {
		return err
	}
	return tx.Put(key, encodeInt(n+delta))
}
