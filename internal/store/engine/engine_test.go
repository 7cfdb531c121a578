package engine

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lazuli-storage/lazuli/internal/store"
	"github.com/lazuli-storage/lazuli/internal/store/memory"
	"github.com/lazuli-storage/lazuli/internal/store/sqlite"
)

func TestOpen(t *testing.T) {
	dbPath := filepath.Join(t.TempDir(), "meta.db")
	for _, c := range []struct {
		url        string
		wantEngine string // "": Open must fail
		wantErr    string
	}{
		{url: "memory:", wantEngine: "memory"},
		{url: "MEMORY:", wantEngine: "memory"},
		{url: "sqlite:" + dbPath, wantEngine: "sqlite"},
		{url: "postgres://user@localhost/lazuli", wantErr: "not wired"},
		{url: "postgresql://user@localhost/lazuli", wantErr: "not wired"},
		{url: "memory:/somewhere", wantErr: "no location"},
		{url: "sqlite:", wantErr: "needs a file path"},
		{url: "mysql://localhost/db", wantErr: "unknown engine"},
		{url: "lazuli.db", wantErr: "names no engine"},
		{url: "", wantErr: "names no engine"},
	} {
		t.Run(c.url, func(t *testing.T) {
			s, err := Open(c.url)
			if c.wantEngine == "" {
				if err == nil {
					s.Close()
					t.Fatalf("Open(%q) succeeded", c.url)
				}
				if !strings.Contains(err.Error(), c.wantErr) {
					t.Fatalf("Open(%q): %v, want an error mentioning %q", c.url, err, c.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("Open(%q): %v", c.url, err)
			}
			defer s.Close()
			if got := engineName(s); got != c.wantEngine {
				t.Fatalf("Open(%q) opened %s, want %s", c.url, got, c.wantEngine)
			}
			roundTrip(t, s)
		})
	}
}

func TestPostgresNotWiredIsRecognisable(t *testing.T) {
	if _, err := Open("postgres://localhost/x"); !errors.Is(err, ErrPostgresNotWired) {
		t.Fatalf("got %v, want ErrPostgresNotWired", err)
	}
}

func engineName(s store.Store) string {
	switch s.(type) {
	case *memory.Store:
		return "memory"
	case *sqlite.Store:
		return "sqlite"
	}
	return "unknown"
}

// roundTrip checks that the opened engine works.
func roundTrip(t *testing.T, s store.Store) {
	ctx := context.Background()
	key := store.NewKey(store.SpaceMeta).Str("engine-test").Bytes()
	if err := s.Update(ctx, func(tx store.Tx) error { return tx.Put(key, []byte("ok")) }); err != nil {
		t.Fatal(err)
	}
	err := s.View(ctx, func(tx store.Tx) error {
		v, err := tx.Get(key)
		if err == nil && string(v) != "ok" {
			t.Errorf("read back %q", v)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}
