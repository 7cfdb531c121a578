package main

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/lazuli-storage/lazuli/internal/check/s3test"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob"
	"github.com/minio/minio-go/v7"

	"github.com/lazuli-storage/lazuli/internal/base/clock"
	"github.com/lazuli-storage/lazuli/internal/engine/extent"
	"github.com/lazuli-storage/lazuli/internal/engine/extent/s3extent"
	"github.com/lazuli-storage/lazuli/internal/engine/store/engine"
	"github.com/lazuli-storage/lazuli/internal/engine/store/postgres"
)

// stallingBody is a request body that delivers its first stallAt bytes,
// then blocks until released, as a client whose node dies mid-upload
// leaves its request.
type stallingBody struct {
	*bytes.Reader
	stallAt int64
	stalled chan struct{}
	release chan struct{}
	once    sync.Once
}

func (b *stallingBody) Read(p []byte) (int, error) {
	pos := b.Size() - int64(b.Len())
	if pos >= b.stallAt {
		b.once.Do(func() { close(b.stalled) })
		<-b.release
		return 0, io.ErrUnexpectedEOF
	}
	if rest := b.stallAt - pos; int64(len(p)) > rest {
		p = p[:rest]
	}
	return b.Reader.Read(p)
}

func (b *stallingBody) Close() error { return nil }

// TestNodeKilledMidUploadOverS3 runs two nodes over one PostgreSQL database
// with content on S3, SIGKILLs node A while a 20 MiB Put Blob through it
// has sent 12 MiB (past the first 8 MiB part of its multipart upload), and
// checks that node B keeps serving, shows no trace of the unfinished blob,
// and that the collector, run as an hour and more had passed, aborts the
// upload the dead node left on S3 while keeping the content blobs still
// reference.
func TestNodeKilledMidUploadOverS3(t *testing.T) {
	if testing.Short() {
		t.Skip("starts server processes")
	}
	extents := s3test.S3Extents(t)
	db := startPostgres(t).url
	nodeA := startChild(t, t.TempDir(), "--store", db, "--extents", extents)
	nodeB := startChild(t, t.TempDir(), "--store", db, "--extents", extents)
	noRetry := &azblob.ClientOptions{ClientOptions: azcore.ClientOptions{Retry: policy.RetryOptions{MaxRetries: -1}}}
	clientA, err := azblob.NewClientFromConnectionString(nodeA.connStr, noRetry)
	must(t, err)
	clientB, err := azblob.NewClientFromConnectionString(nodeB.connStr, noRetry)
	must(t, err)
	ctx := context.Background()
	_, err = clientB.CreateContainer(ctx, "kill", nil)
	must(t, err)
	kept := bytes.Repeat([]byte("kept;"), 100<<10/5) // over the inline limit: an S3 extent
	_, err = clientA.UploadBuffer(ctx, "kill", "kept", kept, nil)
	must(t, err)

	body := &stallingBody{Reader: bytes.NewReader(bytes.Repeat([]byte("big;"), 20<<20/4)), stallAt: 12 << 20,
		stalled: make(chan struct{}), release: make(chan struct{})}
	var releaseOnce sync.Once
	release := func() { releaseOnce.Do(func() { close(body.release) }) }
	defer release()
	uploadDone := make(chan error, 1)
	go func() {
		_, err := clientA.ServiceClient().NewContainerClient("kill").NewBlockBlobClient("big").Upload(ctx, body, nil)
		uploadDone <- err
	}()
	select {
	case <-body.stalled:
	case err := <-uploadDone:
		t.Fatalf("the upload ended before it stalled: %v", err)
	case <-time.After(60 * time.Second):
		t.Fatal("the upload did not send 12 MiB within 60 s")
	}
	loc, s3 := s3test.S3Client(t, extents)
	waitFor(t, 60*time.Second, "node A's multipart upload to appear on S3", func() bool {
		return len(incompleteUploads(t, s3, loc)) > 0
	})
	nodeA.kill()
	release() // the client's write loop waits on the body, not the dead connection
	if err := <-uploadDone; err == nil {
		t.Fatal("the upload through the killed node succeeded")
	}

	// Node B serves, and nothing of the unfinished blob is visible there.
	if _, err := clientB.ServiceClient().NewContainerClient("kill").NewBlobClient("big").GetProperties(ctx, nil); status(err) != http.StatusNotFound {
		t.Fatalf("node B on the unfinished blob: %v, want 404", err)
	}
	if names := listBlobs(t, clientB, "kill"); len(names) != 1 || names[0] != "kept" {
		t.Fatalf("node B lists %q, want only kept", names)
	}
	after := bytes.Repeat([]byte("after;"), 100<<10/6)
	_, err = clientB.UploadBuffer(ctx, "kill", "after", after, nil)
	must(t, err)

	sweepAsIfAnHourLater(t, db, loc)
	if ups := incompleteUploads(t, s3, loc); len(ups) != 0 {
		t.Fatalf("the collector left the dead node's upload on S3: %q", ups)
	}
	for name, want := range map[string][]byte{"kept": kept, "after": after} {
		if got := downloadBlob(t, clientB, "kill", name); !bytes.Equal(got, want) {
			t.Fatalf("node B serves %d bytes of %s after the sweep, want the %d written", len(got), name, len(want))
		}
	}
}

// sweepAsIfAnHourLater runs the extent collector the nodes run every
// minute once, with its clock and the engine's two hours ahead, so that
// an upload a crash abandoned is past the collector's one-hour orphan age.
func sweepAsIfAnHourLater(t *testing.T, db string, loc s3extent.Location) {
	t.Helper()
	ctx := context.Background()
	later := clock.NewFake(time.Now().Add(2 * time.Hour))
	st, err := engine.Open(ctx, db, postgres.Options{})
	must(t, err)
	defer st.Close()
	ext, err := s3extent.Open(ctx, loc, s3extent.Options{Clock: later})
	must(t, err)
	defer ext.Close()
	collector := &extent.Collector{Engine: ext, Store: st, Clock: later, OrphanAge: time.Hour}
	removed, err := collector.Sweep(ctx)
	must(t, err)
	if removed == 0 {
		t.Fatal("the sweep removed nothing")
	}
}

// incompleteUploads lists the multipart uploads under loc's prefix.
func incompleteUploads(t *testing.T, s3 *minio.Client, loc s3extent.Location) []string {
	t.Helper()
	var keys []string
	for up := range s3.ListIncompleteUploads(context.Background(), loc.Bucket, loc.Prefix, true) {
		must(t, up.Err)
		keys = append(keys, up.Key)
	}
	return keys
}

func listBlobs(t *testing.T, client *azblob.Client, container string) []string {
	t.Helper()
	var names []string
	pager := client.NewListBlobsFlatPager(container, nil)
	for pager.More() {
		page, err := pager.NextPage(context.Background())
		must(t, err)
		for _, b := range page.Segment.BlobItems {
			names = append(names, *b.Name)
		}
	}
	return names
}
