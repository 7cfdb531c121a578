package azurite_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azqueue"

	"github.com/lazuli-storage/lazuli/internal/engine/storage"
	"github.com/lazuli-storage/lazuli/internal/engine/store"
	"github.com/lazuli-storage/lazuli/internal/run/app"
	"github.com/lazuli-storage/lazuli/internal/run/config"
	"github.com/lazuli-storage/lazuli/internal/tool/azurite"
	"github.com/lazuli-storage/lazuli/lazulitest"
)

// TestImportAzuriteWorkspace writes every kind of object into Azurite on
// disk, imports its workspace into a fresh SQLite store and serves it:
// every listing, property, metadata, ACL, content, block list, message
// and entity, and every container's, blob's, snapshot's and entity's
// ETag, answers as Azurite answered before it stopped. A workspace with
// a missing or short extent file, or an ETag that is not an entity tag,
// is then refused, naming the object, and leaves the store empty.
func TestImportAzuriteWorkspace(t *testing.T) {
	if testing.Short() {
		t.Skip("starts Azurite and moves a 67 MiB blob")
	}
	work := t.TempDir()
	dir := filepath.Join(work, "azurite")
	az := startAzurite(t, dir)
	populateBlobs(t, az.ConnectionString)
	populateQueues(t, az.ConnectionString)
	populateTables(t, az.ConnectionString)
	populateServiceProps(t, az.ConnectionString)
	want := observe(t, az.ConnectionString)
	observeServiceProps(t, az.ConnectionString, want)
	hello, helloTag := validators(t, az.ConnectionString, "photos", "a/hello.txt")
	photosTag := containerETag(t, az.ConnectionString, "photos")
	az.stop()
	before := fileDigests(t, dir)

	data := filepath.Join(work, "lazuli")
	counts := importInto(t, dir, "sqlite:"+filepath.Join(data, "lazuli.db"))
	wantCounts := azurite.Counts{Containers: 2, Blobs: 8, Snapshots: 1, Blocks: 2, Queues: 2, Messages: 4, Tables: 2, Entities: 3,
		ServiceProperties: 3,
		Bytes:             bigBlobSize + 12 + 11 + 6 + 19 + 11 + 1024 + 8 + 4}
	if counts != wantCounts {
		t.Errorf("counts %+v, want %+v", counts, wantCounts)
	}
	srv := lazulitest.Start(t, lazulitest.Options{Persistent: true, Dir: data})
	got := observe(t, srv.ConnectionString)
	observeServiceProps(t, srv.ConnectionString, got)
	compare(t, want, got)
	checkConditionals(t, srv.ConnectionString, "photos", "a/hello.txt", hello, helloTag)
	checkContainerWrite(t, srv.ConnectionString, "photos", photosTag)
	checkHiddenMessages(t, srv)
	if after := fileDigests(t, dir); !equalDigests(before, after) {
		t.Errorf("the import changed Azurite's files")
	}

	t.Run("MissingExtent", func(t *testing.T) {
		broken := copyWorkspace(t, dir, func(name string, b []byte) []byte {
			if strings.HasPrefix(name, "__blobstorage__"+string(filepath.Separator)) && len(b) < 64<<20 {
				return nil // the extent after the first, full one
			}
			return b
		})
		refused(t, broken, "blob photos/", ": content extent __blobstorage__/", "no such file or directory")
	})
	t.Run("UnusableETag", func(t *testing.T) {
		broken := copyWorkspace(t, dir, func(name string, b []byte) []byte {
			if name == "__azurite_db_blob__.json" {
				return bytes.Replace(b, []byte(`"etag":"\"0x`), []byte(`"etag":"\"0x `), 1)
			}
			return b
		})
		refused(t, broken, `: ETag "0x `, "is not an entity tag")
	})
	t.Run("ShortExtent", func(t *testing.T) {
		broken := copyWorkspace(t, dir, func(name string, b []byte) []byte {
			if strings.HasPrefix(name, "__queuestorage__"+string(filepath.Separator)) {
				return b[:len(b)-3]
			}
			return b
		})
		refused(t, broken, "message ", "of queue jobs: content extent __queuestorage__/", "holds 18 bytes, not the 5 at offset 16")
	})
}

// importInto imports dir into a new store.
func importInto(t *testing.T, dir, url string) azurite.Counts {
	t.Helper()
	st, err := storage.Open(context.Background(), url, storage.Options{Inline: true})
	must(t, err)
	defer st.Close()
	counts, err := azurite.Import(context.Background(), dir, st.Store, st.Extents, time.Now())
	must(t, err)
	return counts
}

// refused checks that importing dir fails with an error holding every
// part, and that the store holds no record afterwards.
func refused(t *testing.T, dir string, parts ...string) {
	t.Helper()
	st, err := storage.Open(context.Background(), "memory:", storage.Options{})
	must(t, err)
	defer st.Close()
	_, err = azurite.Import(context.Background(), dir, st.Store, st.Extents, time.Now())
	if err == nil {
		t.Fatal("a broken workspace was imported")
	}
	for _, p := range parts {
		if !strings.Contains(err.Error(), p) {
			t.Errorf("error %q does not say %q", err, p)
		}
	}
	err = st.Store.View(context.Background(), func(tx store.Tx) error {
		return tx.Scan([]byte{byte(store.SpaceContainer)}, nil, store.ScanOptions{}, func(k, _ []byte) bool {
			if store.Space(k[0]) < store.SpaceExtentRef {
				t.Errorf("record %x left behind", k)
			}
			return true
		})
	})
	must(t, err)
}

// checkHiddenMessages moves the server's clock past the visibility
// timeouts Azurite set: the received message comes back with its dequeue
// count, the delayed one appears.
func checkHiddenMessages(t *testing.T, srv *lazulitest.Server) {
	t.Helper()
	svc, err := azqueue.NewServiceClientFromConnectionString(srv.ConnectionString, nil)
	must(t, err)
	srv.Advance(11 * time.Minute)
	peeked, err := svc.NewQueueClient("jobs").PeekMessages(context.Background(), &azqueue.PeekMessagesOptions{NumberOfMessages: to.Ptr[int32](32)})
	must(t, err)
	var got []string
	for _, m := range peeked.Messages {
		got = append(got, fmt.Sprintf("%s/%d", *m.MessageText, *m.DequeueCount))
	}
	slices.Sort(got)
	if strings.Join(got, " ") != "first/1 later/0 second/0 third/0" {
		t.Errorf("messages once visible: %v", got)
	}
}

// TestServerImportsAzuriteFolderOnce starts the server with --location on
// an Azurite folder twice: the first start imports it into the folder's
// lazuli-data subfolder and says so in one line, the second does not.
func TestServerImportsAzuriteFolderOnce(t *testing.T) {
	if testing.Short() {
		t.Skip("starts Azurite")
	}
	dir := t.TempDir()
	az := startAzurite(t, dir)
	populateQueues(t, az.ConnectionString)
	populateTables(t, az.ConnectionString)
	want := observe(t, az.ConnectionString)
	az.stop()

	var log bytes.Buffer
	conn := startServer(t, dir, &log)
	if !strings.Contains(log.String(), "Imported the Azurite workspace in "+dir+": 0 containers") ||
		strings.Count(log.String(), "\n") != 1 {
		t.Errorf("start-up log %q", log.String())
	}
	compare(t, want, observe(t, conn))
	if _, err := os.Stat(filepath.Join(dir, config.AzuriteDataFolder, "lazuli.db")); err != nil {
		t.Errorf("the store is not in the lazuli-data subfolder: %v", err)
	}
	log.Reset()
	conn = startServer(t, dir, &log)
	if log.Len() != 0 {
		t.Errorf("second start logged %q", log.String())
	}
	compare(t, want, observe(t, conn))
}

// startServer starts Lazuli as lazuli serve does with --location dir and
// returns its connection string; it stops with the test or the next call.
func startServer(t *testing.T, location string, log io.Writer) string {
	t.Helper()
	cfg, err := config.Parse([]string{"--location", location, "--blobPort", "0", "--queuePort", "0", "--tablePort", "0",
		"--filePort", "0", "--smbPort", "0", "--noAdmin", "--silent"}, func(string) string { return "" }, io.Discard)
	must(t, err)
	opts := app.Options{}
	if dir := cfg.AdoptAzurite(); dir != "" {
		opts.Prepare = azurite.AtStart(dir, log)
	}
	a, err := app.Start(context.Background(), cfg, opts)
	must(t, err)
	t.Cleanup(func() { closeApp(a) })
	return a.ConnectionString()
}

func closeApp(a *app.App) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_ = a.Close(ctx)
}

// fileDigests is the SHA-256 of every file under dir.
func fileDigests(t *testing.T, dir string) map[string][32]byte {
	t.Helper()
	out := map[string][32]byte{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		out[path] = sha256.Sum256(b)
		return err
	})
	must(t, err)
	return out
}

func equalDigests(a, b map[string][32]byte) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// copyWorkspace copies dir to a new folder, passing each file's
// workspace-relative name and content through change (nil: left out).
func copyWorkspace(t *testing.T, dir string, change func(name string, b []byte) []byte) string {
	t.Helper()
	out := t.TempDir()
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		name, _ := filepath.Rel(dir, path)
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if b = change(name, b); b == nil {
			return nil
		}
		must(t, os.MkdirAll(filepath.Dir(filepath.Join(out, name)), 0o755))
		return os.WriteFile(filepath.Join(out, name), b, 0o644)
	})
	must(t, err)
	return out
}
