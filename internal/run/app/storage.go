package app

import (
	"context"

	"github.com/lazuli-storage/lazuli/internal/engine/extent"
	"github.com/lazuli-storage/lazuli/internal/engine/storage"
	"github.com/lazuli-storage/lazuli/internal/engine/store"
	"github.com/lazuli-storage/lazuli/internal/run/config"
)

// openStorage opens the record store the configuration names and the
// extent engine that goes with it (package storage), keeping small content
// inline in its records.
func openStorage(ctx context.Context, cfg *config.Config) (store.Store, extent.Engine, error) {
	s, err := storage.Open(ctx, cfg.StoreURL(), storage.Options{PostgresConns: cfg.PostgresConns, Inline: true,
		Extents: cfg.Extents})
	if err != nil {
		return nil, nil, err
	}
	return s.Store, s.Extents, nil
}
