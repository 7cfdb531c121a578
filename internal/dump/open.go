package dump

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/lazuli-storage/lazuli/internal/extent"
	extentfs "github.com/lazuli-storage/lazuli/internal/extent/fs"
	extentmemory "github.com/lazuli-storage/lazuli/internal/extent/memory"
	"github.com/lazuli-storage/lazuli/internal/extent/pgextent"
	"github.com/lazuli-storage/lazuli/internal/store"
	"github.com/lazuli-storage/lazuli/internal/store/engine"
	"github.com/lazuli-storage/lazuli/internal/store/postgres"
)

// Storage is a record store and the extent engine that goes with it.
type Storage struct {
	Store   store.Store
	Extents extent.Engine
}

// OpenOptions tune Open.
type OpenOptions struct {
	// PostgresConns sizes each connection pool of a postgres store (0:
	// pgx's default), as lazuli --pgConns does.
	PostgresConns int
	// Create makes a sqlite database (and its directory) that does not
	// exist yet, for a load. Without it a missing database is an error, so
	// that a mistyped path is not dumped as an empty store.
	Create bool
}

// Open opens the store a URL names (memory:, sqlite:PATH, postgres://...)
// and its extents where lazuli serve keeps them (internal/app): files in
// "extents" beside a sqlite database, chunk rows in the same PostgreSQL
// database, memory with memory. Unlike serve it opens the extent engine
// bare, without keeping small content inline in IDs: a load must give every
// extent an ID of the engine's own shape to rewrite the records naming it.
// Content a server kept inline travels inside its records anyway.
func Open(ctx context.Context, url string, opts OpenOptions) (*Storage, error) {
	kind, loc, err := engine.Parse(url)
	if err != nil {
		return nil, err
	}
	if kind == engine.SQLite {
		if err := sqliteReady(loc, opts.Create); err != nil {
			return nil, err
		}
	}
	st, err := engine.Open(ctx, url, postgres.Options{MaxConns: opts.PostgresConns})
	if err != nil {
		return nil, fmt.Errorf("store: %w", err)
	}
	var ext extent.Engine
	switch kind {
	case engine.Memory:
		ext = extentmemory.New()
	case engine.SQLite:
		ext, err = extentfs.Open(filepath.Join(filepath.Dir(loc), "extents"))
	case engine.Postgres:
		ext, err = pgextent.Open(ctx, loc, pgextent.Options{MaxConns: opts.PostgresConns})
	}
	if err != nil {
		return nil, errors.Join(fmt.Errorf("extents: %w", err), st.Close())
	}
	return &Storage{Store: st, Extents: ext}, nil
}

// sqliteReady checks that a database to read exists, or makes the
// directory of one to create.
func sqliteReady(path string, create bool) error {
	if create {
		return os.MkdirAll(filepath.Dir(path), 0o755)
	}
	if _, err := os.Stat(path); err != nil {
		return fmt.Errorf("no sqlite database to open: %w", err)
	}
	return nil
}

// Close closes the extent engine and the store.
func (s *Storage) Close() error { return errors.Join(s.Extents.Close(), s.Store.Close()) }
