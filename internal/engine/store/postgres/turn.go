package postgres

import (
	"context"
	"hash/fnv"
	"sync"

	"github.com/jackc/pgx/v5/pgxpool"
)

// Updates marked with store.InTurn wait for their turn twice: first on a
// mutex of this process, so that the Updates of one node queue without each
// holding a pooled connection, then on a session-level advisory lock, which
// orders the nodes. The advisory lock is taken before BEGIN, so the
// transaction's snapshot is taken after the previous holder committed and
// nothing it read has changed since; a transaction-level lock would be taken
// after the snapshot and would not spare the serialization failure
// (PostgreSQL manual, "Advisory Locks" and "Transaction Isolation").

// turnStripes is how many mutexes share the turns of this process. Two turns
// that hash to one stripe wait for each other on this node only, which costs
// them concurrency, never correctness.
const turnStripes = 64

// turns holds a store's in-process turn mutexes and the prefix that keeps
// its advisory lock keys apart from another schema's.
type turns struct {
	schema  string
	stripes [turnStripes]sync.Mutex
}

// lockKey is the advisory lock key of turn: 64 bits of FNV-1a over the
// schema and the turn.
func (t *turns) lockKey(turn string) int64 {
	h := fnv.New64a()
	h.Write([]byte(t.schema))
	h.Write([]byte{0})
	h.Write([]byte(turn))
	return int64(h.Sum64())
}

// updateInTurn runs Update's retry loop while holding turn, on this node
// and across the database.
func (s *Store) updateInTurn(ctx context.Context, turn string, attempt func(beginner) error) error {
	key := s.turns.lockKey(turn)
	stripe := &s.turns.stripes[uint64(key)%turnStripes]
	stripe.Lock()
	defer stripe.Unlock()

	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		return wrap("acquire", err)
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, "SELECT pg_advisory_lock($1)", key); err != nil {
		// Whether the lock was granted before the error is unknown; a
		// closed connection releases it either way.
		discard(ctx, conn)
		return wrap("wait for turn", err)
	}
	defer func() {
		if _, err := conn.Exec(context.WithoutCancel(ctx), "SELECT pg_advisory_unlock($1)", key); err != nil {
			discard(ctx, conn)
		}
	}()
	return updateRetry.run(ctx, func() error { return attempt(conn) })
}

// discard closes conn, so that the pool drops it on Release instead of
// handing out a session that may still hold an advisory lock.
func discard(ctx context.Context, conn *pgxpool.Conn) {
	_ = conn.Conn().Close(context.WithoutCancel(ctx))
}
