package pgextent

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"sync"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/lazuli-storage/lazuli/internal/engine/extent"
	"github.com/lazuli-storage/lazuli/internal/engine/store/postgres/pgschema"
)

// MaxChunkSize is the largest chunk row, and the default.
const MaxChunkSize = 4 << 20

// Options configure Open.
type Options struct {
	// MaxConns caps the connection pool; 0 uses pgx's default. Each Write,
	// Remove, List and each ReadAt in progress holds one connection.
	MaxConns int
	// Schema holds the engine's tables; "" means "public". It may be the
	// store's schema: table names do not collide.
	Schema string
	// ChunkSize is the size of the chunk rows new extents are split into,
	// 1 to MaxChunkSize bytes; 0 means MaxChunkSize.
	ChunkSize int
}

// component names the engine's tables in the schema_version table.
const component = "extent"

// migrations create and evolve the engine's tables; append only.
var migrations = []string{
	`CREATE TABLE extent (
		id text PRIMARY KEY,
		size bigint,
		md5 bytea,
		chunk integer NOT NULL,
		written timestamptz NOT NULL DEFAULT now(),
		removed boolean NOT NULL DEFAULT false);
	CREATE TABLE extent_chunk (
		id text NOT NULL REFERENCES extent (id) ON DELETE CASCADE,
		seq integer NOT NULL,
		data bytea NOT NULL,
		PRIMARY KEY (id, seq));
	ALTER TABLE extent_chunk ALTER COLUMN data SET STORAGE EXTERNAL;
	CREATE TABLE extent_reader (
		id text NOT NULL REFERENCES extent (id) ON DELETE CASCADE,
		token bigint NOT NULL,
		opened timestamptz NOT NULL DEFAULT now(),
		PRIMARY KEY (id, token));`,
}

// Engine is an extent.Engine on a PostgreSQL database.
type Engine struct {
	pool  *pgxpool.Pool
	sql   statements
	chunk int
	bufs  sync.Pool // *[]byte chunk buffers for Write

	mu     sync.Mutex
	closed bool
	users  int // operations running and readers open: they keep the pool
}

var _ extent.Engine = (*Engine)(nil)

// Open connects to the database at url and creates or migrates the
// engine's tables. Several nodes may Open one database at once. Open fails,
// holding nothing open, when the server cannot be reached.
func Open(ctx context.Context, url string, opts Options) (*Engine, error) {
	chunk := opts.ChunkSize
	if chunk == 0 {
		chunk = MaxChunkSize
	}
	if chunk < 1 || chunk > MaxChunkSize {
		return nil, fmt.Errorf("pgextent: chunk size %d outside 1..%d", chunk, MaxChunkSize)
	}
	pool, err := pgschema.Connect(ctx, url, opts.MaxConns)
	if err != nil {
		return nil, err
	}
	if err := pgschema.Migrate(ctx, pool, opts.Schema, component, migrations); err != nil {
		pool.Close()
		return nil, err
	}
	e := &Engine{pool: pool, chunk: chunk, sql: newStatements(opts.Schema)}
	e.bufs.New = func() any { b := make([]byte, chunk); return &b }
	return e, nil
}

// acquire registers a user of the pool, failing once the engine is closed.
func (e *Engine) acquire() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		return extent.ErrClosed
	}
	e.users++
	return nil
}

// release ends a use of the pool; the last one after Close closes it.
func (e *Engine) release() {
	e.mu.Lock()
	e.users--
	last := e.closed && e.users == 0
	e.mu.Unlock()
	if last {
		e.pool.Close()
	}
}

// Close stops new operations. The pool closes once running operations end
// and open readers are closed, so a Reader opened before Close still reads.
func (e *Engine) Close() error {
	e.mu.Lock()
	already := e.closed
	e.closed = true
	last := !already && e.users == 0
	e.mu.Unlock()
	if last {
		e.pool.Close()
	}
	return nil
}

// newID returns 128 random bits in hex: unique, opaque, safe as a file name.
func newID() (string, error) {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	return hex.EncodeToString(b[:]), nil
}

// background detaches cleanup from a cancelled request, bounded in time.
func background(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.WithoutCancel(ctx), cleanupTimeout)
}
