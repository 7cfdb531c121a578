package blob_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blockblob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/container"
)

func TestSetBlobTier(t *testing.T) {
	e := start(t)
	c := e.container("tiers")
	b := e.upload(c, "doc", []byte("content")).BlobClient()
	p := e.props(b)
	if *p.AccessTier != "Hot" || !*p.AccessTierInferred || p.AccessTierChangeTime != nil {
		t.Fatalf("default tier: %+v", p)
	}
	for _, tier := range []blob.AccessTier{blob.AccessTierCool, blob.AccessTierCold, blob.AccessTierHot} {
		must(b.SetTier(e.ctx, tier, nil)).on(t)
		p = e.props(b)
		if *p.AccessTier != string(tier) || p.AccessTierInferred != nil || p.AccessTierChangeTime == nil {
			t.Fatalf("after setting %s: %+v", tier, p)
		}
	}
	items := e.listAll(c, container.ListBlobsInclude{}, 0)
	if *items[0].Properties.AccessTier != blob.AccessTierHot || items[0].Properties.AccessTierChangeTime == nil {
		t.Fatalf("listed tier: %+v", items[0].Properties)
	}
	if after := e.props(b); *after.ETag != *p.ETag {
		t.Fatal("Set Blob Tier changed the ETag")
	}
	r := e.raw(http.MethodPut, "tiers/doc?comp=tier", http.Header{"x-ms-access-tier": {"Lukewarm"}}, nil)
	if r.StatusCode != 400 || r.Header.Get("x-ms-error-code") != "InvalidHeaderValue" {
		t.Fatalf("unknown tier: %d %s", r.StatusCode, r.Header.Get("x-ms-error-code"))
	}
	r = e.raw(http.MethodPut, "tiers/doc?comp=tier", nil, nil)
	if r.StatusCode != 400 || r.Header.Get("x-ms-error-code") != "MissingRequiredHeader" {
		t.Fatalf("no tier: %d %s", r.StatusCode, r.Header.Get("x-ms-error-code"))
	}
	_, err := c.NewBlobClient("missing").SetTier(e.ctx, blob.AccessTierCool, nil)
	wantCode(t, err, 404, "BlobNotFound")
	page := c.NewPageBlobClient("pages")
	must(page.Create(e.ctx, 512, nil)).on(t)
	_, err = page.SetTier(e.ctx, blob.AccessTierCool, nil)
	wantCode(t, err, 409, "InvalidBlobType")

	// A snapshot has its own tier.
	snap := must(b.CreateSnapshot(e.ctx, nil)).on(t)
	sb := must(b.WithSnapshot(*snap.Snapshot)).on(t)
	must(sb.SetTier(e.ctx, blob.AccessTierCold, nil)).on(t)
	if *e.props(sb).AccessTier != "Cold" || *e.props(b).AccessTier != "Hot" {
		t.Fatal("the snapshot's tier is not its own")
	}
}

func TestArchiveAndRehydrate(t *testing.T) {
	e := start(t)
	c := e.container("archive")
	bb := c.NewBlockBlobClient("doc")
	must(bb.Upload(e.ctx, nopCloser([]byte("cold storage")), &blockblob.UploadOptions{Tier: to.Ptr(blob.AccessTierArchive)})).on(t)
	b := bb.BlobClient()
	if p := e.props(b); *p.AccessTier != "Archive" || p.ArchiveStatus != nil {
		t.Fatalf("archived blob: %+v", p)
	}
	_, err := b.DownloadStream(e.ctx, nil)
	wantCode(t, err, 409, "BlobArchived")
	_, err = b.SetMetadata(e.ctx, map[string]*string{"a": to.Ptr("b")}, nil)
	wantCode(t, err, 409, "BlobArchived")
	_, err = b.SetHTTPHeaders(e.ctx, blob.HTTPHeaders{BlobContentType: to.Ptr("x/y")}, nil)
	wantCode(t, err, 409, "BlobArchived")
	_, err = b.CreateSnapshot(e.ctx, nil)
	wantCode(t, err, 409, "BlobArchived")
	// Archive to archive changes nothing.
	must(b.SetTier(e.ctx, blob.AccessTierArchive, nil)).on(t)

	r := e.raw(http.MethodPut, "archive/doc?comp=tier", http.Header{"x-ms-access-tier": {"Cool"}}, nil)
	if r.StatusCode != http.StatusAccepted {
		t.Fatalf("rehydration answered %d", r.StatusCode)
	}
	p := e.props(b)
	if *p.AccessTier != "Archive" || *p.ArchiveStatus != "rehydrate-pending-to-cool" || *p.RehydratePriority != "Standard" {
		t.Fatalf("rehydrating blob: %+v", p)
	}
	_, err = b.DownloadStream(e.ctx, nil)
	wantCode(t, err, 409, "BlobArchived")
	_, err = b.SetTier(e.ctx, blob.AccessTierHot, nil)
	wantCode(t, err, 409, "BlobBeingRehydrated")
	items := e.listAll(c, container.ListBlobsInclude{}, 0)
	if *items[0].Properties.ArchiveStatus != "rehydrate-pending-to-cool" {
		t.Fatalf("listed archive status %v", items[0].Properties.ArchiveStatus)
	}
	// Raising the priority shortens the rehydration.
	must(b.SetTier(e.ctx, blob.AccessTierCool, &blob.SetTierOptions{RehydratePriority: to.Ptr(blob.RehydratePriorityHigh)})).on(t)
	e.in.Fake.Advance(2 * time.Second)
	p = e.props(b)
	if *p.AccessTier != "Cool" || p.ArchiveStatus != nil || p.AccessTierChangeTime == nil {
		t.Fatalf("rehydrated blob: %+v", p)
	}
	if got := e.read(b); got != "cold storage" {
		t.Fatalf("rehydrated blob reads %q", got)
	}
	// A Standard rehydration takes its full delay.
	must(b.SetTier(e.ctx, blob.AccessTierArchive, nil)).on(t)
	must(b.SetTier(e.ctx, blob.AccessTierHot, nil)).on(t)
	e.in.Fake.Advance(5 * time.Second)
	if *e.props(b).AccessTier != "Archive" {
		t.Fatal("a standard rehydration ended early")
	}
	e.in.Fake.Advance(6 * time.Second)
	if *e.props(b).AccessTier != "Hot" {
		t.Fatal("a standard rehydration did not end")
	}
}

// TestGetBlobAnswersAccessTier follows azblob's recorded
// TestDownloadStreamAccessTierHeaders: from version 2026-10-06 Get Blob
// answers the access tier headers Get Blob Properties has
// (Azure/azure-sdk-for-go#27196, azure-rest-api-specs#42570). Earlier
// versions do not.
func TestGetBlobAnswersAccessTier(t *testing.T) {
	e := start(t)
	b := e.upload(e.container("dltier"), "b", []byte("x")).BlobClient()
	if _, err := b.SetTier(e.ctx, blob.AccessTierCool, nil); err != nil {
		t.Fatal(err)
	}
	dl, err := b.DownloadStream(e.ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	dl.Body.Close()
	if dl.AccessTier == nil || *dl.AccessTier != "Cool" || dl.AccessTierChangeTime == nil {
		t.Fatalf("download: tier %v change time %v", dl.AccessTier, dl.AccessTierChangeTime)
	}
	if r := e.raw(http.MethodGet, "dltier/b", nil, nil); r.Header.Get("X-Ms-Access-Tier") != "" {
		t.Fatalf("version 2025-01-05 answered x-ms-access-tier %q", r.Header.Get("X-Ms-Access-Tier"))
	}
}

// Put Blob with a tier records when the tier was set, and Delete Blob's
// x-ms-access-tier-if-(un)modified-since compare that instant: a failing
// one is 412 AccessTierChangeTimeConditionNotMet (the SDK's recorded
// TestBlobDeleteAccessTierIfModifiedSince* and IfUnmodifiedSince* tests).
func TestDeleteBlobAccessTierConditions(t *testing.T) {
	e := start(t)
	c := e.container("tiers")
	upload := func(name string) (*blockblob.Client, time.Time) {
		bb := c.NewBlockBlobClient(name)
		must(bb.Upload(e.ctx, nopCloser([]byte("x")), &blockblob.UploadOptions{Tier: to.Ptr(blob.AccessTierHot)})).on(t)
		props := must(bb.GetProperties(e.ctx, nil)).on(t)
		if props.AccessTierChangeTime == nil {
			t.Fatalf("%s: no x-ms-access-tier-change-time after Put Blob with a tier", name)
		}
		return bb, *props.AccessTierChangeTime
	}
	del := func(bb *blockblob.Client, cond blob.AccessTierConditions) error {
		_, err := bb.Delete(e.ctx, &blob.DeleteOptions{AccessTierConditions: &cond})
		return err
	}
	bb, changed := upload("a")
	later, earlier := changed.Add(10*time.Second), changed.Add(-10*time.Second)
	wantCode(t, del(bb, blob.AccessTierConditions{IfModifiedSince: &later}), 412, "AccessTierChangeTimeConditionNotMet")
	wantCode(t, del(bb, blob.AccessTierConditions{IfUnmodifiedSince: &earlier}), 412, "AccessTierChangeTimeConditionNotMet")
	if err := del(bb, blob.AccessTierConditions{IfModifiedSince: &earlier}); err != nil {
		t.Fatal(err)
	}
	bb, _ = upload("b")
	if err := del(bb, blob.AccessTierConditions{IfUnmodifiedSince: &later}); err != nil {
		t.Fatal(err)
	}

	// Without a tier the tier is inferred and has no change time.
	plain := e.upload(c, "inferred", []byte("x"))
	if props := must(plain.GetProperties(e.ctx, nil)).on(t); props.AccessTierChangeTime != nil {
		t.Fatalf("inferred tier has a change time %v", props.AccessTierChangeTime)
	}
}

// An archived snapshot cannot be rehydrated: "rehydrating a blob version
// or snapshot from the archive tier is not supported" (Set Blob Tier; the
// SDK's recorded TestBlockBlobSetTierOnSnapshots).
func TestArchivedSnapshotStaysArchived(t *testing.T) {
	e := start(t)
	c := e.container("snaptier")
	bb := e.upload(c, "b", []byte("x"))
	snap := must(bb.CreateSnapshot(e.ctx, nil)).on(t)
	atSnap, err := bb.WithSnapshot(*snap.Snapshot)
	if err != nil {
		t.Fatal(err)
	}
	must(atSnap.SetTier(e.ctx, blob.AccessTierArchive, nil)).on(t)
	_, err = atSnap.SetTier(e.ctx, blob.AccessTierCool, nil)
	wantCode(t, err, http.StatusConflict, "BlobArchived")
	must(bb.SetTier(e.ctx, blob.AccessTierCool, nil)).on(t) // the base blob is not archived
}
