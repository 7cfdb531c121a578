// Package sqlite is Lazuli's default store engine: one SQLite database file
// (modernc.org/sqlite, pure Go) in WAL mode with synchronous=FULL, holding
// the records in two tables of (k BLOB PRIMARY KEY, v BLOB): kv, a rowid
// table, for records with content, and kvi, WITHOUT ROWID, for the index
// spaces that are read as ranges (tables.go).
//
// Writes go through a single writer connection with group commit (see
// commit.go): concurrent Updates share one transaction and one fsync, each
// isolated in its own savepoint. Views run on a pool of read connections;
// each View is one read transaction, which in WAL mode is a stable snapshot
// that neither blocks nor waits for the writer.
//
// The database holds one table besides these, lazuli_meta, whose
// schema_version row lets a later release migrate the file or refuse it.
package sqlite

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime"
	"strings"
	"time"

	"github.com/lazuli-storage/lazuli/internal/engine/store"
	"github.com/lazuli-storage/lazuli/internal/engine/store/gate"
)

// schemaVersion is the layout this code reads and writes. Version 1 kept
// every record in kv; version 2 moved the index spaces to kvi.
const schemaVersion = 2

// Options tunes an engine. The zero value is a good default.
type Options struct {
	// ReadConns caps the read connections, and so the Views that run at
	// once; more wait for a free connection. 0 means 2*GOMAXPROCS, at least 4.
	ReadConns int
	// BusyTimeout is how long a statement waits for a lock held by another
	// process opening the same file. 0 means 5 s.
	BusyTimeout time.Duration
	// MaxBatch caps the Updates one group commit carries. 0 means 256.
	MaxBatch int
	// ReadMmapBytes is how much of the file each read connection reads
	// through a memory map (SQLite's mmap_size) rather than with a read
	// call into its own page cache. 0 means defaultReadMmap; negative
	// means none.
	ReadMmapBytes int64
	// Logger receives what Open did to the file (a migration). nil means
	// slog.Default().
	Logger *slog.Logger
}

// defaultReadMmap is the read connections' default map: 256 MiB of address
// space each. The pages behind it are the operating system's file cache,
// shared by every connection and reclaimable, not memory of each
// connection's own. SQLite's page cache (about 2 MB a connection) holds
// a file of 1,000 entities whole; past it, a query by PartitionKey spent
// 16% of its CPU copying pages in with pread (_readDbPage). Mapped, the
// same query over 100,000 entities cost 15% less server CPU (median of
// seven alternate runs, 451 against 528 µs). A page cache of 32 MiB a
// connection instead cost more (707 to 1,260 µs): each connection fills
// its own copy of the file. SQLite's "Memory-Mapped I/O" page lists the
// trade: an I/O error reading mapped pages cannot be returned as an
// error; the process gets SIGBUS.
const defaultReadMmap = 256 << 20

func (o Options) withDefaults() Options {
	if o.ReadConns <= 0 {
		o.ReadConns = max(4, 2*runtime.GOMAXPROCS(0))
	}
	if o.BusyTimeout <= 0 {
		o.BusyTimeout = 5 * time.Second
	}
	if o.MaxBatch <= 0 {
		o.MaxBatch = 256
	}
	switch {
	case o.ReadMmapBytes == 0:
		o.ReadMmapBytes = defaultReadMmap
	case o.ReadMmapBytes < 0:
		o.ReadMmapBytes = 0
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	return o
}

// Store is an open SQLite engine. It is safe for concurrent use.
type Store struct {
	writer  *committer
	readers *readPool
	gate    gate.Gate
}

// ObserveCommits implements store.CommitObserver: fn learns how many
// Updates each group commit carried.
func (s *Store) ObserveCommits(fn func(updates int)) { s.writer.observe.Store(&fn) }

// Open opens the database file at path, creating it if needed.
func Open(path string, opts Options) (*Store, error) {
	if path == "" || strings.Contains(path, "?") {
		// The driver would read anything after '?' as connection options.
		return nil, fmt.Errorf("sqlite: unusable database path %q", path)
	}
	opts = opts.withDefaults()
	w, err := openWriter(path, opts)
	if err != nil {
		return nil, err
	}
	return &Store{
		writer:  newCommitter(w, opts.MaxBatch),
		readers: newReadPool(path, opts),
	}, nil
}

// openWriter opens the writer connection, switches the file to WAL, and
// creates or checks the schema.
func openWriter(path string, opts Options) (*conn, error) {
	c, err := openConn(path, opts)
	if err != nil {
		return nil, err
	}
	if err := setUpWriter(c, opts.Logger.With("path", path)); err != nil {
		c.close()
		return nil, fmt.Errorf("sqlite: %s: %w", path, err)
	}
	return c, nil
}

func setUpWriter(c *conn, log *slog.Logger) error {
	mode, err := c.querySQL("PRAGMA journal_mode = WAL")
	if err != nil {
		return err
	}
	if m, _ := mode.(string); !strings.EqualFold(m, "wal") {
		return fmt.Errorf("journal mode is %v, WAL is required", mode)
	}
	if err := c.execSQL("PRAGMA synchronous = FULL"); err != nil {
		return err
	}
	if err := migrate(c, log); err != nil {
		return err
	}
	return c.prepareWrite()
}

// createKV is the table of a new file's records with content (the index
// spaces are in kvi, see createKVI). It is an ordinary rowid
// table: its primary key index holds only keys (and rowids), and the rows,
// values included, live in the table's own b-tree. Files created before
// declared kv WITHOUT ROWID, which keeps each whole row in the key's b-tree:
// a row longer than about a quarter of a page (a blob record carrying 1 KiB
// of inline content) then spills onto overflow pages, and every key
// comparison that meets such a row while searching the tree reads and
// copies all of it. The rowid layout searches small index cells instead
// (server CPU per 1 KiB Put Blob fell by a fifth, less for Get Blob; a long
// listing costs about 5% more, one row lookup per listed key). Both layouts
// answer the same statements identically, so an older file keeps its kv
// as it is; dump and load rewrite it in this layout.
//
// A rowid table keeps rows in the order they were inserted, not in key
// order. That is why version 2 moved the index spaces out: the tag index
// entries of Find Blobs by Tags, written among the blob records, cost a
// seek to a page of their own each (sqlite3BtreeTableMoveto, 81% of the
// scan), and server CPU per blob found grew from 4.8 µs at 100,000 tagged
// blobs to 17.8 µs at 1,000,000; in kvi it is 2.1 to 2.4 µs and 2.7 µs
// (docs/performance.md, "Growth").
const createKV = "CREATE TABLE IF NOT EXISTS kv (k BLOB PRIMARY KEY NOT NULL, v BLOB NOT NULL)"

// createKVI is the index spaces' table (tables.go).
const createKVI = "CREATE TABLE IF NOT EXISTS kvi (k BLOB PRIMARY KEY NOT NULL, v BLOB NOT NULL) WITHOUT ROWID"

// migrate creates the schema in a new file, migrates a version-1 file, and
// refuses a file of any other version.
//
// It all runs in one transaction, and SQLite's DDL is transactional: a
// crash or an error before COMMIT leaves the file exactly as it was (a
// version-1 file keeps its rows in kv, with no kvi, and is migrated again
// at the next Open); after COMMIT the file is wholly version 2. There is
// no state in between to recover from.
func migrate(c *conn, log *slog.Logger) error {
	if err := c.execSQL("BEGIN IMMEDIATE"); err != nil {
		return err
	}
	from, moved, err := migrateInTransaction(c)
	if err != nil {
		_ = c.execSQL("ROLLBACK")
		return err
	}
	if err := c.execSQL("COMMIT"); err != nil {
		return err
	}
	if from != schemaVersion {
		log.Info("sqlite: migrated the database file; the index spaces' records moved to table kvi",
			"from_version", from, "to_version", schemaVersion, "rows_moved", moved)
	}
	return nil
}

// migrateInTransaction creates or upgrades the schema and returns the
// version the file had and how many rows the upgrade moved.
func migrateInTransaction(c *conn) (from, moved int64, err error) {
	for _, sql := range []string{
		createKV,
		createKVI,
		"CREATE TABLE IF NOT EXISTS lazuli_meta (name TEXT PRIMARY KEY, value INTEGER NOT NULL) WITHOUT ROWID",
		fmt.Sprintf("INSERT INTO lazuli_meta (name, value) VALUES ('schema_version', %d) ON CONFLICT (name) DO NOTHING", schemaVersion),
	} {
		if err := c.execSQL(sql); err != nil {
			return 0, 0, err
		}
	}
	version, err := c.querySQL("SELECT value FROM lazuli_meta WHERE name = 'schema_version'")
	if err != nil {
		return 0, 0, err
	}
	switch version {
	case int64(schemaVersion):
		return schemaVersion, 0, nil
	case int64(1):
		moved, err := moveIndexSpaces(c)
		return 1, moved, err
	}
	return 0, 0, fmt.Errorf("database schema version %v, this build reads only versions 1 (which it migrates) and %d", version, schemaVersion)
}

// moveIndexSpaces upgrades a version-1 file, whose kv holds every record
// (in the rowid layout or the older WITHOUT ROWID one, which stays as it
// is): the index spaces' rows move to kvi. It returns how many moved.
func moveIndexSpaces(c *conn) (int64, error) {
	where := indexSpacesWhere()
	if err := c.execSQL("INSERT INTO kvi (k, v) SELECT k, v FROM kv WHERE " + where); err != nil {
		return 0, err
	}
	moved, err := c.querySQL("SELECT changes()")
	if err != nil {
		return 0, err
	}
	for _, sql := range []string{
		"DELETE FROM kv WHERE " + where,
		fmt.Sprintf("UPDATE lazuli_meta SET value = %d WHERE name = 'schema_version'", schemaVersion),
	} {
		if err := c.execSQL(sql); err != nil {
			return 0, err
		}
	}
	n, _ := moved.(int64)
	return n, nil
}

// View runs fn in a read transaction on a pooled read connection.
func (s *Store) View(ctx context.Context, fn func(store.Tx) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := s.gate.Enter(); err != nil {
		return err
	}
	defer s.gate.Leave()
	c, err := s.readers.acquire(ctx)
	if err != nil {
		return err
	}
	return runView(c, s.readers, fn)
}

// runView runs fn between BEGIN and ROLLBACK on c and returns c to the pool,
// or closes it if its transaction state is in doubt, panics included.
func runView(c *conn, pool *readPool, fn func(store.Tx) error) error {
	if err := c.control(c.begin); err != nil {
		pool.release(c)
		return fmt.Errorf("sqlite: begin read: %w", err)
	}
	tx := &readTx{c: c}
	defer func() {
		tx.done = true
		// A read transaction has nothing to keep; ROLLBACK ends it.
		_ = c.control(c.rollback)
		pool.release(c)
	}()
	return fn(tx)
}

// Update queues fn for the next group commit and waits until that commit is
// durable. fn runs on the committer goroutine, and every other Update waits
// while it runs: it must be short, must not call Update itself and must not
// wait for another Update, or the store deadlocks. A panic in fn is raised
// again in the caller.
func (s *Store) Update(ctx context.Context, fn func(store.Tx) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := s.gate.Enter(); err != nil {
		return err
	}
	defer s.gate.Leave()
	return s.writer.do(ctx, fn)
}

// Close waits for running transactions, stops the committer and closes every
// connection. Later calls, Close included, return store.ErrClosed.
func (s *Store) Close() error {
	if !s.gate.Close() {
		return store.ErrClosed
	}
	s.writer.close()
	return errors.Join(s.writer.c.close(), s.readers.close())
}
