package blob_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/container"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/lease"
)

// deletedState asserts every listed item's soft-delete properties match
// its Deleted flag.
func deletedState(t *testing.T, items []*container.BlobItem) {
	t.Helper()
	for _, it := range items {
		deleted := it.Deleted != nil && *it.Deleted
		p := it.Properties
		if deleted != (p.DeletedTime != nil) || deleted != (p.RemainingRetentionDays != nil) {
			t.Fatalf("%s: deleted %v, DeletedTime %v, RemainingRetentionDays %v", listing(it), deleted, p.DeletedTime, p.RemainingRetentionDays)
		}
		if deleted && *p.RemainingRetentionDays != 2 {
			t.Fatalf("%s: %d days left", listing(it), *p.RemainingRetentionDays)
		}
	}
}

func TestSoftDeleteAndUndelete(t *testing.T) {
	e := start(t)
	e.setDataProtection(false, 2)
	c := e.container("soft")
	b := e.upload(c, "doc", []byte("keep me")).BlobClient()
	s1 := must(b.CreateSnapshot(e.ctx, nil)).on(t)

	r := e.raw(http.MethodDelete, "soft/doc", http.Header{"x-ms-delete-snapshots": {"include"}}, nil)
	if r.StatusCode != http.StatusAccepted || r.Header.Get("x-ms-delete-type-permanent") != "false" {
		t.Fatalf("soft delete answered %d, permanent %q", r.StatusCode, r.Header.Get("x-ms-delete-type-permanent"))
	}
	_, err := b.GetProperties(e.ctx, nil)
	wantCode(t, err, 404, "")
	if got := e.listed(c, container.ListBlobsInclude{}, 0); got != "" {
		t.Fatalf("plain listing shows %q", got)
	}
	if got := e.listed(c, container.ListBlobsInclude{Deleted: true}, 0); got != "doc~" {
		t.Fatalf("include=deleted: %q", got)
	}
	all := e.listAll(c, container.ListBlobsInclude{Deleted: true, Snapshots: true}, 0)
	if len(all) != 2 || listing(all[0]) != "doc@"+*s1.Snapshot+"~" {
		t.Fatalf("include=deleted,snapshots: %d items", len(all))
	}
	deletedState(t, all)
	if got := e.listed(c, container.ListBlobsInclude{Snapshots: true}, 0); got != "" {
		t.Fatalf("include=snapshots shows deleted snapshots: %q", got)
	}

	must(b.Undelete(e.ctx, nil)).on(t)
	if got := e.read(b); got != "keep me" {
		t.Fatalf("undeleted blob reads %q", got)
	}
	if got := e.listed(c, container.ListBlobsInclude{Deleted: true, Snapshots: true}, 0); got != "doc@"+*s1.Snapshot+" doc" {
		t.Fatalf("after undelete: %q", got)
	}
	// Undelete of a blob with nothing deleted is a no-op; of a blob that
	// never existed, 404.
	must(b.Undelete(e.ctx, nil)).on(t)
	_, err = c.NewBlobClient("never").Undelete(e.ctx, nil)
	wantCode(t, err, 404, "BlobNotFound")

	// Soft-deleted data goes for good when the retention ends.
	must(b.Delete(e.ctx, &blob.DeleteOptions{DeleteSnapshots: to.Ptr(blob.DeleteSnapshotsOptionTypeInclude)})).on(t)
	e.in.Fake.Advance(49 * time.Hour)
	if got := e.listed(c, container.ListBlobsInclude{Deleted: true, Snapshots: true}, 0); got != "" {
		t.Fatalf("after the retention: %q", got)
	}
	_, err = b.Undelete(e.ctx, nil)
	wantCode(t, err, 404, "BlobNotFound")
}

func TestSoftDeleteSnapshotsOnlyAndOne(t *testing.T) {
	e := start(t)
	e.setDataProtection(false, 2)
	c := e.container("softsnap")
	b := e.upload(c, "doc", []byte("x")).BlobClient()
	s1 := must(b.CreateSnapshot(e.ctx, nil)).on(t)
	s2 := must(b.CreateSnapshot(e.ctx, nil)).on(t)
	must(must(b.WithSnapshot(*s1.Snapshot)).on(t).Delete(e.ctx, nil)).on(t)
	items := e.listAll(c, container.ListBlobsInclude{Deleted: true, Snapshots: true}, 0)
	deletedState(t, items)
	if got := e.listed(c, container.ListBlobsInclude{Deleted: true, Snapshots: true}, 0); got != "doc@"+*s1.Snapshot+"~ doc@"+*s2.Snapshot+" doc" {
		t.Fatalf("one snapshot deleted: %q", got)
	}
	must(b.Delete(e.ctx, &blob.DeleteOptions{DeleteSnapshots: to.Ptr(blob.DeleteSnapshotsOptionTypeOnly)})).on(t)
	if got := e.listed(c, container.ListBlobsInclude{Deleted: true, Snapshots: true}, 0); got != "doc@"+*s1.Snapshot+"~ doc@"+*s2.Snapshot+"~ doc" {
		t.Fatalf("snapshots deleted: %q", got)
	}
	must(b.Undelete(e.ctx, nil)).on(t)
	if got := e.listed(c, container.ListBlobsInclude{Deleted: true, Snapshots: true}, 0); got != "doc@"+*s1.Snapshot+" doc@"+*s2.Snapshot+" doc" {
		t.Fatalf("after undelete: %q", got)
	}

	// deletetype=permanent removes a soft-deleted snapshot at once.
	sb := must(b.WithSnapshot(*s2.Snapshot)).on(t)
	must(sb.Delete(e.ctx, nil)).on(t)
	must(sb.Delete(e.ctx, &blob.DeleteOptions{BlobDeleteType: to.Ptr(blob.DeleteTypePermanent)})).on(t)
	must(b.Undelete(e.ctx, nil)).on(t)
	if got := e.listed(c, container.ListBlobsInclude{Deleted: true, Snapshots: true}, 0); got != "doc@"+*s1.Snapshot+" doc" {
		t.Fatalf("after a permanent delete: %q", got)
	}
	resp := e.raw(http.MethodDelete, "softsnap/doc?deletetype=permanent", nil, nil)
	if resp.StatusCode != 400 {
		t.Fatalf("permanent delete of the base blob: %d", resp.StatusCode)
	}
}

func TestSoftDeleteKeepsOverwrites(t *testing.T) {
	e := start(t)
	e.setDataProtection(false, 2)
	c := e.container("softover")
	b := e.upload(c, "doc", []byte("first")).BlobClient()
	e.upload(c, "doc", []byte("second"))
	items := e.listAll(c, container.ListBlobsInclude{Deleted: true, Snapshots: true}, 0)
	if len(items) != 2 || items[0].Snapshot == nil || !*items[0].Deleted {
		t.Fatalf("an overwrite kept no soft-deleted snapshot: %d items", len(items))
	}
	// Metadata changes keep nothing.
	must(b.SetMetadata(e.ctx, map[string]*string{"a": to.Ptr("b")}, nil)).on(t)
	if n := len(e.listAll(c, container.ListBlobsInclude{Deleted: true, Snapshots: true}, 0)); n != 2 {
		t.Fatalf("%d states after Set Blob Metadata", n)
	}
	must(b.Undelete(e.ctx, nil)).on(t)
	old := must(b.WithSnapshot(*items[0].Snapshot)).on(t)
	if got := e.read(old); got != "first" {
		t.Fatalf("restored overwrite reads %q", got)
	}

	// Deleted, written again and deleted again: Undelete restores the
	// last blob and keeps the first as a snapshot.
	d := e.upload(c, "twice", []byte("one")).BlobClient()
	must(d.Delete(e.ctx, nil)).on(t)
	e.upload(c, "twice", []byte("two"))
	must(d.Delete(e.ctx, nil)).on(t)
	must(d.Undelete(e.ctx, nil)).on(t)
	if got := e.read(d); got != "two" {
		t.Fatalf("restored blob reads %q", got)
	}
	var snaps []string
	for _, it := range e.listAll(c, container.ListBlobsInclude{Snapshots: true}, 0) {
		if *it.Name == "twice" && it.Snapshot != nil {
			snaps = append(snaps, e.read(must(d.WithSnapshot(*it.Snapshot)).on(t)))
		}
	}
	if strings.Join(snaps, ",") != "one" {
		t.Fatalf("snapshots of the first blob: %v", snaps)
	}
}

func TestSoftDeleteLeasedBlob(t *testing.T) {
	e := start(t)
	e.setDataProtection(false, 2)
	c := e.container("softlease")
	b := e.upload(c, "doc", []byte("x")).BlobClient()
	lc := must(lease.NewBlobClient(b, &lease.BlobClientOptions{LeaseID: to.Ptr("44444444-4444-4444-4444-444444444444")})).on(t)
	must(lc.AcquireLease(e.ctx, -1, nil)).on(t)
	_, err := b.Delete(e.ctx, nil)
	wantCode(t, err, 412, "LeaseIdMissing")
	must(b.Delete(e.ctx, &blob.DeleteOptions{AccessConditions: &blob.AccessConditions{
		LeaseAccessConditions: &blob.LeaseAccessConditions{LeaseID: lc.LeaseID()}}})).on(t)
	must(b.Undelete(e.ctx, nil)).on(t)
	if p := e.props(b); *p.LeaseState != lease.StateTypeAvailable {
		t.Fatalf("the restored blob is %s", *p.LeaseState)
	}
}
