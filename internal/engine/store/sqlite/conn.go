package sqlite

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"time"

	msqlite "modernc.org/sqlite"

	"github.com/lazuli-storage/lazuli/internal/engine/store"
)

// The engine talks to the driver through database/sql/driver directly rather
// than through database/sql: each connection belongs to one goroutine at a
// time (the committer, or the View that checked it out), so database/sql's
// pool, locks and argument conversion would only cost time on every
// statement. Statements are prepared once per connection and reused.
//
// A nil []byte binds as NULL, so SQL that receives a key, bound or value
// that may be nil turns NULL into the empty blob with coalesce.
//
// Each statement exists once per table (tables.go); the SQL is built here
// once, and each connection prepares it once.
var (
	getSQL, putSQL, deleteSQL [tableCount]string
	// scanSQL is indexed by scanTarget, then by scanIndex.
	scanSQL [scanTargetCount][4]string
)

func init() {
	for t, name := range tableNames {
		getSQL[t] = `SELECT v FROM ` + name + ` WHERE k = coalesce(?1, x'')`
		putSQL[t] = `INSERT INTO ` + name + ` (k, v) VALUES (coalesce(?1, x''), coalesce(?2, x'')) ON CONFLICT (k) DO UPDATE SET v = excluded.v`
		deleteSQL[t] = `DELETE FROM ` + name + ` WHERE k = coalesce(?1, x'')`
	}
	for target := range scanTargetCount {
		for _, reverse := range []bool{false, true} {
			for _, openEnd := range []bool{false, true} {
				scanSQL[target][scanIndex(reverse, openEnd)] = buildScanSQL(target, reverse, openEnd)
			}
		}
	}
}

// buildScanSQL returns a scan of target. Every scan binds ?1 start, ?2 end
// and ?3 limit (-1: none); the unbounded forms ignore ?2. A scan of both
// tables is one compound SELECT whose ORDER BY SQLite answers by merging
// the two tables' key-ordered searches ("MERGE (UNION ALL)" in EXPLAIN
// QUERY PLAN, checked by TestScanOfBothTablesMerges), so it reads no more
// rows than the limit asks and sorts nothing.
func buildScanSQL(target scanTarget, reverse, openEnd bool) string {
	where := `k >= coalesce(?1, x'') AND k < ?2`
	if openEnd {
		where = `k >= coalesce(?1, x'')`
	}
	order := `ORDER BY k`
	if reverse {
		order += ` DESC`
	}
	if target != scanBoth {
		return `SELECT k, v FROM ` + tableNames[target] + ` WHERE ` + where + ` ` + order + ` LIMIT ?3`
	}
	return `SELECT k, v FROM kv WHERE ` + where + ` UNION ALL SELECT k, v FROM kvi WHERE ` + where + ` ` + order + ` LIMIT ?3`
}

func scanIndex(reverse, openEnd bool) int {
	i := 0
	if reverse {
		i += 2
	}
	if openEnd {
		i++
	}
	return i
}

// stmt is a prepared statement with the driver interfaces it is run through.
type stmt struct {
	raw   driver.Stmt
	exec  driver.StmtExecContext
	query driver.StmtQueryContext
	busy  bool // a Scan is reading its rows
}

// conn is one SQLite connection and its prepared statements.
type conn struct {
	raw   driver.Conn
	stmts []*stmt // every prepared statement, for close

	begin, commit, rollback      *stmt
	savepoint, release, rollSave *stmt             // writer only
	get, put, del                [tableCount]*stmt // put and del: writer only
	scans                        [scanTargetCount][4]*stmt

	args   [3]driver.NamedValue // reused by Get, Put and Delete
	row    [1]driver.Value      // reused by Get
	broken bool                 // a transaction-control statement failed: a transaction may be left open
}

// openConn opens a connection on path and applies the settings every
// connection needs. Settings of the database file itself (WAL) are the
// writer's job, see openWriter.
func openConn(path string, opts Options) (*conn, error) {
	raw, err := (&msqlite.Driver{}).Open(path)
	if err != nil {
		return nil, fmt.Errorf("sqlite: open %s: %w", path, err)
	}
	c := &conn{raw: raw}
	for i := range c.args {
		c.args[i].Ordinal = i + 1
	}
	timeout := fmt.Sprintf("PRAGMA busy_timeout = %d", opts.BusyTimeout/time.Millisecond)
	if err := c.execSQL(timeout); err != nil {
		c.close()
		return nil, err
	}
	return c, nil
}

// prepareRead prepares the statements a read transaction uses.
func (c *conn) prepareRead() error {
	return c.prepareAll(map[**stmt]string{
		&c.begin:    "BEGIN",
		&c.commit:   "COMMIT",
		&c.rollback: "ROLLBACK",
	}, false)
}

// prepareWrite prepares the statements the writer uses.
func (c *conn) prepareWrite() error {
	return c.prepareAll(map[**stmt]string{
		&c.begin:     "BEGIN IMMEDIATE",
		&c.commit:    "COMMIT",
		&c.rollback:  "ROLLBACK",
		&c.savepoint: "SAVEPOINT closure",
		&c.release:   "RELEASE closure",
		&c.rollSave:  "ROLLBACK TO closure",
	}, true)
}

// prepareAll prepares the given statements, every table's Get and scans,
// and, for the writer, every table's Put and Delete.
func (c *conn) prepareAll(stmts map[**stmt]string, writer bool) error {
	for t := range tableCount {
		stmts[&c.get[t]] = getSQL[t]
		if writer {
			stmts[&c.put[t]] = putSQL[t]
			stmts[&c.del[t]] = deleteSQL[t]
		}
	}
	for target := range scanTargetCount {
		for i, sql := range scanSQL[target] {
			stmts[&c.scans[target][i]] = sql
		}
	}
	for dst, sql := range stmts {
		st, err := c.prepare(sql)
		if err != nil {
			return err
		}
		*dst = st
		c.stmts = append(c.stmts, st)
	}
	return nil
}

func (c *conn) prepare(sql string) (*stmt, error) {
	raw, err := c.raw.Prepare(sql)
	if err != nil {
		return nil, fmt.Errorf("sqlite: prepare %q: %w", sql, err)
	}
	exec, okExec := raw.(driver.StmtExecContext)
	query, okQuery := raw.(driver.StmtQueryContext)
	if !okExec || !okQuery {
		raw.Close()
		return nil, errors.New("sqlite: driver statement lacks context methods")
	}
	return &stmt{raw: raw, exec: exec, query: query}, nil
}

// execSQL runs one unprepared statement, for setup.
func (c *conn) execSQL(sql string) error {
	_, err := c.raw.(driver.ExecerContext).ExecContext(context.Background(), sql, nil)
	if err != nil {
		return fmt.Errorf("sqlite: %s: %w", sql, err)
	}
	return nil
}

// querySQL runs one unprepared single-column query, for setup, and returns
// the first row's value, or nil if there is no row.
func (c *conn) querySQL(sql string) (driver.Value, error) {
	rows, err := c.raw.(driver.QueryerContext).QueryContext(context.Background(), sql, nil)
	if err != nil {
		return nil, fmt.Errorf("sqlite: %s: %w", sql, err)
	}
	defer rows.Close()
	dest := make([]driver.Value, len(rows.Columns()))
	if err := rows.Next(dest); err != nil {
		if err == io.EOF {
			return nil, nil
		}
		return nil, fmt.Errorf("sqlite: %s: %w", sql, err)
	}
	return dest[0], nil
}

// control runs a transaction-control statement. If it fails the connection's
// transaction state is unknown, so the connection is marked broken.
func (c *conn) control(st *stmt) error {
	if _, err := st.exec.ExecContext(context.Background(), nil); err != nil {
		c.broken = true
		return err
	}
	return nil
}

// bind fills the reusable argument array and returns the first n.
func (c *conn) bind(n int, values ...driver.Value) []driver.NamedValue {
	for i, v := range values {
		c.args[i].Value = v
	}
	return c.args[:n]
}

// unbind drops references to the caller's slices once a statement has run.
func (c *conn) unbind() {
	for i := range c.args {
		c.args[i].Value = nil
	}
}

func (c *conn) getValue(key []byte) ([]byte, error) {
	rows, err := c.get[tableOf(key)].query.QueryContext(context.Background(), c.bind(1, key))
	c.unbind()
	if err != nil {
		return nil, err
	}
	dest := c.row[:1]
	err = rows.Next(dest)
	closeErr := rows.Close()
	value := dest[0]
	dest[0] = nil
	switch {
	case err == io.EOF:
		return nil, store.ErrNotFound
	case err != nil:
		return nil, err
	case closeErr != nil:
		return nil, closeErr
	}
	// The driver returns a fresh copy, and nil for an empty blob.
	b, _ := value.([]byte)
	return b, nil
}

func (c *conn) putValue(key, value []byte) error {
	_, err := c.put[tableOf(key)].exec.ExecContext(context.Background(), c.bind(2, key, value))
	c.unbind()
	return err
}

func (c *conn) deleteKey(key []byte) error {
	_, err := c.del[tableOf(key)].exec.ExecContext(context.Background(), c.bind(1, key))
	c.unbind()
	return err
}

// scan streams the rows of [start, end) to fn, from the table that holds
// the range's spaces or from both. If fn itself scans the same way (a
// nested Scan), the shared statement is busy, so the inner scan runs on a
// statement of its own.
func (c *conn) scan(start, end []byte, opts store.ScanOptions, fn func(key, value []byte) bool) error {
	target, i := targetOf(start, end), scanIndex(opts.Reverse, end == nil)
	st := c.scans[target][i]
	if st.busy {
		own, err := c.prepare(scanSQL[target][i])
		if err != nil {
			return err
		}
		defer own.raw.Close()
		st = own
	}
	limit := int64(-1)
	if opts.Limit > 0 {
		limit = int64(opts.Limit)
	}
	args := []driver.NamedValue{{Ordinal: 1, Value: start}, {Ordinal: 2, Value: end}, {Ordinal: 3, Value: limit}}
	rows, err := st.query.QueryContext(context.Background(), args)
	if err != nil {
		return err
	}
	st.busy = true
	defer func() { st.busy = false }()
	return streamRows(rows, fn)
}

// streamRows hands each (key, value) row to fn until fn returns false or the
// rows end, then closes rows.
func streamRows(rows driver.Rows, fn func(key, value []byte) bool) (err error) {
	defer func() {
		if closeErr := rows.Close(); err == nil {
			err = closeErr
		}
	}()
	dest := make([]driver.Value, 2)
	for {
		switch err := rows.Next(dest); err {
		case nil:
		case io.EOF:
			return nil
		default:
			return err
		}
		key, _ := dest[0].([]byte)
		value, _ := dest[1].([]byte)
		if !fn(key, value) {
			return nil
		}
	}
}

// close finalizes every statement and closes the connection.
func (c *conn) close() error {
	var errs []error
	for _, st := range c.stmts {
		errs = append(errs, st.raw.Close())
	}
	c.stmts = nil
	errs = append(errs, c.raw.Close())
	return errors.Join(errs...)
}
