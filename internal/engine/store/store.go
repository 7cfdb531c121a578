// Package store defines Lazuli's ordered, transactional record store: the one
// contract every metadata engine (memory, sqlite, postgres) implements and
// every service builds on.
//
// The model is a single sorted map from byte-string keys to byte-string values.
// Keys are built with the tuple encoding in keys.go so that byte order equals
// tuple order and a prefix scan lists a container's blobs, a partition's
// entities or a queue's messages by visibility time.
//
// Guarantees an engine MUST give:
//
//   - View runs its closure against a consistent snapshot: every Get and Scan
//     inside one View sees the same committed state, even while Updates commit.
//     A View never blocks writers and never observes a half-applied Update.
//   - Update runs its closure serializably: the outcome is as if every Update
//     ran one at a time. An Update that conflicts with a concurrent one is
//     retried by the engine, so the closure MAY run more than once and MUST NOT
//     have side effects outside its Tx (no channel sends, no extent deletes, no
//     counters). An error returned by the closure aborts the transaction
//     (nothing it wrote is kept) and is returned unchanged by Update.
//   - Durability: when Update returns nil the write is on stable storage
//     (fsync'd, or committed by the database) and visible to every later View
//     and Update, in this process and, for shared engines, on every node.
//   - Values passed to Put are owned by the engine after the call; slices
//     returned by Get and Scan are valid only until the closure returns, so a
//     caller that keeps them copies them (bytes.Clone).
//
// Every Azure rule (ETags, leases, visibility, OData, listing) lives above the
// store, once; engines know nothing about them.
package store

import (
	"context"
	"errors"
)

// ErrNotFound is returned by Tx.Get when the key has no record.
var ErrNotFound = errors.New("store: record not found")

// ErrReadOnly is returned by a write attempted inside View.
var ErrReadOnly = errors.New("store: write in a read-only transaction")

// ErrClosed is returned by View and Update after Close.
var ErrClosed = errors.New("store: closed")

// Store is an engine handle. It is safe for concurrent use.
type Store interface {
	// View runs fn in a read-only snapshot transaction.
	View(ctx context.Context, fn func(Tx) error) error
	// Update runs fn in a serializable read-write transaction, retrying it on
	// conflict, and returns once the result is durable.
	Update(ctx context.Context, fn func(Tx) error) error
	// Close waits for in-flight transactions, then releases the engine. Later
	// calls return ErrClosed.
	Close() error
}

// Tx is one transaction. It is not safe for concurrent use and is invalid
// once the closure that received it returns.
type Tx interface {
	// Get returns the value stored at key, or ErrNotFound.
	Get(key []byte) ([]byte, error)
	// Put stores value at key, replacing any previous value. An empty value is
	// allowed and distinct from no record.
	Put(key, value []byte) error
	// Delete removes key; deleting a missing key is not an error.
	Delete(key []byte) error
	// Scan calls fn for every record with start <= key < end, in ascending key
	// order (descending when opts.Reverse), until fn returns false, opts.Limit
	// records have been visited (0 means no limit) or the range is exhausted.
	// A nil end means no upper bound. Writes made earlier in the same Update
	// are visible to Scan and Get. fn must not write through the Tx.
	Scan(start, end []byte, opts ScanOptions, fn func(key, value []byte) bool) error
}

// CommitObserver is implemented by engines that commit several Updates in
// one transaction (SQLite's group commit). fn is called once per committed
// transaction with the number of Update closures it carried; it must be
// quick, as the committer waits for it. Set it before the store is used.
type CommitObserver interface {
	ObserveCommits(fn func(updates int))
}

// ScanOptions tunes a Scan.
type ScanOptions struct {
	Limit   int
	Reverse bool
}

// turnKey is the context key under which InTurn records a turn.
type turnKey struct{}

// InTurn returns a context under which Update runs its closure in turn with
// every other Update marked with the same turn, on this node and on every
// node sharing the engine: one at a time, each starting after the previous
// one committed. It is for Updates that all rewrite the same few records,
// such as the consumers of one queue taking its first visible messages.
// Run concurrently, a serializable engine would abort all but one of them
// on each round and retry the rest, so that under enough of them some
// consumer loses every attempt; run in turn, none conflicts with another.
// Engines that already run every Update one at a time ignore it.
//
// A closure run in turn must not start another transaction: it would wait
// for a connection held by an Update queued for the same turn.
func InTurn(ctx context.Context, turn []byte) context.Context {
	return context.WithValue(ctx, turnKey{}, string(turn))
}

// Turn returns the turn InTurn recorded in ctx, if any.
func Turn(ctx context.Context) (string, bool) {
	turn, ok := ctx.Value(turnKey{}).(string)
	return turn, ok
}
