package main

import (
	"bytes"
	"context"
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
	storm := startStorm(client, 8, func(name string, g, i int) []byte {
		size := s3CrashSizes[(g+i)%len(s3CrashSizes)]
		return bytes.Repeat([]byte(name+";"), size/len(name+";")+1)[:size]
	})
	// Kill after 3 s, and not before some content has gone to S3: a fresh
	// SeaweedFS can take seconds over its first write.
	waitFor(t, time.Minute, "an upload past the inline size", func() bool {
		return storm.any(func(b []byte) bool { return len(b) > s3CrashSizes[0] })
	})
	time.Sleep(3 * time.Second)
	srv.kill()
	acked := storm.stop(t)
	restarted := startChild(t, dir, "--extents", extents)
	readBackAll(t, blobClient(t, restarted.connStr), acked)
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
