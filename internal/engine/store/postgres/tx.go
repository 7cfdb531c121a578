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
	get, put, del string
	// scan[reverse][bounded]: a Scan without an end bound uses a statement
	// without "k < $2" rather than a sentinel, so the plan stays a plain range.
	scan [2][2]string
}

func newStatements(kv string) statements {
	var s statements
	s.get = "SELECT v FROM " + kv + " WHERE k = $1"
	s.put = "INSERT INTO " + kv + " (k, v) VALUES ($1, $2) ON CONFLICT (k) DO UPDATE SET v = EXCLUDED.v"
	s.del = "DELETE FROM " + kv + " WHERE k = $1"
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

// Get reads one key in one query.
func (t *tx) Get(key []byte) ([]byte, error) {
	if err := t.usable(false); err != nil {
		return nil, err
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

// Put inserts or replaces one key.
func (t *tx) Put(key, value []byte) error {
	if err := t.usable(true); err != nil {
		return err
	}
	// pgx sends a nil slice as NULL; the store distinguishes an empty value
	// from no record, and the table forbids NULL, so send empty bytes.
	if _, err := t.tx.Exec(t.ctx, t.sql.put, nonNil(key), nonNil(value)); err != nil {
		return t.fail("put", err)
	}
	return nil
}

// Delete removes one key, if present.
func (t *tx) Delete(key []byte) error {
	if err := t.usable(true); err != nil {
		return err
	}
	if _, err := t.tx.Exec(t.ctx, t.sql.del, nonNil(key)); err != nil {
		return t.fail("delete", err)
	}
	return nil
}

func nonNil(b []byte) []byte {
	if b == nil {
		return []byte{}
	}
	return b
}

// wrap prefixes a database error with the operation, keeping it matchable
// matchable with errors.Is/As (retry looks for *pgconn.PgError, callers for
// context.Canceled).
func wrap(op string, err error) error {
	return fmt.Errorf("postgres: %s: %w", op, err)
}
