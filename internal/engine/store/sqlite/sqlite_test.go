package sqlite

import (
	"context"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lazuli-storage/lazuli/internal/engine/store"
	"github.com/lazuli-storage/lazuli/internal/engine/store/storetest"
)

func TestConformance(t *testing.T) {
	storetest.Run(t, storetest.Engine{
		Name:        "sqlite",
		NewLocation: func(t testing.TB) string { return t.TempDir() },
		Open: func(_ testing.TB, dir string) (store.Store, error) {
			return Open(filepath.Join(dir, "lazuli.db"), Options{})
		},
		Persistent: true,
	})
}

// TestConformanceOfWithoutRowidFiles runs the same contract over a file
// whose kv table has the WITHOUT ROWID layout of earlier releases, which
// Open migrates to version 2 and keeps using as it is.
func TestConformanceOfWithoutRowidFiles(t *testing.T) {
	storetest.Run(t, storetest.Engine{
		Name: "sqlite-without-rowid",
		NewLocation: func(t testing.TB) string {
			dir := t.TempDir()
			createWithoutRowidFile(t, filepath.Join(dir, "lazuli.db"))
			return dir
		},
		Open: func(_ testing.TB, dir string) (store.Store, error) {
			return Open(filepath.Join(dir, "lazuli.db"), Options{Logger: slog.New(slog.DiscardHandler)})
		},
		Persistent: true,
	})
}

func createWithoutRowidFile(t testing.TB, path string) {
	t.Helper()
	c, err := openConn(path, Options{}.withDefaults())
	if err != nil {
		t.Fatal(err)
	}
	defer c.close()
	for _, sql := range []string{
		"PRAGMA journal_mode = WAL",
		"CREATE TABLE kv (k BLOB PRIMARY KEY, v BLOB NOT NULL) WITHOUT ROWID",
		"CREATE TABLE lazuli_meta (name TEXT PRIMARY KEY, value INTEGER NOT NULL) WITHOUT ROWID",
		"INSERT INTO lazuli_meta (name, value) VALUES ('schema_version', 1)",
	} {
		if err := c.execSQL(sql); err != nil {
			t.Fatal(err)
		}
	}
}

// TestOpenKeepsTheFilesLayout checks which layout the conformance runs
// above exercise: a new file gets the rowid table, an older file keeps its
// WITHOUT ROWID table.
func TestOpenKeepsTheFilesLayout(t *testing.T) {
	for _, tc := range []struct {
		name             string
		older            bool
		wantWithoutRowid bool
	}{
		{"new file", false, false},
		{"older file", true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "lazuli.db")
			if tc.older {
				createWithoutRowidFile(t, path)
			}
			s, err := Open(path, Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			ddl, err := s.writer.c.querySQL("SELECT sql FROM sqlite_schema WHERE name = 'kv'")
			if err != nil {
				t.Fatal(err)
			}
			sql, _ := ddl.(string)
			if got := strings.Contains(sql, "WITHOUT ROWID"); got != tc.wantWithoutRowid {
				t.Fatalf("kv is %q", sql)
			}
		})
	}
}

// TestReadConnectionsMapTheFile checks the map each read connection is
// opened with: defaultReadMmap unless the options say otherwise, none
// when they ask for none.
func TestReadConnectionsMapTheFile(t *testing.T) {
	for _, tc := range []struct {
		name string
		opt  int64
		want int64
	}{
		{"default", 0, defaultReadMmap},
		{"chosen", 64 << 20, 64 << 20},
		{"none", -1, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := Open(filepath.Join(t.TempDir(), "lazuli.db"), Options{ReadMmapBytes: tc.opt})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			c, err := s.readers.acquire(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			defer s.readers.release(c)
			got, err := c.querySQL("PRAGMA mmap_size")
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Fatalf("mmap_size %v, want %d", got, tc.want)
			}
		})
	}
}
