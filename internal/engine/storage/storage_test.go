package storage

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lazuli-storage/lazuli/internal/engine/extent"
)

func TestOpen(t *testing.T) {
	dir := t.TempDir()
	existing := filepath.Join(dir, "existing", "l.db")
	s, err := Open(context.Background(), "sqlite:"+existing, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, url  string
		opts       Options
		wantErr    string
		wantInline bool
		extentsDir string
	}{
		{name: "memory, bare", url: "memory:"},
		{name: "memory, inline", url: "memory:", opts: Options{Inline: true}, wantInline: true},
		{name: "sqlite creates its directory", url: "sqlite:" + filepath.Join(dir, "new", "deeper", "l.db"),
			opts: Options{Inline: true}, wantInline: true, extentsDir: filepath.Join(dir, "new", "deeper", "extents")},
		{name: "sqlite that must exist and does", url: "sqlite:" + existing, opts: Options{Existing: true},
			extentsDir: filepath.Join(dir, "existing", "extents")},
		{name: "sqlite that must exist and does not", url: "sqlite:" + filepath.Join(dir, "typo", "l.db"),
			opts: Options{Existing: true}, wantErr: "no sqlite database to open"},
		{name: "unknown engine", url: "mongodb://x", wantErr: "mongodb"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := Open(context.Background(), tt.url, tt.opts)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err %v, want one mentioning %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			info, err := s.Extents.Write(context.Background(), strings.NewReader("small"), 100)
			if err != nil {
				t.Fatal(err)
			}
			if got := extent.IsInline(info.ID); got != tt.wantInline {
				t.Errorf("small content inline: %v, want %v", got, tt.wantInline)
			}
			if tt.extentsDir != "" {
				if fi, err := os.Stat(tt.extentsDir); err != nil || !fi.IsDir() {
					t.Errorf("extent directory %s: %v", tt.extentsDir, err)
				}
			}
		})
	}
	if _, err := os.Stat(filepath.Join(dir, "typo")); !os.IsNotExist(err) {
		t.Errorf("opening a database that must exist created its directory: %v", err)
	}
}
