// Package memory is the in-process store engine behind --inMemoryPersistence
// and most tests. Nothing survives the process.
//
// Records live in a copy-on-write B-tree (btree.go). A View captures the
// current root with one atomic load and reads that frozen version without any
// lock, so it never blocks or is blocked by writers. Updates are serialized by
// one mutex: each builds the next version by path copying, sees its own
// writes through that version, and publishes it with one atomic store when
// its closure succeeds. A closure that fails leaves the published version
// untouched, so nothing it wrote is kept. Because writers never overlap there
// are no conflicts and a closure runs exactly once.
package memory

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"

	"github.com/lazuli-storage/lazuli/internal/engine/store"
	"github.com/lazuli-storage/lazuli/internal/engine/store/gate"
)

// errTxDone is returned by a write through a Tx whose closure has returned:
// its nodes may already be published, so writing would corrupt a snapshot.
var errTxDone = errors.New("memory: transaction used after its closure returned")

// errWriteInScan is returned by a write made from inside a Scan callback,
// which the store contract forbids and which would disturb the walk.
var errWriteInScan = errors.New("memory: write during a scan of the same transaction")

// Store is the in-memory engine. It is safe for concurrent use.
type Store struct {
	root atomic.Pointer[node] // the latest published version

	writeMu     sync.Mutex // serializes Updates
	lastVersion uint64     // guarded by writeMu; never reused, even by a failed Update

	gate gate.Gate
}

// New returns an empty in-memory store.
func New() store.Store { return &Store{} }

// View runs fn against the latest published version.
func (s *Store) View(ctx context.Context, fn func(store.Tx) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := s.gate.Enter(); err != nil {
		return err
	}
	defer s.gate.Leave()
	return fn(&viewTx{root: s.root.Load()})
}

// Update runs fn against a private next version and publishes it if fn
// returns nil. Updates run one at a time, so fn must not call Update itself.
func (s *Store) Update(ctx context.Context, fn func(store.Tx) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := s.gate.Enter(); err != nil {
		return err
	}
	defer s.gate.Leave()

	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	s.lastVersion++
	tx := &writeTx{tree: tree{root: s.root.Load(), version: s.lastVersion}}
	err := runClosure(tx, fn)
	if err != nil {
		return err
	}
	s.root.Store(tx.tree.root)
	return nil
}

// runClosure calls fn and retires tx however fn ends, panics included.
func runClosure(tx *writeTx, fn func(store.Tx) error) error {
	defer func() { tx.done = true }()
	return fn(tx)
}

// Close waits for running transactions; later calls, Close included, return
// store.ErrClosed.
func (s *Store) Close() error {
	if !s.gate.Close() {
		return store.ErrClosed
	}
	return nil
}

// viewTx reads one frozen version.
type viewTx struct {
	root *node
}

func (tx *viewTx) Get(key []byte) ([]byte, error) {
	if v, ok := get(tx.root, key); ok {
		return v, nil
	}
	return nil, store.ErrNotFound
}

func (tx *viewTx) Put(key, value []byte) error { return store.ErrReadOnly }

func (tx *viewTx) Delete(key []byte) error { return store.ErrReadOnly }

func (tx *viewTx) Scan(start, end []byte, opts store.ScanOptions, fn func(key, value []byte) bool) error {
	scan(tx.root, start, end, opts, fn)
	return nil
}

// writeTx builds the next version.
type writeTx struct {
	tree     tree
	scanning int  // Scans in progress; writes are refused meanwhile
	done     bool // the closure has returned
}

func (tx *writeTx) Get(key []byte) ([]byte, error) {
	if v, ok := get(tx.tree.root, key); ok {
		return v, nil
	}
	return nil, store.ErrNotFound
}

func (tx *writeTx) Put(key, value []byte) error {
	if err := tx.writable(); err != nil {
		return err
	}
	tx.tree.put(key, value)
	return nil
}

func (tx *writeTx) Delete(key []byte) error {
	if err := tx.writable(); err != nil {
		return err
	}
	tx.tree.delete(key)
	return nil
}

func (tx *writeTx) writable() error {
	switch {
	case tx.done:
		return errTxDone
	case tx.scanning > 0:
		return errWriteInScan
	}
	return nil
}

func (tx *writeTx) Scan(start, end []byte, opts store.ScanOptions, fn func(key, value []byte) bool) error {
	tx.scanning++
	defer func() { tx.scanning-- }()
	scan(tx.tree.root, start, end, opts, fn)
	return nil
}

// scan walks [start, end) of the tree rooted at root as ScanOptions ask.
func scan(root *node, start, end []byte, opts store.ScanOptions, fn func(key, value []byte) bool) {
	visit := fn
	if opts.Limit > 0 {
		left := opts.Limit
		visit = func(key, value []byte) bool {
			left--
			return fn(key, value) && left > 0
		}
	}
	if opts.Reverse {
		descend(root, start, end, visit)
	} else {
		ascend(root, start, end, visit)
	}
}
