package dump_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob"

	"github.com/lazuli-storage/lazuli/internal/check/lazulitest"
	"github.com/lazuli-storage/lazuli/internal/tool/dump"
)

// version is the content of version v of blob g: large enough for an
// extent of its own, and saying in every line which version it is, so a
// blob whose record and content came from different moments shows.
func version(g, v int) []byte {
	line := fmt.Appendf(nil, "blob %d version %06d\n", g, v)
	return bytes.Repeat(line, (16<<10)/len(line)+1)
}

// TestDumpWhileWriting dumps a server while writers keep replacing its
// blobs: each dump loads into a store that serves every blob whole, as one
// version, with the content its record describes.
func TestDumpWhileWriting(t *testing.T) {
	src := lazulitest.Start(t, lazulitest.Options{InMemory: true, Services: []string{"blob"}})
	client, err := azblob.NewClientFromConnectionString(src.ConnectionString, nil)
	must(t, err)
	ctx := context.Background()
	_, err = client.CreateContainer(ctx, "live", nil)
	must(t, err)
	const blobs = 4
	for g := range blobs {
		_, err := client.UploadBuffer(ctx, "live", fmt.Sprint(g), version(g, 0), nil)
		must(t, err)
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var written atomic.Int64
	for g := range blobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for v := 1; ; v++ {
				select {
				case <-stop:
					return
				default:
				}
				if _, err := client.UploadBuffer(ctx, "live", fmt.Sprint(g), version(g, v), nil); err != nil {
					t.Error(err)
					return
				}
				written.Add(1)
			}
		}()
	}
	var streams [][]byte
	for range 3 {
		// Let every writer make progress first, so each dump meets writes.
		for target := written.Load() + 2*blobs; written.Load() < target && !t.Failed(); {
			time.Sleep(time.Millisecond)
		}
		var buf bytes.Buffer
		_, err := dump.Dump(ctx, src.App.Store, src.App.Extents, &buf)
		must(t, err)
		streams = append(streams, buf.Bytes())
	}
	close(stop)
	wg.Wait()
	t.Logf("%d versions written during the dumps", written.Load())
	for _, stream := range streams {
		checkLiveCopy(t, stream, blobs)
	}
}

func checkLiveCopy(t *testing.T, stream []byte, blobs int) {
	url := "sqlite:" + filepath.Join(t.TempDir(), "lazuli.db")
	e := openTarget(t, url)
	_, err := dump.Load(context.Background(), e.st, e.ext, bytes.NewReader(stream), dump.LoadOptions{})
	e.close(t)
	must(t, err)
	in := lazulitest.Start(t, lazulitest.Options{Store: url, Services: []string{"blob"}})
	client, err := azblob.NewClientFromConnectionString(in.ConnectionString, nil)
	must(t, err)
	for g := range blobs {
		resp, err := client.DownloadStream(context.Background(), "live", fmt.Sprint(g), nil)
		must(t, err)
		got, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		must(t, err)
		var v int
		if _, err := fmt.Sscanf(string(got), "blob "+fmt.Sprint(g)+" version %d\n", &v); err != nil {
			t.Fatalf("blob %d of the copy starts %q", g, got[:min(len(got), 40)])
		}
		if !bytes.Equal(got, version(g, v)) || *resp.ContentLength != int64(len(got)) {
			t.Fatalf("blob %d of the copy is not version %d whole", g, v)
		}
	}
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
