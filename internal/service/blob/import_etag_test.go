package blob_test

import (
	"context"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/container"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/lease"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/service"

	"github.com/lazuli-storage/lazuli/internal/check/lazulitest"
	"github.com/lazuli-storage/lazuli/internal/engine/store"
	blobsvc "github.com/lazuli-storage/lazuli/internal/service/blob"
)

// Azurite's ETags as the import is given them: not ticks of this server.
const (
	importedContainerETag azcore.ETag = `"0x24BA96C7423C960"`
	importedBlobETag      azcore.ETag = `"0x1E223B9B3050E40"`
)

// importETagged imports container "imported" and its block blob "b" with
// the ETags above.
func importETagged(t *testing.T, e *env) {
	t.Helper()
	at := time.Date(2025, 3, 4, 5, 6, 7, 0, time.UTC)
	err := e.in.App.Store.Update(context.Background(), func(tx store.Tx) error {
		if err := blobsvc.ImportContainer(tx, blobsvc.ImportedContainer{Account: lazulitest.Account, Name: "imported",
			Created: at, LastModified: at, ETag: string(importedContainerETag)}); err != nil {
			return err
		}
		return blobsvc.ImportBlob(tx, blobsvc.ImportedBlob{Account: lazulitest.Account, Container: "imported", Name: "b",
			Type: "BlockBlob", Committed: true, Created: at, LastModified: at, ETag: string(importedBlobETag)})
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestImportedBlobETag: an imported blob answers the ETag it came with
// until a write gives it a new one, as Lazuli's ETag rule has it: a lease
// and Set Blob Tier keep it, as does a snapshot taken without metadata,
// whose state is the blob's, and it is a copy source's ETag for
// x-ms-source-if-match; Set Blob Metadata replaces it.
func TestImportedBlobETag(t *testing.T) {
	e := start(t)
	importETagged(t, e)
	b := e.svc.NewContainerClient("imported").NewBlobClient("b")
	wantETag := func(what string, want azcore.ETag) {
		t.Helper()
		props, err := b.GetProperties(e.ctx, nil)
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if *props.ETag != want {
			t.Errorf("%s: ETag %s, want %s", what, *props.ETag, want)
		}
	}
	wantETag("imported", importedBlobETag)
	listed := listedBlobETag(t, e, "imported", "b")
	if "\""+listed+"\"" != string(importedBlobETag) {
		t.Errorf("List Blobs lists ETag %s, want %s unquoted", listed, importedBlobETag)
	}

	ifMatch := &blob.ModifiedAccessConditions{IfMatch: to.Ptr(importedBlobETag)}
	lc := must(lease.NewBlobClient(b, &lease.BlobClientOptions{LeaseID: to.Ptr("c0ffee00-0000-4000-8000-000000000009")})).on(t)
	acquired := must(lc.AcquireLease(e.ctx, -1, &lease.BlobAcquireOptions{ModifiedAccessConditions: ifMatch})).on(t)
	if *acquired.ETag != importedBlobETag {
		t.Errorf("Lease Blob answered ETag %s, want %s", *acquired.ETag, importedBlobETag)
	}
	wantETag("after a lease", importedBlobETag)
	must(b.SetTier(e.ctx, blob.AccessTierCool, nil)).on(t)
	wantETag("after Set Blob Tier", importedBlobETag)
	snap := must(b.CreateSnapshot(e.ctx, nil)).on(t)
	if *snap.ETag != importedBlobETag {
		t.Errorf("Snapshot Blob answered ETag %s, want the base's %s", *snap.ETag, importedBlobETag)
	}

	cp := must(e.svc.NewContainerClient("imported").NewBlobClient("copy").StartCopyFromURL(e.ctx, b.URL(),
		&blob.StartCopyFromURLOptions{SourceModifiedAccessConditions: &blob.SourceModifiedAccessConditions{
			SourceIfMatch: to.Ptr(importedBlobETag)}})).on(t)
	if *cp.ETag == importedBlobETag {
		t.Errorf("the copy's destination answered the source's imported ETag")
	}

	set := must(b.SetMetadata(e.ctx, map[string]*string{"k": to.Ptr("v")}, &blob.SetMetadataOptions{
		AccessConditions: &blob.AccessConditions{ModifiedAccessConditions: ifMatch,
			LeaseAccessConditions: &blob.LeaseAccessConditions{LeaseID: lc.LeaseID()}}})).on(t)
	if *set.ETag == importedBlobETag {
		t.Errorf("Set Blob Metadata kept the imported ETag")
	}
	wantETag("after Set Blob Metadata", *set.ETag)
	_, err := b.GetProperties(e.ctx, &blob.GetPropertiesOptions{AccessConditions: &blob.AccessConditions{ModifiedAccessConditions: ifMatch}})
	wantCode(t, err, 412, "ConditionNotMet")
	snapshot := must(b.WithSnapshot(*snap.Snapshot)).on(t)
	props := must(snapshot.GetProperties(e.ctx, nil)).on(t)
	if *props.ETag != importedBlobETag {
		t.Errorf("the snapshot's ETag after the base's write: %s, want %s", *props.ETag, importedBlobETag)
	}
}

// TestImportedContainerETag: an imported container answers the ETag it
// came with in Get Container Properties and List Containers; a lease
// keeps it, Set Container Metadata replaces it.
func TestImportedContainerETag(t *testing.T) {
	e := start(t)
	importETagged(t, e)
	c := e.svc.NewContainerClient("imported")
	wantETag := func(what string, want azcore.ETag) {
		t.Helper()
		props := must(c.GetProperties(e.ctx, nil)).on(t)
		if *props.ETag != want {
			t.Errorf("%s: ETag %s, want %s", what, *props.ETag, want)
		}
		page := must(e.svc.NewListContainersPager(&service.ListContainersOptions{Prefix: to.Ptr("imported")}).NextPage(e.ctx)).on(t)
		if n := len(page.ContainerItems); n != 1 || *page.ContainerItems[0].Properties.ETag != want {
			t.Errorf("%s: List Containers lists %d containers, want one with ETag %s", what, n, want)
		}
	}
	wantETag("imported", importedContainerETag)
	lc := must(lease.NewContainerClient(c, &lease.ContainerClientOptions{LeaseID: to.Ptr("c0ffee00-0000-4000-8000-00000000000a")})).on(t)
	must(lc.AcquireLease(e.ctx, 30, nil)).on(t)
	wantETag("after a lease", importedContainerETag)
	set := must(c.SetMetadata(e.ctx, &container.SetMetadataOptions{Metadata: map[string]*string{"k": to.Ptr("v")},
		LeaseAccessConditions: &container.LeaseAccessConditions{LeaseID: lc.LeaseID()}})).on(t)
	if *set.ETag == importedContainerETag {
		t.Errorf("Set Container Metadata kept the imported ETag")
	}
	wantETag("after Set Container Metadata", *set.ETag)
}

// listedBlobETag is the Etag List Blobs lists for a blob.
func listedBlobETag(t *testing.T, e *env, containerName, name string) string {
	t.Helper()
	page := must(e.svc.NewContainerClient(containerName).NewListBlobsFlatPager(
		&container.ListBlobsFlatOptions{Prefix: to.Ptr(name)}).NextPage(e.ctx)).on(t)
	for _, it := range page.Segment.BlobItems {
		if *it.Name == name {
			return string(*it.Properties.ETag)
		}
	}
	t.Fatalf("List Blobs does not list %s", name)
	return ""
}
