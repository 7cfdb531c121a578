package blob_test

import (
	"errors"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/bloberror"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blockblob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/lease"
)

// TestOptimisticConcurrency is the first flow of "Managing Concurrency in
// Microsoft Azure Storage": an update sent with the ETag read before another
// client's overwrite fails with 412.
func TestOptimisticConcurrency(t *testing.T) {
	e := start(t)
	c := e.container("optimistic")
	b := c.NewBlockBlobClient("page")
	created, err := b.Upload(e.ctx, nopCloser([]byte("Hello")), nil)
	if err != nil {
		t.Fatal(err)
	}
	original := *created.ETag
	third, err := b.Upload(e.ctx, nopCloser([]byte("Blob updated by a third party.")), nil)
	if err != nil {
		t.Fatal(err)
	}
	if *third.ETag == original {
		t.Fatal("overwrite kept the ETag")
	}
	_, err = b.Upload(e.ctx, nopCloser([]byte("stale update")), &blockblob.UploadOptions{
		AccessConditions: &blob.AccessConditions{ModifiedAccessConditions: &blob.ModifiedAccessConditions{IfMatch: &original}}})
	wantCode(t, err, 412, string(bloberror.ConditionNotMet))
	if got := e.download(b); string(got) != "Blob updated by a third party." {
		t.Fatalf("content after the failed update: %q", got)
	}
}

// TestPessimisticConcurrency is the second flow of "Managing Concurrency in
// Microsoft Azure Storage": a 15 s lease lets its holder write while a write
// without the lease ID fails with 412.
func TestPessimisticConcurrency(t *testing.T) {
	e := start(t)
	c := e.container("pessimistic")
	b := e.upload(c, "locked", []byte("Hello"))
	lc, _ := lease.NewBlobClient(b, nil)
	acq, err := lc.AcquireLease(e.ctx, 15, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.Upload(e.ctx, nopCloser([]byte("Blob updated")), &blockblob.UploadOptions{AccessConditions: withLease(*acq.LeaseID)}); err != nil {
		t.Fatalf("update with the lease: %v", err)
	}
	_, err = b.Upload(e.ctx, nopCloser([]byte("Update without lease, will fail")), nil)
	wantCode(t, err, 412, string(bloberror.LeaseIDMissing))
	if _, err := lc.ReleaseLease(e.ctx, nil); err != nil {
		t.Fatal(err)
	}
	if got := e.download(b); string(got) != "Blob updated" {
		t.Fatalf("content %q", got)
	}
	if _, err := b.Upload(e.ctx, nopCloser([]byte("free again")), nil); err != nil {
		t.Fatalf("write after release: %v", err)
	}
}

// TestReadModifyWriteCounter: 16 goroutines increment a counter blob with
// If-Match, retrying on 412; no increment may be lost.
func TestReadModifyWriteCounter(t *testing.T) {
	e := start(t)
	c := e.container("counter")
	b := e.upload(c, "n", []byte("0"))
	const workers, perWorker = 16, 10
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < perWorker; {
				resp, err := b.DownloadStream(e.ctx, nil)
				if err != nil {
					errs <- err
					return
				}
				buf := make([]byte, 16)
				n, _ := resp.Body.Read(buf)
				resp.Body.Close()
				v, err := strconv.Atoi(string(buf[:n]))
				if err != nil {
					errs <- err
					return
				}
				_, err = b.Upload(e.ctx, nopCloser([]byte(strconv.Itoa(v+1))), &blockblob.UploadOptions{
					AccessConditions: &blob.AccessConditions{ModifiedAccessConditions: &blob.ModifiedAccessConditions{IfMatch: resp.ETag}}})
				var re *azcore.ResponseError
				switch {
				case err == nil:
					i++
				case errors.As(err, &re) && re.StatusCode == 412:
					// Lost the race: read again.
				default:
					errs <- err
					return
				}
			}
		}()
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(2 * time.Minute):
		t.Fatal("counter workers did not finish")
	}
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if got := string(e.download(b)); got != strconv.Itoa(workers*perWorker) {
		t.Fatalf("counter = %s, want %d", got, workers*perWorker)
	}
}
