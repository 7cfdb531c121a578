package postgres

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/lazuli-storage/lazuli/internal/engine/store/postgres/pgtest"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

// openTest opens a store in a fresh schema, closed when t ends.
func openTest(t testing.TB) (*Store, string) {
	t.Helper()
	schema := pgtest.Schema(t)
	return openAt(t, schema), schema
}

// openAt opens another handle on schema, as a second node would.
func openAt(t testing.TB, schema string) *Store {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s, err := Open(ctx, pgtest.URL(t), Options{Schema: schema, MaxConns: 4})
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}
