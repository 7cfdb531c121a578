package sqlite

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	msqlite "modernc.org/sqlite"

	"github.com/lazuli-storage/lazuli/internal/engine/store"
)

func openTemp(t *testing.T, opts Options) *Store {
	t.Helper()
	s, err := Open(filepath.Join(t.TempDir(), "lazuli.db"), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// countCommits counts the transactions the writer connection commits.
func countCommits(t *testing.T, s *Store) *atomic.Int64 {
	var n atomic.Int64
	hook, ok := s.writer.c.raw.(interface {
		RegisterCommitHook(msqlite.CommitHookFn)
	})
	if !ok {
		t.Fatal("driver connection has no commit hook")
	}
	hook.RegisterCommitHook(func() int32 { n.Add(1); return 0 })
	return &n
}

// holdCommitter runs an Update whose closure blocks the committer until
// queued more requests are waiting behind it, so that they form one batch.
// It returns once the closure is running.
func holdCommitter(s *Store, queued int) (done <-chan error) {
	errc := make(chan error, 1)
	running := make(chan struct{})
	go func() {
		var once sync.Once
		errc <- s.Update(context.Background(), func(tx store.Tx) error {
			once.Do(func() { close(running) })
			deadline := time.Now().Add(10 * time.Second)
			for s.writer.queueLen() < queued {
				if time.Now().After(deadline) {
					return errors.New("requests never queued")
				}
				time.Sleep(time.Millisecond)
			}
			return tx.Put([]byte("\x11holder"), nil)
		})
	}()
	<-running
	return errc
}

func (w *committer) queueLen() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.queue)
}

func TestWriterSettings(t *testing.T) {
	s := openTemp(t, Options{})
	err := s.Update(context.Background(), func(tx store.Tx) error {
		c := tx.(*writeTx).c
		for pragma, want := range map[string]any{"journal_mode": "wal", "synchronous": int64(2)} {
			got, err := c.querySQL("PRAGMA " + pragma)
			if err != nil {
				return err
			}
			if got != want {
				t.Errorf("PRAGMA %s = %v, want %v", pragma, got, want)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestGroupCommitSharesOneTransaction checks that Updates queued while the
// writer is busy commit together, and that a failing or panicking closure in
// the batch affects only its own caller.
func TestGroupCommitSharesOneTransaction(t *testing.T) {
	s := openTemp(t, Options{})
	commits := countCommits(t, s)
	const writers = 8
	holder := holdCommitter(s, writers)
	refused := errors.New("refused")
	results := make([]error, writers)
	panics := make([]any, writers)
	var wg sync.WaitGroup
	for i := range writers {
		wg.Go(func() {
			defer func() { panics[i] = recover() }()
			results[i] = s.Update(context.Background(), func(tx store.Tx) error {
				if err := tx.Put(fmt.Appendf(nil, "\x11w%d", i), []byte("v")); err != nil {
					return err
				}
				switch i {
				case 2:
					return refused
				case 5:
					panic("closure 5 panics")
				}
				return nil
			})
		})
	}
	wg.Wait()
	if err := <-holder; err != nil {
		t.Fatal(err)
	}
	if got := commits.Load(); got != 2 {
		t.Errorf("%d commits for the holder and one batch of %d, want 2", got, writers)
	}
	for i := range writers {
		wantErr, wantPanic, wantKept := error(nil), any(nil), true
		switch i {
		case 2:
			wantErr, wantKept = refused, false
		case 5:
			wantPanic, wantKept = "closure 5 panics", false
		}
		if results[i] != wantErr || panics[i] != wantPanic {
			t.Errorf("writer %d: error %v, panic %v; want %v, %v", i, results[i], panics[i], wantErr, wantPanic)
		}
		checkPresent(t, s, fmt.Sprintf("\x11w%d", i), wantKept)
	}
}

func checkPresent(t *testing.T, s store.Store, key string, want bool) {
	t.Helper()
	err := s.View(context.Background(), func(tx store.Tx) error {
		_, err := tx.Get([]byte(key))
		return err
	})
	if got := err == nil; got != want || (err != nil && !errors.Is(err, store.ErrNotFound)) {
		t.Errorf("key %q present = %v (%v), want %v", key, got, err, want)
	}
}

// TestLostBatchFallsBackToSingleTransactions makes one closure end the batch
// transaction under its neighbours, as SQLite does on I/O errors, and checks
// that the other closures still commit, each run again on its own.
func TestLostBatchFallsBackToSingleTransactions(t *testing.T) {
	s := openTemp(t, Options{})
	holder := holdCommitter(s, 3)
	var runs [3]atomic.Int32
	results := make([]error, 3)
	var wg sync.WaitGroup
	for i := range 3 {
		wg.Go(func() {
			results[i] = s.Update(context.Background(), func(tx store.Tx) error {
				runs[i].Add(1)
				if i == 1 {
					return tx.(*writeTx).c.execSQL("ROLLBACK")
				}
				return tx.Put(fmt.Appendf(nil, "\x11f%d", i), []byte("v"))
			})
		})
	}
	wg.Wait()
	if err := <-holder; err != nil {
		t.Fatal(err)
	}
	if results[0] != nil || results[2] != nil || results[1] == nil {
		t.Fatalf("results %v: want only the closure that destroyed the transaction to fail", results)
	}
	// The failing closure ran in the batch and again alone; its neighbours
	// ran once or twice, depending on whether they preceded it in the batch.
	if runs[1].Load() != 2 {
		t.Errorf("the failing closure ran %d times, want twice (batch, then alone)", runs[1].Load())
	}
	checkPresent(t, s, "\x11f0", true)
	checkPresent(t, s, "\x11f2", true)
	// The writer connection is usable afterwards.
	if err := s.Update(context.Background(), func(tx store.Tx) error { return tx.Put([]byte("\x11after"), nil) }); err != nil {
		t.Fatal(err)
	}
}

// TestNestedScan scans inside a scan callback, which needs a second
// statement of the same shape while the first is still reading.
func TestNestedScan(t *testing.T) {
	s := openTemp(t, Options{})
	err := s.Update(context.Background(), func(tx store.Tx) error {
		for _, k := range []string{"\x11a", "\x11b", "\x11c"} {
			if err := tx.Put([]byte(k), []byte(k)); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	pairs := 0
	err = s.View(context.Background(), func(tx store.Tx) error {
		var inner error
		outer := tx.Scan([]byte("\x11"), []byte("\x12"), store.ScanOptions{}, func(_, _ []byte) bool {
			inner = tx.Scan([]byte("\x11"), []byte("\x12"), store.ScanOptions{}, func(_, _ []byte) bool {
				pairs++
				return true
			})
			return inner == nil
		})
		return errors.Join(outer, inner)
	})
	if err != nil || pairs != 9 {
		t.Fatalf("nested scans visited %d pairs, %v; want 9", pairs, err)
	}
}

// TestViewWaitsForAReadConnection fills a one-connection pool and checks
// that another View waits for it and gives up with its context.
func TestViewWaitsForAReadConnection(t *testing.T) {
	s := openTemp(t, Options{ReadConns: 1})
	release := make(chan struct{})
	inView := make(chan struct{})
	go s.View(context.Background(), func(store.Tx) error {
		close(inView)
		<-release
		return nil
	})
	<-inView
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if err := s.View(ctx, func(store.Tx) error { return nil }); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("View with no free connection: %v, want the context's deadline", err)
	}
	close(release)
	if err := s.View(context.Background(), func(store.Tx) error { return nil }); err != nil {
		t.Errorf("View after the connection came back: %v", err)
	}
}

func TestOpenRefusesNewerSchema(t *testing.T) {
	path := filepath.Join(t.TempDir(), "lazuli.db")
	s, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	c, err := openConn(path, Options{}.withDefaults())
	if err != nil {
		t.Fatal(err)
	}
	err = c.execSQL(fmt.Sprintf("UPDATE lazuli_meta SET value = %d WHERE name = 'schema_version'", schemaVersion+1))
	c.close()
	if err != nil {
		t.Fatal(err)
	}
	if s, err := Open(path, Options{}); err == nil {
		s.Close()
		t.Fatal("Open accepted a database with a newer schema version")
	}
}

func TestOpenRejectsUnusablePath(t *testing.T) {
	for _, path := range []string{"", filepath.Join(t.TempDir(), "x.db?mode=ro")} {
		if s, err := Open(path, Options{}); err == nil {
			s.Close()
			t.Errorf("Open(%q) succeeded", path)
		}
	}
}
