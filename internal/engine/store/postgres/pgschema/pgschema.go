// Package pgschema connects to PostgreSQL and creates or migrates the tables
// of Lazuli's PostgreSQL engines (the record store and the extent engine).
//
// Each engine is a component with its own ordered list of migration steps;
// a shared schema_version table records how many steps of each component a
// schema has applied. Migration runs in one transaction under an advisory
// lock keyed by the schema name, so two nodes opening the same database at
// once neither fail nor apply a step twice, and a failed migration leaves
// nothing behind (PostgreSQL DDL is transactional).
package pgschema

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// DefaultSchema is used when an engine is given no schema.
const DefaultSchema = "public"

// connectTimeout bounds the first connection when neither the URL
// (connect_timeout) nor the caller's context sets a limit, so a wrong address
// fails Open promptly instead of hanging for pgx's default two minutes.
const connectTimeout = 10 * time.Second

// Connect opens a pool of at most maxConns connections (pgx's default when
// maxConns <= 0) and checks that the server answers. The error names the
// host, port and database but never the password.
func Connect(ctx context.Context, url string, maxConns int) (*pgxpool.Pool, error) {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		// The parse error may quote the URL, password included: do not wrap it.
		return nil, errors.New("postgres: invalid connection URL")
	}
	if maxConns > 0 {
		cfg.MaxConns = int32(maxConns)
	}
	if cfg.ConnConfig.ConnectTimeout <= 0 {
		cfg.ConnConfig.ConnectTimeout = connectTimeout
	}
	where := fmt.Sprintf("%s:%d/%s", cfg.ConnConfig.Host, cfg.ConnConfig.Port, cfg.ConnConfig.Database)
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("postgres: cannot reach database at %s: %w", where, err)
	}
	pingCtx, cancel := context.WithTimeout(ctx, cfg.ConnConfig.ConnectTimeout)
	defer cancel()
	if err := pool.Ping(pingCtx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("postgres: cannot reach database at %s: %w", where, err)
	}
	return pool, nil
}

// Ident returns schema.name quoted for use in SQL text.
func Ident(schema, name string) string {
	return pgx.Identifier{schemaOrDefault(schema), name}.Sanitize()
}

func schemaOrDefault(schema string) string {
	if schema == "" {
		return DefaultSchema
	}
	return schema
}

// Migrate brings component's tables in schema up to date by running the steps
// it has not applied yet, in order. Step i (0-based) moves the component from
// version i to i+1; steps are written without schema qualification because
// Migrate sets the search path to schema while they run. A step list, once
// released, is only ever appended to. Migrate fails, changing nothing, when
// the schema records a newer version than len(steps): that database belongs
// to a newer build.
func Migrate(ctx context.Context, pool *pgxpool.Pool, schema, component string, steps []string) error {
	schema = schemaOrDefault(schema)
	err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		return migrateTx(ctx, tx, schema, component, steps)
	})
	if err != nil {
		return fmt.Errorf("postgres: migrating %s tables in schema %q: %w", component, schema, err)
	}
	return nil
}

func migrateTx(ctx context.Context, tx pgx.Tx, schema, component string, steps []string) error {
	if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock($1)", lockKey(schema)); err != nil {
		return err
	}
	if err := ensureSchema(ctx, tx, schema); err != nil {
		return err
	}
	quoted := pgx.Identifier{schema}.Sanitize()
	if _, err := tx.Exec(ctx, "SET LOCAL search_path TO "+quoted); err != nil {
		return err
	}
	_, err := tx.Exec(ctx, `CREATE TABLE IF NOT EXISTS schema_version (
		component text PRIMARY KEY,
		version integer NOT NULL)`)
	if err != nil {
		return err
	}
	var version int
	err = tx.QueryRow(ctx, "SELECT version FROM schema_version WHERE component = $1", component).Scan(&version)
	if err != nil && !errors.Is(err, pgx.ErrNoRows) {
		return err
	}
	if version > len(steps) {
		return fmt.Errorf("schema is at version %d, newer than this build supports (%d)", version, len(steps))
	}
	for i := version; i < len(steps); i++ {
		if _, err := tx.Exec(ctx, steps[i]); err != nil {
			return fmt.Errorf("step %d: %w", i+1, err)
		}
	}
	if version == len(steps) {
		return nil
	}
	_, err = tx.Exec(ctx, `INSERT INTO schema_version (component, version) VALUES ($1, $2)
		ON CONFLICT (component) DO UPDATE SET version = EXCLUDED.version`, component, len(steps))
	return err
}

// ensureSchema creates schema unless it exists. It looks first rather than
// using CREATE SCHEMA IF NOT EXISTS, which demands the CREATE privilege on
// the database even when the schema is already there.
func ensureSchema(ctx context.Context, tx pgx.Tx, schema string) error {
	var exists bool
	err := tx.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM pg_namespace WHERE nspname = $1)", schema).Scan(&exists)
	if err != nil || exists {
		return err
	}
	_, err = tx.Exec(ctx, "CREATE SCHEMA "+pgx.Identifier{schema}.Sanitize())
	return err
}

// lockKey is the advisory lock serializing migrations of one schema. Every
// component uses the same key, since they share the schema_version table.
func lockKey(schema string) int64 {
	h := fnv.New64a()
	h.Write([]byte("lazuli-migrate\x00"))
	h.Write([]byte(schema))
	return int64(h.Sum64())
}
