package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"sync"
	"testing"
	"time"

	"github.com/lazuli-storage/lazuli/internal/check/s3test"

	"github.com/minio/minio-go/v7"
)

// s3CrashSizes are the blob sizes the writers cycle through: inline in the
// record, one PUT to S3, and (over the engine's 8 MiB part size) a
// multipart upload.
var s3CrashSizes = []int{2 << 10, 300 << 10, 9<<20 + 5}

// TestSIGKILLKeepsContentOnS3 uploads blobs whose content lives on S3 from
// eight goroutines, kills the server with SIGKILL mid-storm, restarts it on
// the same data directory and bucket, and reads back every upload the
// server had acknowledged.
func TestSIGKILLKeepsContentOnS3(t *testing.T) {
	if testing.Short() {
		t.Skip("starts server processes")
	}
	extents := s3test.S3Extents(t)
	dir := t.TempDir()
	srv := startChild(t, dir, "--extents", extents)
	client := blobClient(t, srv.connStr)
	ctx := context.Background()
	if _, err := client.CreateContainer(ctx, "storm", nil); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	acked := map[string][]byte{}
	stormCtx, stopStorm := context.WithCancel(ctx)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := 0; stormCtx.Err() == nil; i++ {
				name := fmt.Sprintf("g%02d/blob-%05d", g, i)
				size := s3CrashSizes[(g+i)%len(s3CrashSizes)]
				body := bytes.Repeat([]byte(name+";"), size/len(name+";")+1)[:size]
				if _, err := client.UploadBuffer(stormCtx, "storm", name, body, nil); err != nil {
					return // the server is gone: stop this writer
				}
				mu.Lock()
				acked[name] = body
				mu.Unlock()
			}
		})
	}
	// Kill after 3 s, and not before some content has gone to S3: a fresh
	// SeaweedFS can take seconds over its first write.
	waitFor(t, time.Minute, "an upload past the inline size", func() bool {
		mu.Lock()
		defer mu.Unlock()
		for _, body := range acked {
			if len(body) > s3CrashSizes[0] {
				return true
			}
		}
		return false
	})
	time.Sleep(3 * time.Second)
	srv.kill()
	stopStorm()
	wg.Wait()
	if len(acked) == 0 {
		t.Fatal("no upload was acknowledged before the kill")
	}
	restarted := startChild(t, dir, "--extents", extents)
	client = blobClient(t, restarted.connStr)
	for name, want := range acked {
		resp, err := client.DownloadStream(ctx, "storm", name, nil)
		if err != nil {
			t.Fatalf("acknowledged blob %s lost after SIGKILL: %v", name, err)
		}
		got, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("acknowledged blob %s differs after SIGKILL: %d bytes, err %v", name, len(got), err)
		}
	}
	loc, s3 := s3test.S3Client(t, extents)
	objects := 0
	for obj := range s3.ListObjects(ctx, loc.Bucket, minio.ListObjectsOptions{Prefix: loc.Prefix, Recursive: true}) {
		if obj.Err != nil {
			t.Fatal(obj.Err)
		}
		objects++
	}
	if objects == 0 {
		t.Fatalf("no object under %s in bucket %s: the content was not kept on S3", loc.Prefix, loc.Bucket)
	}
	t.Logf("%d acknowledged uploads, %d objects on S3, all readable after SIGKILL and restart", len(acked), objects)
}
