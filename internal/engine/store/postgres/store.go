package postgres

import (
	"context"
	"errors"
	"sync"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/lazuli-storage/lazuli/internal/engine/store"
	"github.com/lazuli-storage/lazuli/internal/engine/store/postgres/pgschema"
)

// Options configure Open.
type Options struct {
	// MaxConns caps the connection pool; 0 uses pgx's default (the larger
	// of 4 and the number of CPUs). Each running View or Update holds one
	// connection.
	MaxConns int
	// Schema holds the store's tables; "" means "public". It is created when
	// missing, so tests and several stores can share one database.
	Schema string
}

// component names the store's tables in the schema_version table.
const component = "store"

// migrations create and evolve the store's tables; append only.
var migrations = []string{
	`CREATE TABLE kv (k bytea PRIMARY KEY, v bytea NOT NULL)`,
}

// Store is a store.Store on a PostgreSQL database.
type Store struct {
	pool  *pgxpool.Pool
	sql   statements
	turns turns

	mu       sync.Mutex
	closed   bool
	inflight sync.WaitGroup
}

var _ store.Store = (*Store)(nil)

// Open connects to the database at url (a postgres:// URL or key=value DSN)
// and creates or migrates the store's tables. Several nodes may Open the same
// database and schema at once. Open fails, holding nothing open, when the
// server cannot be reached or the schema belongs to a newer build.
func Open(ctx context.Context, url string, opts Options) (*Store, error) {
	pool, err := pgschema.Connect(ctx, url, opts.MaxConns)
	if err != nil {
		return nil, err
	}
	if err := pgschema.Migrate(ctx, pool, opts.Schema, component, migrations); err != nil {
		pool.Close()
		return nil, err
	}
	return &Store{
		pool:  pool,
		sql:   newStatements(pgschema.Ident(opts.Schema, "kv")),
		turns: turns{schema: opts.Schema},
	}, nil
}

// enter registers a transaction so that Close can wait for it.
func (s *Store) enter() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return false
	}
	s.inflight.Add(1)
	return true
}

// View runs fn in a READ ONLY REPEATABLE READ transaction (see the package
// documentation for why that is a snapshot as the contract requires).
func (s *Store) View(ctx context.Context, fn func(store.Tx) error) error {
	if !s.enter() {
		return store.ErrClosed
	}
	defer s.inflight.Done()
	opts := pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}
	return s.run(ctx, s.pool, opts, true, fn)
}

// Update runs fn in a SERIALIZABLE transaction, running it again when
// PostgreSQL reports a serialization failure or deadlock. An Update marked
// with store.InTurn first waits for its turn (turn.go).
func (s *Store) Update(ctx context.Context, fn func(store.Tx) error) error {
	if !s.enter() {
		return store.ErrClosed
	}
	defer s.inflight.Done()
	opts := pgx.TxOptions{IsoLevel: pgx.Serializable}
	attempt := func(b beginner) error { return s.run(ctx, b, opts, false, fn) }
	if turn, ok := store.Turn(ctx); ok {
		return s.updateInTurn(ctx, turn, attempt)
	}
	return updateRetry.run(ctx, func() error { return attempt(s.pool) })
}

// beginner starts a transaction: on any pooled connection (the pool), or on
// the one an Update in turn holds.
type beginner interface {
	BeginTx(ctx context.Context, opts pgx.TxOptions) (pgx.Tx, error)
}

// run executes fn once in a transaction and commits it unless fn or the
// database failed. A database error the Tx met takes precedence over fn's
// result, so a swallowed serialization failure is still seen (and retried)
// and a transaction PostgreSQL has aborted is never reported as committed.
func (s *Store) run(ctx context.Context, b beginner, opts pgx.TxOptions, readOnly bool, fn func(store.Tx) error) error {
	pgtx, err := b.BeginTx(ctx, opts)
	if err != nil {
		return wrap("begin", err)
	}
	t := &tx{ctx: ctx, tx: pgtx, sql: &s.sql, readOnly: readOnly}
	err = fn(t)
	if err == nil && t.err == nil {
		// The writes still pending reach the database before COMMIT.
		err = t.flush()
	}
	t.done = true
	if t.err != nil && (err == nil || isRetryable(t.err)) {
		err = t.err
	}
	if err != nil {
		// Roll back even when ctx is cancelled, so the connection goes back
		// to the pool clean instead of being discarded.
		_ = pgtx.Rollback(context.WithoutCancel(ctx))
		return err
	}
	if err := pgtx.Commit(ctx); err != nil {
		return wrap("commit", err)
	}
	return nil
}

// Close waits for running transactions, then closes the connection pool.
// View and Update return store.ErrClosed afterwards; a second Close does
// nothing.
func (s *Store) Close() error {
	s.mu.Lock()
	already := s.closed
	s.closed = true
	s.mu.Unlock()
	if already {
		return nil
	}
	s.inflight.Wait()
	s.pool.Close()
	return nil
}

// errTxDone is returned by a Tx used after its closure returned.
var errTxDone = errors.New("postgres: transaction used after its closure returned")
