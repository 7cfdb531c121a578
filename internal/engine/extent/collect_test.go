package extent_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lazuli-storage/lazuli/internal/base/clock"
	"github.com/lazuli-storage/lazuli/internal/engine/extent"
	"github.com/lazuli-storage/lazuli/internal/engine/extent/fs"
	"github.com/lazuli-storage/lazuli/internal/engine/extent/memory"
	"github.com/lazuli-storage/lazuli/internal/engine/store"
	storememory "github.com/lazuli-storage/lazuli/internal/engine/store/memory"
)

const (
	testGrace     = 10 * time.Minute
	testOrphanAge = time.Hour
)

// env is a collector over a memory engine and a store, on one fake clock.
type env struct {
	clock     *clock.Fake
	engine    extent.Engine
	store     *countingStore
	collector *extent.Collector
}

func newEnv(t testing.TB, st store.Store) *env {
	fake := clock.NewFake(epoch)
	e := &env{clock: fake, engine: memory.NewWithClock(fake), store: &countingStore{Store: st}}
	e.collector = &extent.Collector{
		Engine: e.engine, Store: e.store, Clock: fake,
		Grace: testGrace, OrphanAge: testOrphanAge,
	}
	t.Cleanup(func() { e.engine.Close() })
	return e
}

// countingStore counts committed Updates, to see how a sweep batches.
type countingStore struct {
	store.Store
	updates atomic.Int64
}

func (c *countingStore) Update(ctx context.Context, fn func(store.Tx) error) error {
	err := c.Store.Update(ctx, fn)
	if err == nil {
		c.updates.Add(1)
	}
	return err
}

// TestCollector runs every collector scenario on each store.
func TestCollector(t *testing.T) {
	scenarios := []struct {
		name string
		fn   func(t *testing.T, e *env)
	}{
		{"WaitsForGrace", testSweepWaitsForGrace},
		{"KeepsReferencedExtents", testSweepKeepsReferencedExtents},
		{"RemovesOnlyOldOrphans", testSweepRemovesOnlyOldOrphans},
		{"OrphanPassLeavesQueuedExtentsToGrace", testOrphanPassLeavesQueuedExtentsToGrace},
		{"WorksInBatches", testSweepWorksInBatches},
		{"FailedRemovalIsRetriedAsOrphan", testFailedRemovalIsRetriedAsOrphan},
		{"FSEngine", testSweepOnFSEngine},
		{"RunSweepsUntilCancelled", testRunSweepsUntilCancelled},
		{"ConcurrentWritersReferencesAndSweeps", testConcurrentWritersReferencesAndSweeps},
		{"StopsOnCancelledContext", testSweepStopsOnCancelledContext},
	}
	for _, st := range testStores {
		for _, sc := range scenarios {
			t.Run(st.name+"/"+sc.name, func(t *testing.T) {
				s := st.open()
				t.Cleanup(func() { s.Close() })
				sc.fn(t, newEnv(t, s))
			})
		}
	}
}

// write stores a new extent and takes refs references to it.
func (e *env) write(t testing.TB, refs int) string {
	t.Helper()
	info, err := e.engine.Write(context.Background(), bytes.NewReader([]byte("content")), -1)
	if err != nil {
		t.Fatalf("Write: %v", err)
	}
	for range refs {
		e.ref(t, info.ID)
	}
	return info.ID
}

func (e *env) ref(t testing.TB, id string) {
	t.Helper()
	mustUpdate(t, e.store, func(tx store.Tx) error { return extent.Ref(tx, id) })
}

func (e *env) unref(t testing.TB, id string) {
	t.Helper()
	now := e.clock.Now()
	mustUpdate(t, e.store, func(tx store.Tx) error { return extent.Unref(tx, id, now) })
}

func (e *env) sweep(t testing.TB, want int) {
	t.Helper()
	got, err := e.collector.Sweep(context.Background())
	if err != nil {
		t.Fatalf("Sweep: %v", err)
	}
	if got != want {
		t.Fatalf("Sweep removed %d extents, want %d", got, want)
	}
}

func (e *env) exists(t testing.TB, id string) bool {
	t.Helper()
	r, err := e.engine.Open(context.Background(), id)
	if errors.Is(err, extent.ErrNotFound) {
		return false
	}
	if err != nil {
		t.Fatalf("Open(%s): %v", id, err)
	}
	r.Close()
	return true
}

func testSweepWaitsForGrace(t *testing.T, e *env) {
	id := e.write(t, 1)
	e.unref(t, id)

	e.clock.Advance(testGrace - time.Second)
	e.sweep(t, 0)
	e.clock.Advance(time.Second) // freed exactly Grace ago: not yet older
	e.sweep(t, 0)
	if !e.exists(t, id) {
		t.Fatal("extent removed within its grace period")
	}
	e.clock.Advance(time.Nanosecond)
	e.sweep(t, 1)
	if e.exists(t, id) {
		t.Fatal("extent still there after its grace period")
	}
	if ids, lookups := queued(t, e.store); len(ids) != 0 || lookups != 0 {
		t.Fatalf("queue after sweep = %q with %d lookups, want empty", ids, lookups)
	}
}

func testSweepKeepsReferencedExtents(t *testing.T, e *env) {
	once := e.write(t, 1)
	twice := e.write(t, 2)
	e.unref(t, twice)
	reRefd := e.write(t, 1)
	e.unref(t, reRefd)
	e.ref(t, reRefd) // referenced again within its grace period

	e.clock.Advance(2 * testOrphanAge)
	e.sweep(t, 0)
	for _, id := range []string{once, twice, reRefd} {
		if !e.exists(t, id) {
			t.Errorf("referenced extent %s was removed", id)
		}
	}
}

func testSweepRemovesOnlyOldOrphans(t *testing.T, e *env) {
	old := e.write(t, 0)
	e.clock.Advance(testOrphanAge / 2)
	fresh := e.write(t, 0)
	e.clock.Advance(testOrphanAge/2 + time.Second)

	e.sweep(t, 1)
	if e.exists(t, old) {
		t.Error("orphan older than OrphanAge survived")
	}
	if !e.exists(t, fresh) {
		t.Error("fresh unreferenced extent (maybe awaiting its commit) was removed")
	}
}

func testOrphanPassLeavesQueuedExtentsToGrace(t *testing.T, e *env) {
	id := e.write(t, 1)
	e.clock.Advance(2 * testOrphanAge)
	e.unref(t, id) // old extent, just freed: a reader may be about to open it

	e.sweep(t, 0)
	if !e.exists(t, id) {
		t.Fatal("the orphan pass removed a queued extent within its grace period")
	}
	e.clock.Advance(testGrace + time.Second)
	e.sweep(t, 1)
}

func testSweepWorksInBatches(t *testing.T, e *env) {
	const n = 600
	ids := make([]string, n)
	for i := range ids {
		ids[i] = e.write(t, 0)
	}
	mustUpdate(t, e.store, func(tx store.Tx) error {
		for i, id := range ids {
			if err := extent.Ref(tx, id); err != nil {
				return err
			}
			// Distinct instants, so the queue order is the slice order.
			if err := extent.Unref(tx, id, epoch.Add(time.Duration(i))); err != nil {
				return err
			}
		}
		return nil
	})
	keep := e.write(t, 1)
	e.clock.Advance(testGrace + time.Second)

	before := e.store.updates.Load()
	e.sweep(t, n)
	if batches := e.store.updates.Load() - before; batches < 2 {
		t.Errorf("%d extents dequeued in %d Update(s), want several batches", n, batches)
	}
	if ids, _ := queued(t, e.store); len(ids) != 0 {
		t.Errorf("%d entries left in the queue", len(ids))
	}
	if !e.exists(t, keep) {
		t.Error("referenced extent removed")
	}
}

// flakyEngine fails Remove while failing is set.
type flakyEngine struct {
	extent.Engine
	mu      sync.Mutex
	failing bool
}

func (f *flakyEngine) setFailing(failing bool) {
	f.mu.Lock()
	f.failing = failing
	f.mu.Unlock()
}

func (f *flakyEngine) Remove(ctx context.Context, id string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.failing {
		return errors.New("disk on fire")
	}
	return f.Engine.Remove(ctx, id)
}

func testFailedRemovalIsRetriedAsOrphan(t *testing.T, e *env) {
	flaky := &flakyEngine{Engine: e.engine, failing: true}
	e.collector.Engine = flaky
	id := e.write(t, 1)
	e.unref(t, id)
	e.clock.Advance(testGrace + time.Second)

	removed, err := e.collector.Sweep(context.Background())
	if removed != 0 || err == nil {
		t.Fatalf("Sweep with failing removals = %d, %v; want 0 and an error", removed, err)
	}
	if ids, _ := queued(t, e.store); len(ids) != 0 {
		t.Fatalf("queue = %q, want empty (dequeued before the removal)", ids)
	}
	flaky.setFailing(false)
	e.sweep(t, 0) // not yet old enough to count as an orphan
	e.clock.Advance(testOrphanAge)
	e.sweep(t, 1)
	if e.exists(t, id) {
		t.Fatal("extent whose removal failed was never removed")
	}
}

func testSweepOnFSEngine(t *testing.T, e *env) {
	dir := t.TempDir()
	engine, err := fs.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer engine.Close()
	e.engine = engine
	e.collector.Engine = engine
	e.collector.Clock = clock.Real{}
	orphan, kept := e.write(t, 0), e.write(t, 1)
	old := time.Now().Add(-testOrphanAge - time.Minute)
	for _, id := range []string{orphan, kept} {
		path := filepath.Join(dir, id[:2], id[2:4], id)
		if err := os.Chtimes(path, old, old); err != nil {
			t.Fatal(err)
		}
	}
	e.sweep(t, 1)
	if e.exists(t, orphan) || !e.exists(t, kept) {
		t.Fatalf("after sweep: orphan exists=%v, referenced exists=%v; want false, true",
			e.exists(t, orphan), e.exists(t, kept))
	}
}

func testRunSweepsUntilCancelled(t *testing.T, e *env) {
	id := e.write(t, 1)
	e.unref(t, id)
	e.clock.Advance(testGrace + time.Second)

	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		e.collector.Run(ctx, 5*time.Millisecond)
		close(done)
	}()
	later := e.write(t, 1)
	e.unref(t, later)
	e.clock.Advance(testGrace + time.Second) // only a later sweep can see this one
	deadline := time.Now().Add(5 * time.Second)
	for e.exists(t, id) || e.exists(t, later) {
		if time.Now().After(deadline) {
			t.Fatal("Run did not remove the freed extents")
		}
		time.Sleep(5 * time.Millisecond)
	}
	cancel()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Run did not return after its context ended")
	}
}

func testConcurrentWritersReferencesAndSweeps(t *testing.T, e *env) {
	shared := e.write(t, 1)
	ctx := context.Background()
	// Each writer stores extents, references them and the shared one, and
	// frees every other one, while a sweeper runs. Helpers that call
	// t.Fatal cannot run off the test goroutine, hence the plain calls.
	writer := func() error {
		for i := range 20 {
			info, err := e.engine.Write(ctx, bytes.NewReader([]byte{byte(i)}), -1)
			if err != nil {
				return err
			}
			err = e.store.Update(ctx, func(tx store.Tx) error {
				if err := extent.Ref(tx, info.ID); err != nil {
					return err
				}
				return extent.Ref(tx, shared)
			})
			if err != nil {
				return err
			}
			now := e.clock.Now()
			err = e.store.Update(ctx, func(tx store.Tx) error {
				if i%2 == 0 {
					if err := extent.Unref(tx, info.ID, now); err != nil {
						return err
					}
				}
				return extent.Unref(tx, shared, now)
			})
			if err != nil {
				return err
			}
		}
		return nil
	}
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			if err := writer(); err != nil {
				t.Errorf("writer: %v", err)
			}
		})
	}
	wg.Go(func() {
		for range 20 {
			if _, err := e.collector.Sweep(ctx); err != nil {
				t.Errorf("Sweep: %v", err)
			}
		}
	})
	wg.Wait()
	if n := refCount(t, e.store, shared); n != 1 {
		t.Fatalf("shared extent has %d references, want 1", n)
	}
	e.clock.Advance(2 * testOrphanAge)
	e.sweep(t, 40) // the freed half; the rest, shared included, stay
	remaining := 0
	err := e.engine.List(ctx, func(string, float64) error { remaining++; return nil })
	if err != nil || remaining != 41 {
		t.Fatalf("List after final sweep = %d extents, %v; want 41", remaining, err)
	}
}

func testSweepStopsOnCancelledContext(t *testing.T, e *env) {
	e.write(t, 0)
	e.clock.Advance(2 * testOrphanAge)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := e.collector.Sweep(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("Sweep with a cancelled context = %v, want context.Canceled", err)
	}
}

func ExampleCollector() {
	fake := clock.NewFake(epoch)
	engine := memory.NewWithClock(fake)
	st := storememory.New()
	c := &extent.Collector{Engine: engine, Store: st, Clock: fake, Grace: time.Minute}

	info, _ := engine.Write(context.Background(), bytes.NewReader([]byte("v1")), -1)
	_ = st.Update(context.Background(), func(tx store.Tx) error { return extent.Ref(tx, info.ID) })
	_ = st.Update(context.Background(), func(tx store.Tx) error { return extent.Unref(tx, info.ID, fake.Now()) })

	n, _ := c.Sweep(context.Background())
	fmt.Println("within grace:", n)
	fake.Advance(2 * time.Minute)
	n, _ = c.Sweep(context.Background())
	fmt.Println("after grace:", n)
	// Output:
	// within grace: 0
	// after grace: 1
}
