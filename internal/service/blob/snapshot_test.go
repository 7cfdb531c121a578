package blob_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blockblob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/container"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/lease"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/sas"
)

func TestSnapshotReadsThePastState(t *testing.T) {
	e := start(t)
	c := e.container("snaps")
	bb := e.upload(c, "doc", []byte("first"))
	b := bb.BlobClient()
	base := e.props(b)
	snap := must(b.CreateSnapshot(e.ctx, nil)).on(t)
	if snap.Snapshot == nil || *snap.ETag != *base.ETag || !snap.LastModified.Equal(*base.LastModified) {
		t.Fatalf("snapshot %v etag %v lm %v; base etag %v lm %v", snap.Snapshot, *snap.ETag, snap.LastModified, *base.ETag, base.LastModified)
	}
	e.upload(c, "doc", []byte("second"))
	old := must(b.WithSnapshot(*snap.Snapshot)).on(t)
	if got := e.read(old); got != "first" {
		t.Fatalf("snapshot reads %q", got)
	}
	if got := e.read(b); got != "second" {
		t.Fatalf("base reads %q", got)
	}
	p := e.props(old)
	if *p.ContentLength != 5 || *p.ETag != *base.ETag || p.LeaseState == nil {
		t.Fatalf("snapshot properties: %+v", p)
	}

	// Metadata given to a snapshot makes it a new state.
	withMeta := must(b.CreateSnapshot(e.ctx, &blob.CreateSnapshotOptions{Metadata: map[string]*string{"tag": to.Ptr("v2")}})).on(t)
	now := e.props(b)
	if *withMeta.ETag == *now.ETag {
		t.Fatal("a snapshot with metadata kept the base ETag")
	}
	sp := e.props(must(b.WithSnapshot(*withMeta.Snapshot)).on(t))
	if *sp.Metadata["Tag"] != "v2" || *sp.ETag != *withMeta.ETag {
		t.Fatalf("snapshot metadata %v etag %v", sp.Metadata, *sp.ETag)
	}
	if *now.ETag == *base.ETag || len(now.Metadata) != 0 {
		t.Fatal("the base blob changed")
	}

	got := e.listed(c, container.ListBlobsInclude{Snapshots: true}, 0)
	want := fmt.Sprintf("doc@%s doc@%s doc", *snap.Snapshot, *withMeta.Snapshot)
	if got != want {
		t.Fatalf("listing %q, want %q", got, want)
	}
	if got := e.listed(c, container.ListBlobsInclude{}, 0); got != "doc" {
		t.Fatalf("plain listing %q", got)
	}
}

func TestSnapshotConditionsAndLeases(t *testing.T) {
	e := start(t)
	c := e.container("snapcond")
	b := e.upload(c, "x", []byte("data")).BlobClient()
	_, err := b.CreateSnapshot(e.ctx, &blob.CreateSnapshotOptions{AccessConditions: &blob.AccessConditions{
		ModifiedAccessConditions: &blob.ModifiedAccessConditions{IfMatch: to.Ptr(azcore.ETag(`"0x1"`))}}})
	wantCode(t, err, 412, "ConditionNotMet")
	_, err = c.NewBlobClient("missing").CreateSnapshot(e.ctx, nil)
	wantCode(t, err, 404, "BlobNotFound")

	lc := must(lease.NewBlobClient(b, &lease.BlobClientOptions{LeaseID: to.Ptr("11111111-1111-1111-1111-111111111111")})).on(t)
	must(lc.AcquireLease(e.ctx, -1, nil)).on(t)
	must(b.CreateSnapshot(e.ctx, nil)).on(t) // no lease ID: allowed
	must(b.CreateSnapshot(e.ctx, &blob.CreateSnapshotOptions{AccessConditions: &blob.AccessConditions{
		LeaseAccessConditions: &blob.LeaseAccessConditions{LeaseID: lc.LeaseID()}}})).on(t)
	_, err = b.CreateSnapshot(e.ctx, &blob.CreateSnapshotOptions{AccessConditions: &blob.AccessConditions{
		LeaseAccessConditions: &blob.LeaseAccessConditions{LeaseID: to.Ptr("22222222-2222-2222-2222-222222222222")}}})
	wantCode(t, err, 412, "LeaseIdMismatchWithBlobOperation")

	snap := must(b.CreateSnapshot(e.ctx, nil)).on(t)
	sb := must(b.WithSnapshot(*snap.Snapshot)).on(t)
	// The snapshot carries no lease, and cannot take one.
	if p := e.props(sb); *p.LeaseState != "available" {
		t.Fatalf("snapshot lease state %s", *p.LeaseState)
	}
	sl := must(lease.NewBlobClient(sb, nil)).on(t)
	_, err = sl.AcquireLease(e.ctx, 15, nil)
	wantCode(t, err, 400, "")
	// A snapshot is read-only.
	_, err = sb.SetMetadata(e.ctx, map[string]*string{"a": to.Ptr("b")}, nil)
	wantCode(t, err, 400, "InvalidOperation")
	resp := e.raw(http.MethodGet, "snapcond/x?snapshot=yesterday", nil, nil)
	if resp.StatusCode != 400 || resp.Header.Get("x-ms-error-code") != "InvalidQueryParameterValue" {
		t.Fatalf("bad snapshot value: %d %s", resp.StatusCode, resp.Header.Get("x-ms-error-code"))
	}
	_, err = must(b.WithSnapshot("2001-01-01T00:00:00.0000000Z")).on(t).GetProperties(e.ctx, nil)
	wantCode(t, err, 404, "")
}

func TestDeleteBlobWithSnapshots(t *testing.T) {
	e := start(t)
	c := e.container("snapdel")
	b := e.upload(c, "x", []byte("data")).BlobClient()
	s1 := must(b.CreateSnapshot(e.ctx, nil)).on(t)
	s2 := must(b.CreateSnapshot(e.ctx, nil)).on(t)
	if *s1.Snapshot == *s2.Snapshot {
		t.Fatal("two snapshots share a time")
	}
	_, err := b.Delete(e.ctx, nil)
	wantCode(t, err, 409, "SnapshotsPresent")

	// One snapshot alone.
	must(must(b.WithSnapshot(*s1.Snapshot)).on(t).Delete(e.ctx, nil)).on(t)
	if got := e.listed(c, container.ListBlobsInclude{Snapshots: true}, 0); got != "x@"+*s2.Snapshot+" x" {
		t.Fatalf("after deleting one snapshot: %q", got)
	}
	_, err = must(b.WithSnapshot(*s1.Snapshot)).on(t).Delete(e.ctx, nil)
	wantCode(t, err, 404, "BlobNotFound")
	_, err = must(b.WithSnapshot(*s2.Snapshot)).on(t).Delete(e.ctx, &blob.DeleteOptions{DeleteSnapshots: to.Ptr(blob.DeleteSnapshotsOptionTypeOnly)})
	wantCode(t, err, 400, "")

	// Only the snapshots.
	must(b.CreateSnapshot(e.ctx, nil)).on(t)
	before := e.props(b)
	must(b.Delete(e.ctx, &blob.DeleteOptions{DeleteSnapshots: to.Ptr(blob.DeleteSnapshotsOptionTypeOnly)})).on(t)
	if got := e.listed(c, container.ListBlobsInclude{Snapshots: true}, 0); got != "x" {
		t.Fatalf("after deleting the snapshots: %q", got)
	}
	if after := e.props(b); *after.ETag != *before.ETag {
		t.Fatal("deleting the snapshots changed the base blob")
	}

	// The blob with its snapshots.
	must(b.CreateSnapshot(e.ctx, nil)).on(t)
	must(b.Delete(e.ctx, &blob.DeleteOptions{DeleteSnapshots: to.Ptr(blob.DeleteSnapshotsOptionTypeInclude)})).on(t)
	if got := e.listed(c, container.ListBlobsInclude{Snapshots: true}, 0); got != "" {
		t.Fatalf("after deleting the blob: %q", got)
	}
}

func TestSnapshotBlockListAndPaging(t *testing.T) {
	e := start(t)
	c := e.container("snappage")
	bb := c.NewBlockBlobClient("blocks")
	for _, id := range []string{"AAAA", "BBBB"} {
		must(bb.StageBlock(e.ctx, id, nopCloser([]byte(id)), nil)).on(t)
	}
	must(bb.CommitBlockList(e.ctx, []string{"AAAA", "BBBB"}, nil)).on(t)
	snap := must(bb.CreateSnapshot(e.ctx, nil)).on(t)
	must(bb.CommitBlockList(e.ctx, []string{"AAAA"}, nil)).on(t)
	sbb := must(bb.WithSnapshot(*snap.Snapshot)).on(t)
	bl := must(sbb.GetBlockList(e.ctx, blockblob.BlockListTypeAll, nil)).on(t)
	if len(bl.CommittedBlocks) != 2 || len(bl.UncommittedBlocks) != 0 {
		t.Fatalf("snapshot block list: %d committed, %d uncommitted", len(bl.CommittedBlocks), len(bl.UncommittedBlocks))
	}

	// Pages of two over names with several snapshots each never repeat or
	// lose a state.
	c = e.container("snappage2")
	var want []string
	for _, name := range []string{"a", "b", "c"} {
		b := e.upload(c, name, []byte(name)).BlobClient()
		var states []string
		for i := 0; i < 3; i++ {
			s := must(b.CreateSnapshot(e.ctx, nil)).on(t)
			states = append(states, name+"@"+*s.Snapshot)
		}
		want = append(want, append(states, name)...)
	}
	got := e.listed(c, container.ListBlobsInclude{Snapshots: true}, 2)
	if all := strings.Join(want, " "); got != all {
		t.Fatalf("paged listing\n got %s\nwant %s", got, all)
	}
}

func TestSnapshotAndVersionSAS(t *testing.T) {
	e := start(t)
	e.setDataProtection(true, 0)
	c := e.container("sassnap")
	b := e.upload(c, "odd name ü?.txt", []byte("first")).BlobClient()
	v1 := *e.props(b).VersionID
	snap := must(b.CreateSnapshot(e.ctx, nil)).on(t)
	e.upload(c, "odd name ü?.txt", []byte("second"))

	// A snapshot SAS (sr=bs) reads the snapshot.
	sb := must(b.WithSnapshot(*snap.Snapshot)).on(t)
	url := must(sb.GetSASURL(sas.BlobPermissions{Read: true}, time.Now().Add(time.Hour), nil)).on(t)
	anon := must(blob.NewClientWithNoCredential(url, &blob.ClientOptions{ClientOptions: clientOptions().ClientOptions})).on(t)
	if got := e.read(anon); got != "first" {
		t.Fatalf("snapshot through its SAS reads %q", got)
	}
	// Deleting a version needs the x permission, not d.
	vb := must(b.WithVersionID(v1)).on(t)
	onlyD := must(vb.GetSASURL(sas.BlobPermissions{Delete: true}, time.Now().Add(time.Hour), nil)).on(t)
	_, err := must(blob.NewClientWithNoCredential(onlyD, &blob.ClientOptions{ClientOptions: clientOptions().ClientOptions})).on(t).Delete(e.ctx, nil)
	wantCode(t, err, 403, "")
	withX := must(vb.GetSASURL(sas.BlobPermissions{DeletePreviousVersion: true}, time.Now().Add(time.Hour), nil)).on(t)
	must(must(blob.NewClientWithNoCredential(withX, &blob.ClientOptions{ClientOptions: clientOptions().ClientOptions})).on(t).Delete(e.ctx, nil)).on(t)

	// A copy keeps the name's encoding in x-ms-copy-source.
	dst := c.NewBlobClient("copy")
	must(dst.StartCopyFromURL(e.ctx, b.URL(), nil)).on(t)
	if p := e.props(dst); *p.CopySource != b.URL() || e.read(dst) != "second" {
		t.Fatalf("copy source %s", *p.CopySource)
	}
}
