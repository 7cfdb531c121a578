package postgres

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/lazuli-storage/lazuli/internal/engine/store"
)

func errorWithCode(code string) error { return &pgconn.PgError{Code: code} }

// A View keeps its snapshot while an Update commits on another handle.
func TestViewSnapshot(t *testing.T) {
	s, schema := openTest(t)
	other := openAt(t, schema)
	put(t, s, "a", "1", "b", "1")
	err := s.View(context.Background(), func(tx store.Tx) error {
		if _, err := tx.Get([]byte("a")); err != nil {
			return err
		}
		put(t, other, "a", "2", "b", "2", "c", "2")
		for _, k := range []string{"a", "b"} {
			v, err := tx.Get([]byte(k))
			if err != nil || string(v) != "1" {
				t.Errorf("View saw %s=%q (%v) after a later commit", k, v, err)
			}
		}
		n := 0
		err := tx.Scan(nil, nil, store.ScanOptions{}, func(_, _ []byte) bool { n++; return true })
		if n != 2 {
			t.Errorf("View's Scan saw %d records, want the 2 of its snapshot", n)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := get(t, s, "c"); string(v) != "2" {
		t.Fatalf("a View after the commit does not see it: c=%q", v)
	}
}

// conflict runs fn's first attempt paused after it read "k", while another
// handle commits a write to "k"; fn's write then conflicts.
func conflict(t *testing.T, fn func(tx store.Tx, first bool) error) int {
	t.Helper()
	s, schema := openTest(t)
	other := openAt(t, schema)
	put(t, s, "k", "0")
	runs := 0
	err := s.Update(context.Background(), func(tx store.Tx) error {
		runs++
		if _, err := tx.Get([]byte("k")); err != nil {
			return err
		}
		if runs == 1 {
			put(t, other, "k", "other")
		}
		return fn(tx, runs == 1)
	})
	if err != nil {
		t.Fatalf("Update: %v", err)
	}
	if v, _ := get(t, s, "k"); string(v) != "mine" {
		t.Fatalf("k = %q after the retried Update, want mine", v)
	}
	return runs
}

// The Put waits in the Tx and meets the conflict when it is sent, before
// COMMIT, after the closure returned.
func TestConflictIsRetried(t *testing.T) {
	runs := conflict(t, func(tx store.Tx, _ bool) error {
		return tx.Put([]byte("k"), []byte("mine"))
	})
	if runs != 2 {
		t.Fatalf("closure ran %d times, want 2", runs)
	}
}

// A closure that replaces the serialization failure by an error of its own
// is retried all the same: the Tx remembers the cause.
func TestHiddenConflictIsRetried(t *testing.T) {
	runs := conflict(t, func(tx store.Tx, first bool) error {
		if err := putAndSend(tx, "k", "mine"); err != nil {
			if !first {
				return err
			}
			if !isRetryable(err) {
				t.Errorf("first write failed with %v, want a serialization failure", err)
			}
			return errors.New("storage is busy")
		}
		return nil
	})
	if runs != 2 {
		t.Fatalf("closure ran %d times, want 2", runs)
	}
}

func TestRetryStopsWithContext(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	calls := 0
	conflictErr := errorWithCode(serializationFailure)
	err := updateRetry.run(ctx, func() error { calls++; return conflictErr })
	if !errors.Is(err, context.DeadlineExceeded) || calls == 0 {
		t.Fatalf("retry = %v after %d calls, want the deadline", err, calls)
	}
	if calls >= updateRetry.attempts {
		t.Fatalf("retry kept going (%d calls) past its context", calls)
	}
}

func TestRetryIsBounded(t *testing.T) {
	fast := retryPolicy{attempts: 5, base: time.Microsecond, max: 10 * time.Microsecond}
	calls := 0
	err := fast.run(context.Background(), func() error { calls++; return errorWithCode(deadlockDetected) })
	if calls != fast.attempts || !isRetryable(err) {
		t.Fatalf("retry = %v after %d calls, want the conflict after %d", err, calls, fast.attempts)
	}
	calls = 0
	other := errorWithCode("23505")
	if err := fast.run(context.Background(), func() error { calls++; return other }); err != other || calls != 1 {
		t.Fatalf("non-retryable error: got %v after %d calls", err, calls)
	}
}

func TestBackoffRange(t *testing.T) {
	p := updateRetry
	for n := range 40 {
		d := p.backoff(n)
		want := min(p.base<<min(n, 30), p.max)
		if d < want/2 || d >= want {
			t.Fatalf("backoff(%d) = %v, want in [%v, %v)", n, d, want/2, want)
		}
	}
}

func TestCloseWaitsAndRejects(t *testing.T) {
	s, _ := openTest(t)
	entered, release := make(chan struct{}), make(chan struct{})
	var updateErr error
	var wg sync.WaitGroup
	wg.Go(func() {
		updateErr = s.Update(context.Background(), func(tx store.Tx) error {
			close(entered)
			<-release
			return tx.Put([]byte("k"), []byte("v"))
		})
	})
	<-entered
	closed := make(chan struct{})
	go func() { s.Close(); close(closed) }()
	select {
	case <-closed:
		t.Fatal("Close returned while an Update was running")
	case <-time.After(100 * time.Millisecond):
	}
	close(release)
	wg.Wait()
	<-closed
	if updateErr != nil {
		t.Fatalf("in-flight Update: %v", updateErr)
	}
	if err := s.View(context.Background(), func(store.Tx) error { return nil }); !errors.Is(err, store.ErrClosed) {
		t.Fatalf("View after Close: %v", err)
	}
	if err := s.Update(context.Background(), func(store.Tx) error { return nil }); !errors.Is(err, store.ErrClosed) {
		t.Fatalf("Update after Close: %v", err)
	}
	if err := s.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
}

// A closure that ignores the serialization failure and returns nil must
// neither be reported as committed nor fail: the conflict is retried.
func TestIgnoredConflictIsRetried(t *testing.T) {
	runs := conflict(t, func(tx store.Tx, first bool) error {
		err := putAndSend(tx, "k", "mine")
		if first {
			return nil
		}
		return err
	})
	if runs != 2 {
		t.Fatalf("closure ran %d times, want 2", runs)
	}
}

// putAndSend writes key and has the Tx send the write at once: a Scan reads
// the database, so the writes waiting in the Tx are sent before it, and the
// conflict they meet is the Scan's error.
func putAndSend(tx store.Tx, key, value string) error {
	if err := tx.Put([]byte(key), []byte(value)); err != nil {
		return err
	}
	return tx.Scan([]byte(key), nil, store.ScanOptions{Limit: 1}, func(_, _ []byte) bool { return true })
}
