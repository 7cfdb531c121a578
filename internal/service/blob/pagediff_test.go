package blob_test

import (
	"fmt"
	"net/url"
	"reflect"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/pageblob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/sas"
)

// diffFrom lists the changed and cleared ranges of pb since the snapshot
// at prevURL, following markers.
func (e *env) diffFrom(pb *pageblob.Client, prevURL string) (changed, cleared [][2]int64, err error) {
	pager := pb.NewGetPageRangesDiffPager(&pageblob.GetPageRangesDiffOptions{PrevSnapshotURL: &prevURL})
	for pager.More() {
		page, err := pager.NextPage(e.ctx)
		if err != nil {
			return nil, nil, err
		}
		for _, r := range page.PageRange {
			changed = append(changed, [2]int64{*r.Start, *r.End})
		}
		for _, r := range page.ClearRange {
			cleared = append(cleared, [2]int64{*r.Start, *r.End})
		}
	}
	return changed, cleared, nil
}

func snapshotURL(b interface{ URL() string }, snapshot string) string {
	return b.URL() + "?snapshot=" + url.QueryEscape(snapshot)
}

// TestPageRangesDiffAcrossBlobs: x-ms-previous-snapshot-url may name a
// snapshot of another page blob (managed disks: a disk made from a
// snapshot, diffed against it). Changed are the pages whose content
// differs or that the snapshot never wrote, cleared those the snapshot
// wrote and the blob no longer has.
func TestPageRangesDiffAcrossBlobs(t *testing.T) {
	engines(t, func(t *testing.T, e *env) {
		c := e.container("disks")
		base := e.newPageBlob(c, "base", 8*512, nil)
		e.putPages(base, 0, fill(1024, 1))
		e.putPages(base, 2048, fill(512, 2))
		snap := *must(base.CreateSnapshot(e.ctx, nil)).on(t).Snapshot
		prevURL := snapshotURL(base, snap)

		// A disk made from the snapshot shares its pages.
		disk := c.NewPageBlobClient("disk")
		if st := must(disk.StartCopyFromURL(e.ctx, prevURL, nil)).on(t).CopyStatus; *st != blob.CopyStatusTypeSuccess {
			t.Fatalf("copy status %s", *st)
		}
		if changed, cleared, err := e.diffFrom(disk, prevURL); err != nil || changed != nil || cleared != nil {
			t.Fatalf("a fresh copy differs: %v %v %v", changed, cleared, err)
		}
		e.putPages(disk, 0, fill(512, 1))    // the same bytes again: no change
		e.putPages(disk, 512, fill(512, 9))  // new bytes
		e.putPages(disk, 3072, fill(512, 3)) // a page the snapshot never wrote
		must(disk.ClearPages(e.ctx, blob.HTTPRange{Offset: 2048, Count: 512}, nil)).on(t)
		changed, cleared, err := e.diffFrom(disk, prevURL)
		if err != nil || fmt.Sprint(changed) != "[[512 1023] [3072 3583]]" || fmt.Sprint(cleared) != "[[2048 2559]]" {
			t.Fatalf("diff: changed %v cleared %v (%v)", changed, cleared, err)
		}

		// A disk written on its own with the snapshot's content does not
		// differ either: contents are compared, not storage.
		twin := e.newPageBlob(c, "twin", 8*512, nil)
		e.putPages(twin, 0, fill(1024, 1))
		e.putPages(twin, 2048, fill(512, 2))
		if changed, cleared, err := e.diffFrom(twin, prevURL); err != nil || changed != nil || cleared != nil {
			t.Fatalf("an identical disk differs: %v %v %v", changed, cleared, err)
		}

		// The bad URLs, with the service's codes.
		block := e.upload(c, "block", []byte("x"))
		blockSnap := *must(block.CreateSnapshot(e.ctx, nil)).on(t).Snapshot
		for _, tc := range []struct {
			url    string
			status int
			code   string
		}{
			{snapshotURL(block, blockSnap), 409, "InvalidBlobType"},
			{snapshotURL(c.NewBlobClient("nosuch"), snap), 409, "PreviousSnapshotNotFound"},
			{snapshotURL(e.svc.NewContainerClient("nocontainer").NewBlobClient("x"), snap), 409, "PreviousSnapshotNotFound"},
			{"http://192.0.2.1:9/devstoreaccount1/disks/base?snapshot=" + url.QueryEscape(snap), 409, "PreviousSnapshotOperationNotSupported"},
			{base.URL(), 400, "InvalidHeaderValue"},
			{"not a url", 400, "InvalidHeaderValue"},
		} {
			_, _, err := e.diffFrom(disk, tc.url)
			wantCode(t, err, tc.status, tc.code)
		}

		// A caller whose SAS covers only the disk may not read another
		// blob's page map unless the URL carries its own SAS.
		diskSAS := must(pageblob.NewClientWithNoCredential(sasURL(t, e, sas.BlobSignatureValues{ContainerName: "disks", BlobName: "disk",
			Permissions: (&sas.BlobPermissions{Read: true}).String()}), &pageblob.ClientOptions{ClientOptions: clientOptions().ClientOptions})).on(t)
		_, _, err = e.diffFrom(diskSAS, prevURL)
		wantCode(t, err, 403, "AuthorizationFailure")
		readable := sasURL(t, e, sas.BlobSignatureValues{ContainerName: "disks", Permissions: (&sas.ContainerPermissions{Read: true}).String()})
		u := must(url.Parse(readable)).on(t)
		u.Path += "/base"
		q := u.Query()
		q.Set("snapshot", snap)
		u.RawQuery = q.Encode()
		if changed, _, err := e.diffFrom(diskSAS, u.String()); err != nil || len(changed) != 2 {
			t.Fatalf("with a SAS in the URL: %v %v", changed, err)
		}
	})
}

// TestPageRangesDiffReportsPagesClearedSinceSnapshot follows
// azure-sdk-for-python's recorded test_get_page_ranges_diff and
// test_list_page_ranges_diff (tests/test_page_blob.py): a snapshot of an
// empty 2048-byte blob, 1536 bytes written, a second snapshot, then the
// page at 512 cleared. Against the first snapshot, which held nothing
// there, the service reports 0-511 and 1024-1535 as written and 512-1023
// as cleared; against the second, only 512-1023 as cleared. A page
// cleared before the snapshot is no change since it.
func TestPageRangesDiffReportsPagesClearedSinceSnapshot(t *testing.T) {
	e := start(t)
	c := e.container("cleared")
	pb := e.newPageBlob(c, "disk", 2048, nil)
	snap1 := *must(pb.CreateSnapshot(e.ctx, nil)).on(t).Snapshot
	e.putPages(pb, 0, fill(1536, 1))
	snap2 := *must(pb.CreateSnapshot(e.ctx, nil)).on(t).Snapshot
	must(pb.ClearPages(e.ctx, blob.HTTPRange{Offset: 512, Count: 512}, nil)).on(t)
	for _, c := range []struct {
		snap             string
		changed, cleared [][2]int64
	}{
		{snap1, [][2]int64{{0, 511}, {1024, 1535}}, [][2]int64{{512, 1023}}},
		{snap2, nil, [][2]int64{{512, 1023}}},
	} {
		changed, cleared, err := e.diffFrom(pb, snapshotURL(pb, c.snap))
		if err != nil || !reflect.DeepEqual(changed, c.changed) || !reflect.DeepEqual(cleared, c.cleared) {
			t.Errorf("since %s: changed %v cleared %v (%v), want %v and %v", c.snap, changed, cleared, err, c.changed, c.cleared)
		}
	}
	snap3 := *must(pb.CreateSnapshot(e.ctx, nil)).on(t).Snapshot
	if changed, cleared, err := e.diffFrom(pb, snapshotURL(pb, snap3)); err != nil || changed != nil || cleared != nil {
		t.Fatalf("since a snapshot taken after the clear: %v %v %v", changed, cleared, err)
	}
}
