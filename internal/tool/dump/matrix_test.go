package dump_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/lazuli-storage/lazuli/internal/check/lazulitest"
	"github.com/lazuli-storage/lazuli/internal/engine/store/postgres/pgtest"
	"github.com/lazuli-storage/lazuli/internal/tool/dump"
	"github.com/lazuli-storage/lazuli/internal/tool/dump/dumptest"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

var kinds = []string{"memory", "sqlite", "postgres"}

// storeURL returns a new, empty store of the given kind as lazuli serve
// would open it ("memory:" cannot be opened twice to the same data).
func storeURL(t *testing.T, kind string) string {
	switch kind {
	case "memory":
		return "memory:"
	case "sqlite":
		return "sqlite:" + filepath.Join(t.TempDir(), "lazuli.db")
	default:
		return lazulitest.PostgresDatabase(t, pgtest.URL(t))
	}
}

// openTarget opens a store URL with Open, which lays the engines out as
// lazuli serve does, so that a server can be started on them afterwards.
func openTarget(t *testing.T, url string) engines {
	t.Helper()
	s, err := dump.Open(context.Background(), url, dump.OpenOptions{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	return engines{st: s.Store, ext: s.Extents}
}

func (e engines) close(t *testing.T) {
	if err := errors.Join(e.ext.Close(), e.st.Close()); err != nil {
		t.Fatal(err)
	}
}

// TestEngineMatrix copies data written through the real services from
// every engine to every engine: the loaded store dumps to the very same
// stream, refuses a second load, and a server started on it (when the
// engine outlives its process) serves the same blobs, messages and
// entities.
func TestEngineMatrix(t *testing.T) {
	for _, from := range kinds {
		t.Run("from="+from, func(t *testing.T) {
			opts := lazulitest.Options{Services: []string{"blob", "queue", "table", "file"}}
			if from == "memory" {
				opts.InMemory = true
			} else {
				opts.Store = storeURL(t, from)
			}
			src := lazulitest.Start(t, opts)
			dumptest.Populate(t, src)
			var stream bytes.Buffer
			stats, err := dump.Dump(context.Background(), src.App.Store, src.App.Extents, &stream)
			if err != nil {
				t.Fatal(err)
			}
			// An extent per block (the committed ones shared with their
			// blob), for the larger Put Blob and per written file range
			// (the hole between them has none), records of every service.
			if stats.Extents != 7 || stats.Records < 30 {
				t.Fatalf("dump of the fixture copied only %+v", stats)
			}
			for _, to := range kinds {
				t.Run("to="+to, func(t *testing.T) {
					copyTo(t, to, stream.Bytes(), stats)
				})
			}
		})
	}
}

func copyTo(t *testing.T, kind string, stream []byte, want dump.Stats) {
	url := storeURL(t, kind)
	e := openTarget(t, url)
	stats, err := dump.Load(context.Background(), e.st, e.ext, bytes.NewReader(stream), dump.LoadOptions{})
	if err != nil {
		e.close(t)
		t.Fatalf("load: %v", err)
	}
	if stats != want {
		t.Errorf("load copied %+v, the dump held %+v", stats, want)
	}
	again := dumpBytes(t, e)
	_, refused := dump.Load(context.Background(), e.st, e.ext, bytes.NewReader(stream), dump.LoadOptions{})
	e.close(t)
	if !bytes.Equal(again, stream) {
		t.Fatalf("the loaded store dumps to %d bytes that differ from the %d loaded", len(again), len(stream))
	}
	if !errors.Is(refused, dump.ErrNotEmpty) {
		t.Fatalf("a second load into the loaded store: %v, want ErrNotEmpty", refused)
	}
	if kind == "memory" {
		return
	}
	dumptest.Check(t, lazulitest.Start(t, lazulitest.Options{Store: url, Services: []string{"blob", "queue", "table", "file"}}))
}
