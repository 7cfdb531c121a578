package blob_test

import (
	"bytes"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/container"
)

func TestIncrementalCopyBlob(t *testing.T) {
	e := start(t)
	c := e.container("incremental")
	disk := c.NewPageBlobClient("disk")
	must(disk.Create(e.ctx, 4096, nil)).on(t)
	page := func(b byte) []byte { return bytes.Repeat([]byte{b}, 512) }
	must(disk.UploadPages(e.ctx, nopCloser(page('a')), blob.HTTPRange{Offset: 0, Count: 512}, nil)).on(t)
	s1 := must(disk.CreateSnapshot(e.ctx, nil)).on(t)

	backup := c.NewPageBlobClient("backup")
	resp := must(backup.StartCopyIncremental(e.ctx, disk.URL(), *s1.Snapshot, nil)).on(t)
	// The answer is pending, as the service's always is (azblob's live
	// TestIncrementalCopy); the copy has finished when Get Blob Properties
	// reads it.
	if *resp.CopyStatus != "pending" || resp.CopyID == nil {
		t.Fatalf("incremental copy answered %+v", resp)
	}
	p := e.props(backup.BlobClient())
	if p.CopyStatus == nil || *p.CopyStatus != "success" {
		t.Fatalf("copy status after the answer: %v", p.CopyStatus)
	}
	if p.IsIncrementalCopy == nil || !*p.IsIncrementalCopy || p.DestinationSnapshot == nil || *p.BlobType != blob.BlobTypePageBlob {
		t.Fatalf("incremental copy blob: %+v", p)
	}
	first := *p.DestinationSnapshot
	if got := e.read(must(backup.BlobClient().WithSnapshot(first)).on(t)); got[:512] != string(page('a')) || len(got) != 4096 {
		t.Fatalf("first copied snapshot reads %q...", got[:8])
	}

	// A later snapshot copies over it and makes another destination
	// snapshot; the first stays as it was.
	must(disk.UploadPages(e.ctx, nopCloser(page('b')), blob.HTTPRange{Offset: 1024, Count: 512}, nil)).on(t)
	s2 := must(disk.CreateSnapshot(e.ctx, nil)).on(t)
	must(backup.StartCopyIncremental(e.ctx, disk.URL(), *s2.Snapshot, nil)).on(t)
	second := *e.props(backup.BlobClient()).DestinationSnapshot
	if second == first {
		t.Fatal("the second copy made no new snapshot")
	}
	if got := e.read(must(backup.BlobClient().WithSnapshot(second)).on(t)); got[1024:1536] != string(page('b')) {
		t.Fatal("second copied snapshot lacks the new page")
	}
	if got := e.read(must(backup.BlobClient().WithSnapshot(first)).on(t)); got[1024:1536] == string(page('b')) {
		t.Fatal("the first copied snapshot changed")
	}
	items := e.listAll(c, container.ListBlobsInclude{Copy: true, Snapshots: true}, 0)
	for _, it := range items {
		if *it.Name == "backup" && (it.Properties.IncrementalCopy == nil || !*it.Properties.IncrementalCopy) {
			t.Fatalf("listed without IncrementalCopy: %s", listing(it))
		}
	}

	_, err := backup.StartCopyIncremental(e.ctx, disk.URL(), *s1.Snapshot, nil)
	wantCode(t, err, 409, "IncrementalCopyOfEarlierSnapshotNotAllowed")
	_, err = backup.UploadPages(e.ctx, nopCloser(page('c')), blob.HTTPRange{Offset: 0, Count: 512}, nil)
	wantCode(t, err, 409, "OperationNotAllowedOnIncrementalCopyBlob")
	_, err = backup.CreateSnapshot(e.ctx, nil)
	wantCode(t, err, 409, "OperationNotAllowedOnIncrementalCopyBlob")

	other := c.NewPageBlobClient("other")
	must(other.Create(e.ctx, 512, nil)).on(t)
	os1 := must(other.CreateSnapshot(e.ctx, nil)).on(t)
	_, err = backup.StartCopyIncremental(e.ctx, other.URL(), *os1.Snapshot, nil)
	wantCode(t, err, 409, "IncrementalCopyBlobMismatch")
	_, err = other.StartCopyIncremental(e.ctx, disk.URL(), *s2.Snapshot, nil)
	wantCode(t, err, 409, "IncrementalCopyBlobMismatch")
	r := e.raw("PUT", "incremental/fresh?comp=incrementalcopy", map[string][]string{"x-ms-copy-source": {disk.URL()}}, nil)
	if r.StatusCode != 409 || r.Header.Get("x-ms-error-code") != "IncrementalCopySourceMustBeSnapshot" {
		t.Fatalf("copy of a base blob: %d %s", r.StatusCode, r.Header.Get("x-ms-error-code"))
	}

	// The incremental copy blob can be deleted with its snapshots.
	must(backup.Delete(e.ctx, &blob.DeleteOptions{DeleteSnapshots: to.Ptr(blob.DeleteSnapshotsOptionTypeInclude)})).on(t)
}
