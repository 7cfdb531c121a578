package engine

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lazuli-storage/lazuli/internal/engine/store"
	"github.com/lazuli-storage/lazuli/internal/engine/store/memory"
	"github.com/lazuli-storage/lazuli/internal/engine/store/postgres"
	"github.com/lazuli-storage/lazuli/internal/engine/store/sqlite"
)

func TestParse(t *testing.T) {
	cases := []struct {
		url     string
		kind    Kind
		loc     string
		wantErr string
	}{
		{url: "memory:", kind: Memory},
		{url: "MEMORY:", kind: Memory},
		{url: "sqlite:/data/l.db", kind: SQLite, loc: "/data/l.db"},
		{url: "sqlite:./x.db", kind: SQLite, loc: "./x.db"},
		{url: "postgres://u@h:5432/db?sslmode=disable", kind: Postgres, loc: "postgres://u@h:5432/db?sslmode=disable"},
		{url: "postgresql://u@h/db", kind: Postgres, loc: "postgresql://u@h/db"},
		{url: "memory:/somewhere", wantErr: "no location"},
		{url: "sqlite:", wantErr: "needs a file path"},
		{url: "mysql://localhost/db", wantErr: "unknown engine"},
		{url: "lazuli.db", wantErr: "names no engine"},
		{url: "", wantErr: "names no engine"},
	}
	for _, c := range cases {
		kind, loc, err := Parse(c.url)
		if c.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), c.wantErr) {
				t.Errorf("Parse(%q): error %v, want %q", c.url, err, c.wantErr)
			}
			continue
		}
		if err != nil || kind != c.kind || loc != c.loc {
			t.Errorf("Parse(%q) = %q, %q, %v", c.url, kind, loc, err)
		}
	}
}

func TestOpenLocalEngines(t *testing.T) {
	for _, c := range []struct {
		url  string
		want store.Store
	}{
		{"memory:", &memory.Store{}},
		{"sqlite:" + filepath.Join(t.TempDir(), "s.db"), &sqlite.Store{}},
	} {
		st, err := Open(context.Background(), c.url, postgres.Options{})
		if err != nil {
			t.Fatalf("%s: %v", c.url, err)
		}
		if got, want := typeName(st), typeName(c.want); got != want {
			t.Errorf("%s: opened %s, want %s", c.url, got, want)
		}
		if err := st.Close(); err != nil {
			t.Errorf("%s: close: %v", c.url, err)
		}
	}
}

func TestOpenUnreachablePostgres(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5e9)
	defer cancel()
	if _, err := Open(ctx, "postgres://nobody@127.0.0.1:1/none?sslmode=disable&connect_timeout=2", postgres.Options{}); err == nil {
		t.Fatal("opening an unreachable postgres must fail")
	}
}

func typeName(s store.Store) string {
	switch s.(type) {
	case *memory.Store:
		return "memory"
	case *sqlite.Store:
		return "sqlite"
	}
	return "other"
}
