// Package engine opens the store engine a URL names, so that configuration
// can choose one with a single string:
//
//	memory:             an empty in-process store (--inMemoryPersistence)
//	sqlite:PATH         the SQLite database file PATH, created if missing
//	postgres://...      PostgreSQL (postgresql:// too)
//
// It is the one place that knows every engine, so the rest of Lazuli
// depends only on package store.
package engine

import (
	"context"
	"fmt"
	"strings"

	"github.com/lazuli-storage/lazuli/internal/engine/store"
	"github.com/lazuli-storage/lazuli/internal/engine/store/memory"
	"github.com/lazuli-storage/lazuli/internal/engine/store/postgres"
	"github.com/lazuli-storage/lazuli/internal/engine/store/sqlite"
)

// Kind names an engine.
type Kind string

// Engine kinds.
const (
	Memory   Kind = "memory"
	SQLite   Kind = "sqlite"
	Postgres Kind = "postgres"
)

// Parse splits a store URL into its kind and location (the file path for
// sqlite, the whole URL for postgres, "" for memory).
func Parse(url string) (Kind, string, error) {
	scheme, rest, ok := strings.Cut(url, ":")
	if !ok {
		return "", "", fmt.Errorf("engine: %q names no engine: want memory:, sqlite:PATH or postgres://HOST/DB", url)
	}
	switch strings.ToLower(scheme) {
	case "memory":
		if rest != "" {
			return "", "", fmt.Errorf("engine: %q: the memory engine takes no location", url)
		}
		return Memory, "", nil
	case "sqlite":
		if rest == "" {
			return "", "", fmt.Errorf("engine: %q: sqlite needs a file path, as in sqlite:./lazuli-data/lazuli.db", url)
		}
		return SQLite, rest, nil
	case "postgres", "postgresql":
		return Postgres, url, nil
	}
	return "", "", fmt.Errorf("engine: %q: unknown engine %q: want memory, sqlite or postgres", url, scheme)
}

// Open opens the engine a URL names; pgOpts tune a postgres engine.
func Open(ctx context.Context, url string, pgOpts postgres.Options) (store.Store, error) {
	kind, loc, err := Parse(url)
	if err != nil {
		return nil, err
	}
	switch kind {
	case Memory:
		return memory.New(), nil
	case SQLite:
		return sqlite.Open(loc, sqlite.Options{})
	default:
		return postgres.Open(ctx, loc, pgOpts)
	}
}
