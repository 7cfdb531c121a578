package pgextent

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/lazuli-storage/lazuli/internal/engine/store/postgres/pgschema"
)

const (
	// readerTTL is how long a registered reader keeps a removed extent's
	// rows. It only matters for readers whose process died without closing
	// them; a live reader open longer than this may fail after a Remove.
	readerTTL = "24 hours"
	// cleanupTimeout bounds the statements that undo a failed Write or
	// unregister a reader after the caller's context ended.
	cleanupTimeout = 30 * time.Second
	// listPage is how many extents List reads per query.
	listPage = 1000
)

// statements is the engine's SQL with schema-qualified table names.
type statements struct {
	create, chunk, finish, discard string
	open, chunks, unregister       string
	lock, purge, markRemoved, list string
}

func newStatements(schema string) statements {
	ext := pgschema.Ident(schema, "extent")
	chunk := pgschema.Ident(schema, "extent_chunk")
	reader := pgschema.Ident(schema, "extent_reader")
	return statements{
		create: "INSERT INTO " + ext + " (id, chunk) VALUES ($1, $2)",
		// Touching written with every chunk keeps a progressing upload young
		// in List; the foreign key fails the insert if the extent was removed.
		chunk: "WITH touch AS (UPDATE " + ext + " SET written = now() WHERE id = $1) " +
			"INSERT INTO " + chunk + " (id, seq, data) VALUES ($1, $2, $3)",
		finish: "UPDATE " + ext + " SET size = $2, md5 = $3, written = now() " +
			"WHERE id = $1 AND size IS NULL AND NOT removed",
		discard: "DELETE FROM " + ext + " WHERE id = $1",
		// FOR SHARE makes a concurrent Remove wait for this registration
		// (or this Open wait for the Remove, then skip the removed row).
		open: "WITH e AS (SELECT id, size, chunk FROM " + ext +
			" WHERE id = $1 AND size IS NOT NULL AND NOT removed FOR SHARE), " +
			"r AS (INSERT INTO " + reader + " (id, token) SELECT id, $2 FROM e) " +
			"SELECT size, chunk FROM e",
		chunks: "SELECT seq, data FROM " + chunk + " WHERE id = $1 AND seq BETWEEN $2 AND $3 ORDER BY seq",
		// FOR UPDATE serializes closing readers of one extent, so the last
		// to commit sees every other reader gone when it purges.
		unregister: "WITH e AS (SELECT removed FROM " + ext + " WHERE id = $1 FOR UPDATE), " +
			"d AS (DELETE FROM " + reader + " WHERE id = $1 AND token = $2) " +
			"SELECT removed FROM e",
		lock: "SELECT 1 FROM " + ext + " WHERE id = $1 FOR UPDATE",
		purge: "DELETE FROM " + ext + " WHERE id = $1 AND NOT EXISTS (SELECT 1 FROM " + reader +
			" WHERE id = $1 AND opened > now() - interval '" + readerTTL + "')",
		markRemoved: "UPDATE " + ext + " SET removed = true WHERE id = $1",
		list: "SELECT id, extract(epoch FROM now() - written)::float8 FROM " + ext +
			" WHERE id > $1 ORDER BY id LIMIT $2",
	}
}

// relaxed runs one reader-bookkeeping statement in one round trip, in a
// transaction that commits without waiting for its WAL flush
// (synchronous_commit off), scanning its single row into dst when dst is
// given. Registering and unregistering a reader would otherwise cost two
// disk flushes per download. Losing the last moments of these statements
// to a server crash is harmless: a lost registration only matters if the
// extent is removed while that reader still reads, and a lost unregistration
// delays collection until readerTTL.
func (e *Engine) relaxed(ctx context.Context, sql string, args []any, dst ...any) error {
	var b pgx.Batch
	b.Queue("BEGIN")
	b.Queue("SET LOCAL synchronous_commit TO off")
	q := b.Queue(sql, args...)
	if len(dst) > 0 {
		q.QueryRow(func(row pgx.Row) error { return row.Scan(dst...) })
	}
	b.Queue("COMMIT")
	return e.pool.SendBatch(ctx, &b).Close()
}
