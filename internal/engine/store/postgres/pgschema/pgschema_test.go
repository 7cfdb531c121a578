package pgschema

import (
	"context"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/lazuli-storage/lazuli/internal/engine/store/postgres/pgtest"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

func connect(t *testing.T) *pgxpool.Pool {
	t.Helper()
	pool, err := Connect(context.Background(), pgtest.URL(t), 4)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	return pool
}

// tables lists the tables in schema.
func tables(t *testing.T, pool *pgxpool.Pool, schema string) string {
	t.Helper()
	rows, err := pool.Query(context.Background(),
		"SELECT table_name FROM information_schema.tables WHERE table_schema = $1 ORDER BY 1", schema)
	if err != nil {
		t.Fatal(err)
	}
	names, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	return strings.Join(names, ",")
}

func version(t *testing.T, pool *pgxpool.Pool, schema, component string) int {
	t.Helper()
	var v int
	err := pool.QueryRow(context.Background(),
		"SELECT version FROM "+Ident(schema, "schema_version")+" WHERE component = $1", component).Scan(&v)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// Later builds append steps; only the new ones run.
func TestMigrateAppliesNewSteps(t *testing.T) {
	pool, schema, ctx := connect(t), pgtest.Schema(t), context.Background()
	v1 := []string{"CREATE TABLE a (x int)"}
	if err := Migrate(ctx, pool, schema, "c", v1); err != nil {
		t.Fatal(err)
	}
	if err := Migrate(ctx, pool, schema, "c", v1); err != nil {
		t.Fatalf("second Migrate at the same version: %v", err)
	}
	v2 := append(v1, "CREATE TABLE b (y int); CREATE INDEX ON b (y)")
	if err := Migrate(ctx, pool, schema, "c", v2); err != nil {
		t.Fatal(err)
	}
	if got := tables(t, pool, schema); got != "a,b,schema_version" {
		t.Fatalf("tables %s", got)
	}
	if v := version(t, pool, schema, "c"); v != 2 {
		t.Fatalf("version %d, want 2", v)
	}
}

// A failing step leaves the schema as it was: no partial start.
func TestFailedMigrationChangesNothing(t *testing.T) {
	pool, schema, ctx := connect(t), pgtest.Schema(t), context.Background()
	steps := []string{"CREATE TABLE a (x int)", "CREATE TABLE a (x int)"}
	if err := Migrate(ctx, pool, schema, "c", steps); err == nil || !strings.Contains(err.Error(), "step 2") {
		t.Fatalf("Migrate with a failing step = %v", err)
	}
	if got := tables(t, pool, schema); got != "" {
		t.Fatalf("a failed migration left tables %q", got)
	}
}

// Components sharing a schema, migrating at once from several nodes.
func TestConcurrentComponents(t *testing.T) {
	pool, schema := connect(t), pgtest.Schema(t)
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for i := range 8 {
		wg.Go(func() {
			comp := []string{"store", "extent"}[i%2]
			errs <- Migrate(context.Background(), pool, schema, comp, []string{"CREATE TABLE " + comp + "_t (x int)"})
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if got := tables(t, pool, schema); got != "extent_t,schema_version,store_t" {
		t.Fatalf("tables %s", got)
	}
}

func TestDefaultSchemaIdent(t *testing.T) {
	if got := Ident("", "kv"); got != `"public"."kv"` {
		t.Fatalf("Ident = %s", got)
	}
	if got := Ident(`we"ird`, "kv"); got != `"we""ird"."kv"` {
		t.Fatalf("Ident = %s", got)
	}
}
