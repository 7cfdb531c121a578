package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/lazuli-storage/lazuli/internal/engine/store"
)

// statements is the SQL of every Tx operation, with the schema-qualified
// table name built once at Open. pgx prepares each text once per connection.
type statements struct {
	get string
	// putMany and deleteMany apply many writes in one statement each: the
	// keys (and values) are bytea arrays, one parameter each, whatever
	// their number.
	putMany, deleteMany string
	// scan[reverse][bounded]: a Scan without an end bound uses a statement
	// without "k < $2" rather than a sentinel, so the plan stays a plain range.
	scan [2][2]string
}

func newStatements(kv string) statements {
	var s statements
	s.get = "SELECT v FROM " + kv + " WHERE k = $1"
	s.putMany = "INSERT INTO " + kv + " (k, v) SELECT * FROM unnest($1::bytea[], $2::bytea[])" +
		" ON CONFLICT (k) DO UPDATE SET v = EXCLUDED.v"
	s.deleteMany = "DELETE FROM " + kv + " WHERE k = ANY($1::bytea[])"
	// LIMIT takes the last parameter; the page size is always set.
	s.scan[0][0] = "SELECT k, v FROM " + kv + " WHERE k >= $1 ORDER BY k LIMIT $2"
	s.scan[0][1] = "SELECT k, v FROM " + kv + " WHERE k >= $1 AND k < $2 ORDER BY k LIMIT $3"
	s.scan[1][0] = "SELECT k, v FROM " + kv + " WHERE k >= $1 ORDER BY k DESC LIMIT $2"
	s.scan[1][1] = "SELECT k, v FROM " + kv + " WHERE k >= $1 AND k < $2 ORDER BY k DESC LIMIT $3"
	return s
}

// tx is a store.Tx over one pgx transaction.
type tx struct {
	ctx      context.Context
	tx       pgx.Tx
	sql      *statements
	readOnly bool
	done     bool
	// pending holds the writes not yet sent (see pending.go).
	pending pendingWrites
	// err is the first database error, kept because PostgreSQL aborts the
	// whole transaction on any error and because the closure may hide it.
	err error
}

// fail records err as the transaction's database error and returns it.
func (t *tx) fail(op string, err error) error {
	err = wrap(op, err)
	if t.err == nil {
		t.err = err
	}
	return err
}

// usable reports why the Tx cannot run a statement, if it cannot.
func (t *tx) usable(write bool) error {
	switch {
	case t.done:
		return errTxDone
	case write && t.readOnly:
		return store.ErrReadOnly
	case t.err != nil:
		// PostgreSQL would answer 25P02 (transaction aborted); answer with
		// the cause instead, without a round trip.
		return t.err
	}
	return nil
}

// Get answers from the Update's own pending write of key, if any, and
// otherwise reads the key in one query.
func (t *tx) Get(key []byte) ([]byte, error) {
	if err := t.usable(false); err != nil {
		return nil, err
	}
	if w, ok := t.pending.lookup(key); ok {
		if w.deleted {
			return nil, store.ErrNotFound
		}
		return w.value, nil
	}
	var v []byte
	err := t.tx.QueryRow(t.ctx, t.sql.get, nonNil(key)).Scan(&v)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, store.ErrNotFound
	}
	if err != nil {
		return nil, t.fail("get", err)
	}
	return nonNil(v), nil
}

// Put inserts or replaces one key, sent with the Update's other writes.
func (t *tx) Put(key, value []byte) error {
	// pgx sends a nil slice as NULL; the store distinguishes an empty value
	// from no record, and the table forbids NULL, so keep empty bytes.
	return t.write(key, pendingWrite{value: nonNil(value)})
}

// Delete removes one key, if present, sent with the Update's other writes.
func (t *tx) Delete(key []byte) error {
	return t.write(key, pendingWrite{deleted: true})
}

// write adds one write to the pending ones, sending them all when they are
// many.
func (t *tx) write(key []byte, w pendingWrite) error {
	if err := t.usable(true); err != nil {
		return err
	}
	if t.pending.add(key, w) {
		return t.flush()
	}
	return nil
}

func nonNil(b []byte) []byte {
	if b == nil {
		return []byte{}
	}
	return b
}

// wrap prefixes a database error with the operation, keeping it
// matchable with errors.Is/As (retry looks for *pgconn.PgError, callers for
// context.Canceled).
func wrap(op string, err error) error {
	return fmt.Errorf("postgres: %s: %w", op, err)
}
