package pgextent

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/lazuli-storage/lazuli/internal/engine/store/postgres/pgtest"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

// openTest opens an engine with the given chunk size in a fresh schema,
// closed when t ends.
func openTest(t testing.TB, chunk int) (*Engine, string) {
	t.Helper()
	schema := pgtest.Schema(t)
	return openAt(t, schema, chunk), schema
}

func openAt(t testing.TB, schema string, chunk int) *Engine {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	e, err := Open(ctx, pgtest.URL(t), Options{Schema: schema, MaxConns: 4, ChunkSize: chunk})
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}
