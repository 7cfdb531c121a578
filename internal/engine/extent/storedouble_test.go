package extent_test

import (
	"bytes"
	"context"
	"slices"
	"sync"

	"github.com/lazuli-storage/lazuli/internal/engine/store"
	storememory "github.com/lazuli-storage/lazuli/internal/engine/store/memory"
)

// retryingStore is a small map-backed store.Store for these tests. Every
// Update runs its closure twice and throws the first run away, as an engine
// retrying a conflict would, so a closure with side effects outside its Tx
// (removing extents, counting) shows up as a wrong result.
type retryingStore struct {
	mu   sync.Mutex
	data map[string][]byte
}

// testStores are the stores the reference and collector tests run on: the
// retrying double, and the real in-memory engine.
var testStores = []struct {
	name string
	open func() store.Store
}{
	{"retrying", func() store.Store { return newRetryingStore() }},
	{"memory", storememory.New},
}

func newRetryingStore() *retryingStore {
	return &retryingStore{data: make(map[string][]byte)}
}

func (s *retryingStore) View(ctx context.Context, fn func(store.Tx) error) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return fn(&mapTx{base: s.data, readOnly: true})
}

func (s *retryingStore) Update(ctx context.Context, fn func(store.Tx) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := fn(newMapTx(s.data)); err != nil {
		return err
	}
	tx := newMapTx(s.data)
	if err := fn(tx); err != nil {
		return err
	}
	for k, v := range tx.writes {
		if v == nil {
			delete(s.data, k)
		} else {
			s.data[k] = v
		}
	}
	return nil
}

func (s *retryingStore) Close() error { return nil }

// mapTx overlays pending writes (nil value = deleted) on the committed map.
type mapTx struct {
	base     map[string][]byte
	writes   map[string][]byte
	readOnly bool
}

func newMapTx(base map[string][]byte) *mapTx {
	return &mapTx{base: base, writes: make(map[string][]byte)}
}

func (t *mapTx) Get(key []byte) ([]byte, error) {
	v, written := t.writes[string(key)]
	if !written {
		v = t.base[string(key)]
	}
	if v == nil {
		return nil, store.ErrNotFound
	}
	return v, nil
}

func (t *mapTx) Put(key, value []byte) error {
	if t.readOnly {
		return store.ErrReadOnly
	}
	t.writes[string(key)] = append([]byte{}, value...) // non-nil even when empty
	return nil
}

func (t *mapTx) Delete(key []byte) error {
	if t.readOnly {
		return store.ErrReadOnly
	}
	t.writes[string(key)] = nil
	return nil
}

func (t *mapTx) Scan(start, end []byte, opts store.ScanOptions, fn func(key, value []byte) bool) error {
	var keys []string
	for _, m := range []map[string][]byte{t.base, t.writes} {
		for k := range m {
			if k >= string(start) && (end == nil || k < string(end)) {
				keys = append(keys, k)
			}
		}
	}
	slices.Sort(keys)
	keys = slices.Compact(keys)
	if opts.Reverse {
		slices.Reverse(keys)
	}
	visited := 0
	for _, k := range keys {
		v, err := t.Get([]byte(k))
		if err != nil {
			continue // deleted in this transaction
		}
		if !fn([]byte(k), bytes.Clone(v)) {
			return nil
		}
		if visited++; opts.Limit > 0 && visited == opts.Limit {
			return nil
		}
	}
	return nil
}
