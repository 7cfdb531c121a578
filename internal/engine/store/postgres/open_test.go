package postgres

import (
	"context"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/lazuli-storage/lazuli/internal/engine/store"
	"github.com/lazuli-storage/lazuli/internal/engine/store/postgres/pgtest"
)

func TestOpenUnreachable(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close() // nothing listens there now
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	url := "postgres://lazuli:secret-pw@" + addr + "/db?sslmode=disable"
	s, err := Open(ctx, url, Options{})
	if err == nil {
		s.Close()
		t.Fatal("Open succeeded with no server")
	}
	if !strings.Contains(err.Error(), "cannot reach database at 127.0.0.1") || strings.Contains(err.Error(), "secret-pw") {
		t.Fatalf("unclear or leaky error: %v", err)
	}
	if _, err := Open(ctx, "postgres://u:secret-pw@host:notaport/db", Options{}); err == nil || strings.Contains(err.Error(), "secret-pw") {
		t.Fatalf("bad URL: %v", err)
	}
}

// Nodes starting together on an empty schema all succeed.
func TestConcurrentOpens(t *testing.T) {
	schema := pgtest.Schema(t)
	const nodes = 4
	stores := make([]*Store, nodes)
	errs := make([]error, nodes)
	var wg sync.WaitGroup
	for i := range nodes {
		wg.Go(func() {
			stores[i], errs[i] = Open(context.Background(), pgtest.URL(t), Options{Schema: schema, MaxConns: 2})
		})
	}
	wg.Wait()
	for i := range nodes {
		if errs[i] != nil {
			t.Fatalf("Open %d: %v", i, errs[i])
		}
		defer stores[i].Close()
	}
	put(t, stores[0], "k", "v")
	if v, err := get(t, stores[nodes-1], "k"); err != nil || string(v) != "v" {
		t.Fatalf("other node reads %q, %v", v, err)
	}
}

func TestReopenKeepsData(t *testing.T) {
	s, schema := openTest(t)
	put(t, s, "k", "v")
	s.Close()
	s = openAt(t, schema)
	if v, err := get(t, s, "k"); err != nil || string(v) != "v" {
		t.Fatalf("after reopen: %q, %v", v, err)
	}
}

func TestOpenRefusesNewerSchema(t *testing.T) {
	s, schema := openTest(t)
	s.Close()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, pgtest.URL(t))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	table := pgx.Identifier{schema, "schema_version"}.Sanitize()
	if _, err := conn.Exec(ctx, "UPDATE "+table+" SET version = version + 1 WHERE component = 'store'"); err != nil {
		t.Fatal(err)
	}
	s, err = Open(ctx, pgtest.URL(t), Options{Schema: schema})
	if err == nil {
		s.Close()
		t.Fatal("Open accepted a schema from a newer build")
	}
	if !strings.Contains(err.Error(), "newer than this build") {
		t.Fatalf("unclear error: %v", err)
	}
}

var _ store.Store = (*Store)(nil)
