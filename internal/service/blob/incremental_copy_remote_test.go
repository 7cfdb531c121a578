package blob_test

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/sas"
)

// TestIncrementalCopyFromAnotherServer: Incremental Copy Blob of a page
// blob snapshot on another server, named with a SAS, copies its written
// pages (the destination as sparse as the source) and keeps the service's
// rules: later snapshots only, of the same blob, of a page blob.
func TestIncrementalCopyFromAnotherServer(t *testing.T) {
	remote := start(t)
	rc := remote.container("disks")
	disk := remote.newPageBlob(rc, "disk", 16*512, nil)
	remote.putPages(disk, 0, fill(1024, 1))
	remote.putPages(disk, 4096, fill(512, 2))
	s1 := *must(disk.CreateSnapshot(remote.ctx, nil)).on(t).Snapshot
	readable := sasURL(t, remote, sas.BlobSignatureValues{ContainerName: "disks", Permissions: (&sas.ContainerPermissions{Read: true}).String()})
	diskURL := func(name string) string {
		u, q, _ := bytes.Cut([]byte(readable), []byte("?"))
		return string(u) + "/" + name + "?" + string(q)
	}

	e := start(t)
	c := e.container("backups")
	backup := c.NewPageBlobClient("backup")
	resp := must(backup.StartCopyIncremental(e.ctx, diskURL("disk"), s1, nil)).on(t)
	if *resp.CopyStatus != blob.CopyStatusTypePending {
		t.Fatalf("copy status answered %s", *resp.CopyStatus)
	}
	props := e.props(backup.BlobClient())
	if *props.CopyStatus != blob.CopyStatusTypeSuccess {
		t.Fatalf("copy status read back %s", *props.CopyStatus)
	}
	if *props.ContentLength != 16*512 || props.IsIncrementalCopy == nil || !*props.IsIncrementalCopy || props.DestinationSnapshot == nil {
		t.Fatalf("destination properties: %+v", props)
	}
	destSnap := must(backup.WithSnapshot(*props.DestinationSnapshot)).on(t)
	if r := e.pageRanges(destSnap, nil); fmt.Sprint(r) != "[[0 1023] [4096 4607]]" {
		t.Fatalf("copied page ranges %v", r)
	}
	if got := e.readRange(destSnap.BlobClient(), 0, 16*512); !bytes.Equal(got[:1024], fill(1024, 1)) ||
		!bytes.Equal(got[4096:4608], fill(512, 2)) || !bytes.Equal(got[1024:4096], make([]byte, 3072)) {
		t.Fatal("copied content differs")
	}

	// A later snapshot: the pages written and cleared since.
	remote.putPages(disk, 512, fill(512, 7))
	must(disk.ClearPages(remote.ctx, blob.HTTPRange{Offset: 4096, Count: 512}, nil)).on(t)
	s2 := *must(disk.CreateSnapshot(remote.ctx, nil)).on(t).Snapshot
	must(backup.StartCopyIncremental(e.ctx, diskURL("disk"), s2, nil)).on(t)
	latest := must(backup.WithSnapshot(*e.props(backup.BlobClient()).DestinationSnapshot)).on(t)
	if r := e.pageRanges(latest, nil); fmt.Sprint(r) != "[[0 1023]]" {
		t.Fatalf("second copy's page ranges %v", r)
	}
	if got := e.readRange(latest.BlobClient(), 0, 1024); !bytes.Equal(got[512:], fill(512, 7)) {
		t.Fatal("second copy's content differs")
	}

	_, err := backup.StartCopyIncremental(e.ctx, diskURL("disk"), s1, nil)
	wantCode(t, err, 409, "IncrementalCopyOfEarlierSnapshotNotAllowed")
	other := remote.newPageBlob(rc, "other", 512, nil)
	os1 := *must(other.CreateSnapshot(remote.ctx, nil)).on(t).Snapshot
	_, err = backup.StartCopyIncremental(e.ctx, diskURL("other"), os1, nil)
	wantCode(t, err, 409, "IncrementalCopyBlobMismatch")
	block := remote.upload(rc, "block", []byte("not pages"))
	bs := *must(block.CreateSnapshot(remote.ctx, nil)).on(t).Snapshot
	_, err = c.NewPageBlobClient("fresh").StartCopyIncremental(e.ctx, diskURL("block"), bs, nil)
	wantCode(t, err, 409, "InvalidSourceBlobType")
	// Without the source's SAS the source answers an anonymous read of a
	// private container 404, which the copy reports.
	_, err = c.NewPageBlobClient("fresh").StartCopyIncremental(e.ctx, disk.URL(), s2, nil)
	wantCode(t, err, 404, "CannotVerifyCopySource")
}
