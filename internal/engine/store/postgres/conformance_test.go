package postgres

import (
	"context"
	"testing"

	"github.com/lazuli-storage/lazuli/internal/engine/store"
	"github.com/lazuli-storage/lazuli/internal/engine/store/postgres/pgtest"
	"github.com/lazuli-storage/lazuli/internal/engine/store/storetest"
)

// A location is a schema in the test database; two Opens of one schema are
// two nodes sharing it.
func TestConformance(t *testing.T) {
	storetest.Run(t, storetest.Engine{
		Name:        "postgres",
		NewLocation: func(t testing.TB) string { return pgtest.Schema(t) },
		Open: func(t testing.TB, schema string) (store.Store, error) {
			return Open(context.Background(), pgtest.URL(t), Options{Schema: schema, MaxConns: 4})
		},
		Persistent:      true,
		Shared:          true,
		ConflictRetries: true,
	})
}
