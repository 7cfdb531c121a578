// Package liveness tells the nodes sharing one store which of them are
// still running. State a node holds only in its own process, such as the
// SMB opens its clients hold, is recorded in the store under the node's id
// so that other nodes honour it; when that node dies the state must not
// outlive it. Each node therefore renews a liveness record (an expiry
// instant) every Renew interval; a node whose record has expired, or is
// missing, is dead, and everything recorded under its id is treated as
// gone. Expiry instants are compared with each reader's clock, so nodes'
// clocks must agree to well within the expiry, as they must for leases.
package liveness

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"log/slog"
	"time"

	"github.com/lazuli-storage/lazuli/internal/base/clock"
	"github.com/lazuli-storage/lazuli/internal/engine/store"
)

// DefaultExpiry is how long a node counts as alive after its last renewal;
// it renews every third of that.
const DefaultExpiry = 30 * time.Second

// cleanupBatch bounds how many long-expired records of other nodes one
// renewal deletes.
const cleanupBatch = 16

// Registry is this node's liveness record and the judge of other nodes'.
type Registry struct {
	store  store.Store
	clock  clock.Clock
	logger *slog.Logger
	node   uint64
	expiry time.Duration
}

// New gives this process a fresh node id (a restarted node is a new node:
// what its previous run recorded expires) on st, alive for expiry after
// each renewal (DefaultExpiry when zero).
func New(st store.Store, c clock.Clock, expiry time.Duration, logger *slog.Logger) *Registry {
	if c == nil {
		c = clock.Real{}
	}
	if expiry <= 0 {
		expiry = DefaultExpiry
	}
	if logger == nil {
		logger = slog.Default()
	}
	return &Registry{store: st, clock: c, logger: logger, node: newNodeID(), expiry: expiry}
}

func newNodeID() uint64 {
	var b [8]byte
	for {
		_, _ = rand.Read(b[:])
		if id := binary.BigEndian.Uint64(b[:]); id != 0 {
			return id
		}
	}
}

// Node is this node's id, never 0; 0 for a nil Registry (no node).
func (r *Registry) Node() uint64 {
	if r == nil {
		return 0
	}
	return r.node
}

// Expiry is how long the node counts as alive after a renewal.
func (r *Registry) Expiry() time.Duration { return r.expiry }

// Interval is the time between renewals: a third of the expiry, so two
// renewals can fail before the node counts as dead.
func (r *Registry) Interval() time.Duration { return r.expiry / 3 }

// recordsPrefix starts the liveness records' keys. They sit in SpaceMeta,
// beside the engines' own runtime records: they are no account's data, so
// dumps, loads and admin resets leave them alone.
func recordsPrefix() store.Key { return store.NewKey(store.SpaceMeta).Str("liveness") }

func recordKey(node uint64) []byte { return recordsPrefix().Uint(node).Bytes() }

// Renew extends this node's record to now plus the expiry, and deletes a
// few records of nodes dead for longer than the expiry (bounded work; the
// rest go at later renewals).
func (r *Registry) Renew(ctx context.Context) error {
	now := r.clock.Now()
	value := binary.BigEndian.AppendUint64(nil, uint64(now.Add(r.expiry).UnixNano()))
	return r.store.Update(ctx, func(tx store.Tx) error {
		if err := tx.Put(recordKey(r.node), value); err != nil {
			return err
		}
		return r.deleteLongDead(tx, now)
	})
}

func (r *Registry) deleteLongDead(tx store.Tx, now time.Time) error {
	prefix := recordsPrefix().Bytes()
	var dead [][]byte
	err := tx.Scan(prefix, store.PrefixEnd(prefix), store.ScanOptions{}, func(k, v []byte) bool {
		if until, ok := decode(v); !ok || now.Sub(until) > r.expiry {
			dead = append(dead, append([]byte(nil), k...))
		}
		return len(dead) < cleanupBatch
	})
	if err != nil {
		return err
	}
	for _, k := range dead {
		if err := tx.Delete(k); err != nil {
			return err
		}
	}
	return nil
}

func decode(v []byte) (time.Time, bool) {
	if len(v) != 8 {
		return time.Time{}, false
	}
	return time.Unix(0, int64(binary.BigEndian.Uint64(v))), true
}

// Alive reports, inside tx, whether node still renews its record. Node 0
// (state recorded without a node) and this node are always alive.
func (r *Registry) Alive(tx store.Tx, node uint64) (bool, error) {
	if r == nil || node == 0 || node == r.node {
		return true, nil
	}
	v, err := tx.Get(recordKey(node))
	if errors.Is(err, store.ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	until, ok := decode(v)
	return ok && r.clock.Now().Before(until), nil
}

// Run renews the record now and every Interval until ctx ends, then
// deletes it: a node that stops cleanly is dead at once.
func (r *Registry) Run(ctx context.Context) {
	r.renewLogged(ctx)
	tick := time.NewTicker(r.Interval())
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			r.retire()
			return
		case <-tick.C:
			r.renewLogged(ctx)
		}
	}
}

func (r *Registry) renewLogged(ctx context.Context) {
	if err := r.Renew(ctx); err != nil && ctx.Err() == nil {
		r.logger.Error("liveness: renewal failed", "node", r.node, "err", err)
	}
}

// retire deletes this node's record.
func (r *Registry) retire() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = r.store.Update(ctx, func(tx store.Tx) error { return tx.Delete(recordKey(r.node)) })
}

// Snapshot reads every node's record at once and judges from them, for
// callers that must judge inside a Scan (which allows no other reads).
func (r *Registry) Snapshot(tx store.Tx) (func(node uint64) (bool, error), error) {
	if r == nil {
		return func(uint64) (bool, error) { return true, nil }, nil
	}
	now := r.clock.Now()
	until := map[uint64]time.Time{}
	prefix := recordsPrefix().Bytes()
	err := tx.Scan(prefix, store.PrefixEnd(prefix), store.ScanOptions{}, func(k, v []byte) bool {
		if t, ok := decode(v); ok && len(k) == len(prefix)+8 {
			until[binary.BigEndian.Uint64(k[len(prefix):])] = t
		}
		return true
	})
	return func(node uint64) (bool, error) {
		t, ok := until[node]
		return node == 0 || node == r.node || (ok && now.Before(t)), nil
	}, err
}
