package storage

import (
	"context"
	neturl "net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/lazuli-storage/lazuli/internal/engine/extent"
	"github.com/lazuli-storage/lazuli/internal/engine/extent/s3extent"
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
		{name: "extents of an unknown kind", url: "memory:", opts: Options{Extents: "file:/x"}, wantErr: "want s3://"},
		{name: "extents with a misspelt parameter", url: "memory:", opts: Options{Extents: "s3://b?endpiont=x"},
			wantErr: `unknown parameter "endpiont"`},
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

// With --extents s3://..., content goes to the bucket, not beside the store.
func TestOpenS3Extents(t *testing.T) {
	url := os.Getenv("LAZULI_TEST_S3")
	if url == "" {
		if os.Getenv("CI") != "" {
			t.Fatal("no S3 server in CI: set LAZULI_TEST_S3 (scripts/s3.sh start prints it)")
		}
		t.Skip("no S3 server: set LAZULI_TEST_S3 to an s3:// URL (scripts/s3.sh start prints one)")
	}
	u, err := neturl.Parse(url)
	if err != nil {
		t.Fatal(err)
	}
	// A prefix of its own, so that runs do not meet.
	u.Path += "/storage-" + strconv.FormatInt(time.Now().UnixNano(), 36)
	dir := t.TempDir()
	s, err := Open(context.Background(), "sqlite:"+filepath.Join(dir, "l.db"), Options{Extents: u.String()})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	info, err := s.Extents.Write(context.Background(), strings.NewReader("on s3"), -1)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Extents.Remove(context.Background(), info.ID)
	if _, err := os.Stat(filepath.Join(dir, "extents")); !os.IsNotExist(err) {
		t.Errorf("an extent directory was made beside the store: %v", err)
	}
	if _, ok := s.Extents.(*s3extent.Engine); !ok {
		t.Fatalf("extents engine %T, want *s3extent.Engine", s.Extents)
	}
}
