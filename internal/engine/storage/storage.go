// Package storage opens a record store and the extent engine that goes with
// it from one store URL (memory:, sqlite:PATH, postgres://...): memory
// extents with a memory store, extent files in "extents" beside a sqlite
// database, and chunk rows in the same PostgreSQL database, so that every
// node sees every extent. Options.Extents puts the extents elsewhere: an
// s3:// URL keeps them in an S3 bucket (package s3extent) beside a store of
// any kind. The server (internal/run/app) and dump and load
// (internal/tool/dump) open storage the same way through it, so a dump reads
// the extents a server wrote.
package storage

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/lazuli-storage/lazuli/internal/engine/extent"
	extentfs "github.com/lazuli-storage/lazuli/internal/engine/extent/fs"
	extentmemory "github.com/lazuli-storage/lazuli/internal/engine/extent/memory"
	"github.com/lazuli-storage/lazuli/internal/engine/extent/pgextent"
	"github.com/lazuli-storage/lazuli/internal/engine/extent/s3extent"
	"github.com/lazuli-storage/lazuli/internal/engine/store"
	"github.com/lazuli-storage/lazuli/internal/engine/store/engine"
	"github.com/lazuli-storage/lazuli/internal/engine/store/postgres"
)

// Storage is a record store and the extent engine that goes with it.
type Storage struct {
	Store   store.Store
	Extents extent.Engine
}

// Options tune Open.
type Options struct {
	// PostgresConns sizes each connection pool of a postgres store (0:
	// pgx's default).
	PostgresConns int
	// Inline keeps small content inside its metadata record (no file, no
	// extra fsync, durable with the record's own commit), as the server
	// does. Without it the extent engine is opened bare, as dump and load
	// need: a load must give every extent an ID of the engine's own shape.
	Inline bool
	// Existing refuses a sqlite database that does not exist yet, so that
	// a mistyped path is not read as an empty store. Without it the
	// database and its directory are created.
	Existing bool
	// Extents, when set, is where the extents live instead of beside the
	// store: s3://BUCKET/PREFIX?endpoint=HOST:PORT&region=R&secure=false,
	// with credentials from AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY.
	Extents string
}

// Open opens the store url names and its extents.
func Open(ctx context.Context, url string, opts Options) (*Storage, error) {
	kind, loc, err := engine.Parse(url)
	if err != nil {
		return nil, err
	}
	if kind == engine.SQLite {
		if err := sqliteReady(loc, opts.Existing); err != nil {
			return nil, err
		}
	}
	st, err := engine.Open(ctx, url, postgres.Options{MaxConns: opts.PostgresConns})
	if err != nil {
		return nil, fmt.Errorf("store: %w", err)
	}
	var ext extent.Engine
	switch {
	case opts.Extents != "":
		ext, err = openExtents(ctx, opts.Extents)
	case kind == engine.Memory:
		ext = extentmemory.New()
	case kind == engine.SQLite:
		ext, err = extentfs.Open(filepath.Join(filepath.Dir(loc), "extents"))
	case kind == engine.Postgres:
		ext, err = pgextent.Open(ctx, loc, pgextent.Options{MaxConns: opts.PostgresConns})
	}
	if err != nil {
		return nil, errors.Join(fmt.Errorf("extents: %w", err), st.Close())
	}
	if opts.Inline {
		ext = extent.Inline(ext, extent.DefaultInlineLimit)
	}
	return &Storage{Store: st, Extents: ext}, nil
}

// openExtents opens the extent engine an --extents URL names; s3:// is the
// one kind that lives apart from the store.
func openExtents(ctx context.Context, url string) (extent.Engine, error) {
	if !strings.HasPrefix(url, "s3://") {
		return nil, fmt.Errorf("%q: want s3://BUCKET/PREFIX?endpoint=HOST:PORT, or none to keep extents beside the store", url)
	}
	loc, err := s3extent.ParseURL(url)
	if err != nil {
		return nil, err
	}
	return s3extent.Open(ctx, loc, s3extent.Options{})
}

// sqliteReady checks that a database that must exist does, or makes the
// directory of one to create.
func sqliteReady(path string, existing bool) error {
	if !existing {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return fmt.Errorf("data directory: %w", err)
		}
		return nil
	}
	if _, err := os.Stat(path); err != nil {
		return fmt.Errorf("no sqlite database to open: %w", err)
	}
	return nil
}

// Close closes the extent engine and the store.
func (s *Storage) Close() error { return errors.Join(s.Extents.Close(), s.Store.Close()) }
