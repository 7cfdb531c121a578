package dump

import (
	"context"

	"github.com/lazuli-storage/lazuli/internal/engine/storage"
)

// Storage is a record store and the extent engine that goes with it.
type Storage = storage.Storage

// OpenOptions tune Open.
type OpenOptions struct {
	// PostgresConns sizes each connection pool of a postgres store (0:
	// pgx's default), as lazuli --pgConns does.
	PostgresConns int
	// Create makes a sqlite database (and its directory) that does not
	// exist yet, for a load. Without it a missing database is an error, so
	// that a mistyped path is not dumped as an empty store.
	Create bool
	// Extents names where the store's content lives when it is not beside
	// the store, as lazuli --extents does (s3://BUCKET/PREFIX?...); empty
	// for the default place.
	Extents string
}

// Open opens the store a URL names (memory:, sqlite:PATH, postgres://...)
// and its extents where lazuli serve keeps them (package storage). Unlike
// serve it opens the extent engine bare, without keeping small content
// inline in IDs: a load must give every extent an ID of the engine's own
// shape to rewrite the records naming it. Content a server kept inline
// travels inside its records anyway.
func Open(ctx context.Context, url string, opts OpenOptions) (*Storage, error) {
	return storage.Open(ctx, url, storage.Options{PostgresConns: opts.PostgresConns, Existing: !opts.Create, Extents: opts.Extents})
}
