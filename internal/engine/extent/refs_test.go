package extent_test

import (
	"context"
	"errors"
	"math"
	"slices"
	"testing"
	"time"

	"github.com/lazuli-storage/lazuli/internal/engine/extent"
	"github.com/lazuli-storage/lazuli/internal/engine/store"
)

var epoch = time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)

func update(t testing.TB, s store.Store, fn func(store.Tx) error) error {
	t.Helper()
	return s.Update(context.Background(), fn)
}

func mustUpdate(t testing.TB, s store.Store, fn func(store.Tx) error) {
	t.Helper()
	if err := update(t, s, fn); err != nil {
		t.Fatalf("Update: %v", err)
	}
}

func refCount(t testing.TB, s store.Store, id string) uint64 {
	t.Helper()
	var n uint64
	err := s.View(context.Background(), func(tx store.Tx) error {
		var err error
		n, err = extent.RefCount(tx, id)
		return err
	})
	if err != nil {
		t.Fatalf("RefCount(%s): %v", id, err)
	}
	return n
}

// queued returns the IDs in the collection queue in scan order, and the
// number of reverse-lookup records, which must always match it.
func queued(t testing.TB, s store.Store) (ids []string, lookups int) {
	t.Helper()
	space := store.NewKey(store.SpaceExtentGC)
	markers := store.NewKey(store.SpaceExtentGC).Uint(math.MaxUint64)
	err := s.View(context.Background(), func(tx store.Tx) error {
		err := tx.Scan(space, markers, store.ScanOptions{}, func(k, _ []byte) bool {
			r := store.ReadKey(k, store.SpaceExtentGC)
			r.Uint()
			ids = append(ids, r.Str())
			return r.Err() == nil
		})
		if err != nil {
			return err
		}
		return tx.Scan(markers, store.PrefixEnd(space), store.ScanOptions{}, func(_, _ []byte) bool {
			lookups++
			return true
		})
	})
	if err != nil {
		t.Fatalf("scan collection queue: %v", err)
	}
	return ids, lookups
}

// forEachStore runs fn as a subtest on a fresh instance of each test store.
func forEachStore(t *testing.T, name string, fn func(t *testing.T, s store.Store)) {
	for _, st := range testStores {
		label := st.name
		if name != "" {
			label += "/" + name
		}
		t.Run(label, func(t *testing.T) {
			s := st.open()
			t.Cleanup(func() { s.Close() })
			fn(t, s)
		})
	}
}

func TestRefUnrefCounts(t *testing.T) {
	type step struct {
		unref   bool
		id      string
		wantErr error
	}
	ref := func(id string) step { return step{id: id} }
	unref := func(id string) step { return step{unref: true, id: id} }
	tests := []struct {
		name       string
		steps      []step
		wantCounts map[string]uint64
		wantQueued []string
	}{
		{"one reference", []step{ref("a")}, map[string]uint64{"a": 1}, nil},
		{"three references", []step{ref("a"), ref("a"), ref("a")}, map[string]uint64{"a": 3}, nil},
		{"some dropped", []step{ref("a"), ref("a"), ref("a"), unref("a")}, map[string]uint64{"a": 2}, nil},
		{"all dropped", []step{ref("a"), ref("a"), unref("a"), unref("a")}, map[string]uint64{"a": 0}, []string{"a"}},
		{"independent extents", []step{ref("a"), ref("b"), ref("b"), unref("a")},
			map[string]uint64{"a": 0, "b": 2}, []string{"a"}},
		{"re-referenced after free", []step{ref("a"), unref("a"), ref("a")}, map[string]uint64{"a": 1}, nil},
		{"never referenced", []step{{unref: true, id: "a", wantErr: extent.ErrNotReferenced}},
			map[string]uint64{"a": 0}, nil},
		{"one unref too many", []step{ref("a"), unref("a"), {unref: true, id: "a", wantErr: extent.ErrNotReferenced}},
			map[string]uint64{"a": 0}, []string{"a"}},
		{"id with a NUL byte", []step{ref("x\x00y"), unref("x\x00y")}, map[string]uint64{"x\x00y": 0}, []string{"x\x00y"}},
	}
	for _, tc := range tests {
		forEachStore(t, tc.name, func(t *testing.T, s store.Store) {
			for i, st := range tc.steps {
				err := update(t, s, func(tx store.Tx) error {
					if st.unref {
						return extent.Unref(tx, st.id, epoch.Add(time.Duration(i)*time.Second))
					}
					return extent.Ref(tx, st.id)
				})
				if !errors.Is(err, st.wantErr) {
					t.Fatalf("step %d: err = %v, want %v", i, err, st.wantErr)
				}
			}
			for id, want := range tc.wantCounts {
				if got := refCount(t, s, id); got != want {
					t.Errorf("RefCount(%q) = %d, want %d", id, got, want)
				}
			}
			ids, lookups := queued(t, s)
			if !slices.Equal(ids, tc.wantQueued) || lookups != len(ids) {
				t.Errorf("queue = %q with %d lookups, want %q with as many", ids, lookups, tc.wantQueued)
			}
		})
	}
}

func TestQueueIsInOrderFreed(t *testing.T) {
	forEachStore(t, "", func(t *testing.T, s store.Store) {
		frees := []struct {
			id string
			at time.Duration
		}{{"zz", 3 * time.Second}, {"aa", 1 * time.Second}, {"mm", 2 * time.Second}, {"before-1970", -epoch.Sub(time.Unix(0, 0)) - time.Hour}}
		for _, f := range frees {
			mustUpdate(t, s, func(tx store.Tx) error {
				if err := extent.Ref(tx, f.id); err != nil {
					return err
				}
				return extent.Unref(tx, f.id, epoch.Add(f.at))
			})
		}
		ids, lookups := queued(t, s)
		want := []string{"before-1970", "aa", "mm", "zz"}
		if !slices.Equal(ids, want) || lookups != len(want) {
			t.Fatalf("queue = %q with %d lookups, want %q with as many", ids, lookups, want)
		}
	})
}

func TestRefWithdrawsOnlyItsOwnEntry(t *testing.T) {
	forEachStore(t, "", func(t *testing.T, s store.Store) {
		for _, id := range []string{"a", "b"} {
			mustUpdate(t, s, func(tx store.Tx) error {
				if err := extent.Ref(tx, id); err != nil {
					return err
				}
				return extent.Unref(tx, id, epoch)
			})
		}
		mustUpdate(t, s, func(tx store.Tx) error { return extent.Ref(tx, "a") })
		if ids, lookups := queued(t, s); !slices.Equal(ids, []string{"b"}) || lookups != 1 {
			t.Fatalf("queue after re-referencing a = %q with %d lookups, want [b] with 1", ids, lookups)
		}
	})
}

func TestMalformedCountIsAnError(t *testing.T) {
	forEachStore(t, "", func(t *testing.T, s store.Store) {
		key := store.NewKey(store.SpaceExtentRef).Str("a")
		for _, v := range [][]byte{{}, {9, 1}, {1}, {1, 0}} {
			mustUpdate(t, s, func(tx store.Tx) error { return tx.Put(key, v) })
			err := update(t, s, func(tx store.Tx) error { return extent.Ref(tx, "a") })
			if !errors.Is(err, extent.ErrBadRecord) {
				t.Errorf("Ref over value %v = %v, want ErrBadRecord", v, err)
			}
		}
	})
}
