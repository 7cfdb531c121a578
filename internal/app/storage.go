package app

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/lazuli-storage/lazuli/internal/config"
	"github.com/lazuli-storage/lazuli/internal/extent"
	extentfs "github.com/lazuli-storage/lazuli/internal/extent/fs"
	extentmemory "github.com/lazuli-storage/lazuli/internal/extent/memory"
	"github.com/lazuli-storage/lazuli/internal/extent/pgextent"
	"github.com/lazuli-storage/lazuli/internal/store"
	"github.com/lazuli-storage/lazuli/internal/store/engine"
	"github.com/lazuli-storage/lazuli/internal/store/postgres"
)

// openStorage opens the record store and the extent engine that goes with
// it: memory with memory, files beside a sqlite database, and chunk rows in
// the same database for postgres (so every node sees every extent).
func openStorage(ctx context.Context, cfg *config.Config) (store.Store, extent.Engine, error) {
	url := cfg.StoreURL()
	kind, loc, err := engine.Parse(url)
	if err != nil {
		return nil, nil, err
	}
	if kind == engine.SQLite {
		if err := os.MkdirAll(filepath.Dir(loc), 0o755); err != nil {
			return nil, nil, fmt.Errorf("data directory: %w", err)
		}
	}
	pgOpts := postgres.Options{MaxConns: cfg.PostgresConns}
	st, err := engine.Open(ctx, url, pgOpts)
	if err != nil {
		return nil, nil, fmt.Errorf("store: %w", err)
	}
	var ext extent.Engine
	switch kind {
	case engine.Memory:
		ext = extentmemory.New()
	case engine.SQLite:
		ext, err = extentfs.Open(filepath.Join(filepath.Dir(loc), "extents"))
	case engine.Postgres:
		ext, err = pgextent.Open(ctx, loc, pgextent.Options{MaxConns: cfg.PostgresConns})
	}
	if err != nil {
		return nil, nil, errors.Join(fmt.Errorf("extents: %w", err), st.Close())
	}
	// Small content rides inside its metadata record: no file, no extra
	// fsync, durable with the record's own commit.
	return st, extent.Inline(ext, extent.DefaultInlineLimit), nil
}
