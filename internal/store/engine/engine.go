// Package engine opens the store engine a URL names, so that configuration
// can choose one with a single string:
//
//	memory:             an empty in-process store (--inMemoryPersistence)
//	sqlite:PATH         the SQLite database file PATH, created if missing
//	postgres://...      PostgreSQL (postgresql:// too)
package engine

import (
	"errors"
	"fmt"
	"strings"

	"github.com/lazuli-storage/lazuli/internal/store"
	"github.com/lazuli-storage/lazuli/internal/store/memory"
	"github.com/lazuli-storage/lazuli/internal/store/sqlite"
)

// ErrPostgresNotWired is returned for postgres URLs until this package opens
// the postgres engine.
var ErrPostgresNotWired = errors.New("engine: the postgres engine is not wired yet")

// Open opens the engine named by url.
func Open(url string) (store.Store, error) {
	scheme, rest, ok := strings.Cut(url, ":")
	if !ok {
		return nil, fmt.Errorf("engine: %q names no engine: want memory:, sqlite:PATH or postgres://...", url)
	}
	switch strings.ToLower(scheme) {
	case "memory":
		if rest != "" {
			return nil, fmt.Errorf("engine: %q: the memory engine takes no location", url)
		}
		return memory.New(), nil
	case "sqlite":
		if rest == "" {
			return nil, fmt.Errorf("engine: %q: sqlite needs a file path, as in sqlite:./lazuli-data/lazuli.db", url)
		}
		return sqlite.Open(rest, sqlite.Options{})
	case "postgres", "postgresql":
		return nil, ErrPostgresNotWired
	default:
		return nil, fmt.Errorf("engine: %q: unknown engine %q: want memory, sqlite or postgres", url, scheme)
	}
}
