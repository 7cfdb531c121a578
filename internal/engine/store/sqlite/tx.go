package sqlite

import (
	"errors"

	"github.com/lazuli-storage/lazuli/internal/engine/store"
)

// errTxDone is returned by a Tx used after its closure returned: its
// connection has moved on to other transactions.
var errTxDone = errors.New("sqlite: transaction used after its closure returned")

// errWriteInScan is returned by a write made from inside a Scan callback,
// which the store contract forbids.
var errWriteInScan = errors.New("sqlite: write during a scan of the same transaction")

// readTx is a View's transaction on a read connection: a WAL snapshot taken
// at its first read.
type readTx struct {
	c    *conn
	done bool
}

func (tx *readTx) Get(key []byte) ([]byte, error) {
	if tx.done {
		return nil, errTxDone
	}
	return tx.c.getValue(key)
}

func (tx *readTx) Put(key, value []byte) error { return store.ErrReadOnly }

func (tx *readTx) Delete(key []byte) error { return store.ErrReadOnly }

func (tx *readTx) Scan(start, end []byte, opts store.ScanOptions, fn func(key, value []byte) bool) error {
	if tx.done {
		return errTxDone
	}
	return tx.c.scan(start, end, opts, fn)
}

// writeTx is one Update closure's view of the writer connection, inside the
// closure's savepoint of a group-commit transaction.
//
// Its first failed statement poisons it: SQLite may have rolled back the
// whole transaction (on SQLITE_FULL, SQLITE_IOERR, ...), after which further
// statements would run, and commit, outside any transaction. So every later
// call returns that error, and the committer treats the closure as failed
// even if the closure ignored the error.
type writeTx struct {
	c        *conn
	err      error
	scanning int
	done     bool
}

func (tx *writeTx) usable() error {
	if tx.done {
		return errTxDone
	}
	return tx.err
}

// fail records the first statement failure.
func (tx *writeTx) fail(err error) error {
	if err != nil && tx.err == nil {
		tx.err = err
	}
	return err
}

func (tx *writeTx) Get(key []byte) ([]byte, error) {
	if err := tx.usable(); err != nil {
		return nil, err
	}
	v, err := tx.c.getValue(key)
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		tx.fail(err)
	}
	return v, err
}

func (tx *writeTx) Put(key, value []byte) error {
	if err := tx.writable(); err != nil {
		return err
	}
	return tx.fail(tx.c.putValue(key, value))
}

func (tx *writeTx) Delete(key []byte) error {
	if err := tx.writable(); err != nil {
		return err
	}
	return tx.fail(tx.c.deleteKey(key))
}

func (tx *writeTx) writable() error {
	if err := tx.usable(); err != nil {
		return err
	}
	if tx.scanning > 0 {
		return errWriteInScan
	}
	return nil
}

func (tx *writeTx) Scan(start, end []byte, opts store.ScanOptions, fn func(key, value []byte) bool) error {
	if err := tx.usable(); err != nil {
		return err
	}
	tx.scanning++
	defer func() { tx.scanning-- }()
	return tx.fail(tx.c.scan(start, end, opts, fn))
}
