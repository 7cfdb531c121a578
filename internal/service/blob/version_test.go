package blob_test

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blockblob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/container"

	"github.com/lazuli-storage/lazuli/internal/check/lazulitest"
	"github.com/lazuli-storage/lazuli/internal/run/config"
)

func TestVersioningKeepsEveryWrite(t *testing.T) {
	e := start(t)
	e.setDataProtection(true, 0)
	// The extension reads back from Get Blob Service Properties.
	resp := e.raw(http.MethodGet, "?restype=service&comp=properties", nil, nil)
	if body := string(must(io.ReadAll(resp.Body)).on(t)); !strings.Contains(body, "<IsVersioningEnabled>true</IsVersioningEnabled>") {
		t.Fatalf("service properties: %s", body)
	}
	c := e.container("versions")
	bb := c.NewBlockBlobClient("doc")
	v1 := *must(bb.Upload(e.ctx, nopCloser([]byte("one")), nil)).on(t).VersionID
	v2 := *must(bb.Upload(e.ctx, nopCloser([]byte("two")), nil)).on(t).VersionID
	b := bb.BlobClient()
	v3 := *must(b.SetMetadata(e.ctx, map[string]*string{"k": to.Ptr("v")}, nil)).on(t).VersionID
	if v1 == v2 || v2 == v3 || !(v1 < v2 && v2 < v3) {
		t.Fatalf("version IDs %s %s %s", v1, v2, v3)
	}
	// Properties do not make a version.
	must(b.SetHTTPHeaders(e.ctx, blob.HTTPHeaders{BlobContentType: to.Ptr("text/plain")}, nil)).on(t)
	p := e.props(b)
	if *p.VersionID != v3 || !*p.IsCurrentVersion {
		t.Fatalf("current version %v current %v", *p.VersionID, p.IsCurrentVersion)
	}

	got := e.listed(c, container.ListBlobsInclude{Versions: true}, 0)
	want := fmt.Sprintf("doc#%s doc#%s doc#%s*", v1, v2, v3)
	if got != want {
		t.Fatalf("listing %q, want %q", got, want)
	}
	if got := e.listed(c, container.ListBlobsInclude{}, 0); got != "doc" {
		t.Fatalf("plain listing %q", got)
	}
	old := must(b.WithVersionID(v1)).on(t)
	if got := e.read(old); got != "one" {
		t.Fatalf("version 1 reads %q", got)
	}
	if op := e.props(old); *op.VersionID != v1 || *op.IsCurrentVersion || len(op.Metadata) != 0 {
		t.Fatalf("version 1 properties: %+v", op)
	}
	if got := e.read(must(b.WithVersionID(v3)).on(t)); got != "two" {
		t.Fatalf("the current version by ID reads %q", got)
	}
	_, err := old.SetMetadata(e.ctx, map[string]*string{"a": to.Ptr("b")}, nil)
	wantCode(t, err, 400, "InvalidOperation")

	// Deleting the blob keeps its last state as a version.
	must(b.Delete(e.ctx, nil)).on(t)
	_, err = b.GetProperties(e.ctx, nil)
	wantCode(t, err, 404, "")
	got = e.listed(c, container.ListBlobsInclude{Versions: true}, 0)
	if want := fmt.Sprintf("doc#%s doc#%s doc#%s", v1, v2, v3); got != want {
		t.Fatalf("after delete %q, want %q", got, want)
	}
	if got := e.listed(c, container.ListBlobsInclude{DeletedWithVersions: true}, 0); got != "doc~" {
		t.Fatalf("deletedwithversions listing %q", got)
	}
	items := e.listAll(c, container.ListBlobsInclude{DeletedWithVersions: true}, 0)
	if items[0].HasVersionsOnly == nil || !*items[0].HasVersionsOnly {
		t.Fatal("HasVersionsOnly not set")
	}
	if got := e.read(must(b.WithVersionID(v2)).on(t)); got != "two" {
		t.Fatalf("version 2 after delete reads %q", got)
	}

	// A version can be deleted by its ID (SAS permission x).
	must(must(b.WithVersionID(v1)).on(t).Delete(e.ctx, nil)).on(t)
	_, err = must(b.WithVersionID(v1)).on(t).GetProperties(e.ctx, nil)
	wantCode(t, err, 404, "")
	if got := e.listed(c, container.ListBlobsInclude{Versions: true}, 0); got != fmt.Sprintf("doc#%s doc#%s", v2, v3) {
		t.Fatalf("after deleting version 1: %q", got)
	}
}

func TestVersioningTurnedOff(t *testing.T) {
	e := start(t)
	c := e.container("vtoggle")
	b := e.upload(c, "doc", []byte("before")).BlobClient()
	if p := e.props(b); p.VersionID != nil {
		t.Fatal("a version ID without versioning")
	}
	e.setDataProtection(true, 0)
	// The state written before versioning becomes a version on the
	// first write after.
	v := *must(c.NewBlockBlobClient("doc").Upload(e.ctx, nopCloser([]byte("during")), nil)).on(t).VersionID
	items := e.listAll(c, container.ListBlobsInclude{Versions: true}, 0)
	if len(items) != 2 || *items[1].VersionID != v || e.read(must(b.WithVersionID(*items[0].VersionID)).on(t)) != "before" {
		t.Fatalf("versions after enabling: %d", len(items))
	}
	e.setDataProtection(false, 0)
	// The current version is kept when versioning is off; the new state
	// has no version ID.
	resp := must(c.NewBlockBlobClient("doc").Upload(e.ctx, nopCloser([]byte("after")), nil)).on(t)
	if resp.VersionID != nil {
		t.Fatal("a version ID with versioning off")
	}
	if got := e.read(must(b.WithVersionID(v)).on(t)); got != "during" {
		t.Fatalf("kept version reads %q", got)
	}
}

func TestVersionsWithSnapshotsListedInOrder(t *testing.T) {
	e := start(t)
	e.setDataProtection(true, 0)
	c := e.container("vsnap")
	var want []string
	for _, name := range []string{"a", "b"} {
		bb := c.NewBlockBlobClient(name)
		v1 := *must(bb.Upload(e.ctx, nopCloser([]byte("1")), nil)).on(t).VersionID
		// With versioning on, a snapshot also makes a version: the
		// response names the new current one.
		snap := must(bb.CreateSnapshot(e.ctx, nil)).on(t)
		if snap.VersionID == nil || *snap.VersionID <= v1 {
			t.Fatalf("snapshot version ID %v after %s", snap.VersionID, v1)
		}
		v2 := *must(bb.Upload(e.ctx, nopCloser([]byte("2")), &blockblob.UploadOptions{})).on(t).VersionID
		want = append(want, name+"@"+*snap.Snapshot, name+"#"+v1, name+"#"+*snap.VersionID, name+"#"+v2+"*")
	}
	for _, page := range []int32{0, 1, 2, 4} {
		var got []string
		for _, it := range e.listAll(c, container.ListBlobsInclude{Versions: true, Snapshots: true}, page) {
			got = append(got, listing(it))
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("pages of %d:\n got %v\nwant %v", page, got, want)
		}
	}
}

func TestStatesWithDelimiterAndContainerDelete(t *testing.T) {
	e := start(t)
	e.setDataProtection(true, 2)
	c := e.container("states")
	for _, name := range []string{"dir/a", "dir/b", "top"} {
		b := e.upload(c, name, []byte(name)).BlobClient()
		must(b.CreateSnapshot(e.ctx, nil)).on(t)
		e.upload(c, name, []byte(name+" again"))
	}
	must(c.NewBlobClient("dir/a").Delete(e.ctx, &blob.DeleteOptions{DeleteSnapshots: to.Ptr(blob.DeleteSnapshotsOptionTypeInclude)})).on(t)

	// With a delimiter the states of a directory's blobs roll up into one
	// prefix; a name with only deleted states shows only when asked.
	pager := c.NewListBlobsHierarchyPager("/", &container.ListBlobsHierarchyOptions{
		Include: container.ListBlobsInclude{Snapshots: true, Versions: true, Deleted: true}})
	var got []string
	for pager.More() {
		page := must(pager.NextPage(e.ctx)).on(t)
		for _, p := range page.Segment.BlobPrefixes {
			got = append(got, *p.Name)
		}
		for _, it := range page.Segment.BlobItems {
			got = append(got, *it.Name)
		}
	}
	// top: its snapshot, the version the snapshot made, the one it
	// superseded, and the current one.
	if strings.Join(got, ",") != "dir/,top,top,top,top" {
		t.Fatalf("hierarchy listing %v", got)
	}

	// Deleting the container removes every state with it.
	must(c.Delete(e.ctx, nil)).on(t)
	c = e.container("states")
	if got := e.listed(c, container.ListBlobsInclude{Snapshots: true, Versions: true, Deleted: true}, 0); got != "" {
		t.Fatalf("a new container with the old name lists %q", got)
	}
}

// TestBlobVersioningDefault: --blobVersioning turns versioning on for every
// account that has not set it, as the accounts of the SDKs' live tests
// have it on, so their code runs unchanged. An account's own setting wins.
func TestBlobVersioningDefault(t *testing.T) {
	e := startWith(t, lazulitest.Options{InMemory: true, Configure: func(c *config.Config) { c.BlobVersioning = true }})
	resp := e.raw(http.MethodGet, "?restype=service&comp=properties", nil, nil)
	if body := string(must(io.ReadAll(resp.Body)).on(t)); !strings.Contains(body, "<IsVersioningEnabled>true</IsVersioningEnabled>") {
		t.Fatalf("service properties: %s", body)
	}
	bb := e.container("defaultver").NewBlockBlobClient("doc")
	if up := must(bb.Upload(e.ctx, nopCloser([]byte("one")), nil)).on(t); up.VersionID == nil {
		t.Fatal("no version ID with --blobVersioning")
	}
	e.setDataProtection(false, 0)
	if up := must(bb.Upload(e.ctx, nopCloser([]byte("two")), nil)).on(t); up.VersionID != nil {
		t.Fatalf("version ID %s after the account turned versioning off", *up.VersionID)
	}
}

// TestRootBlobAndSelectorConflicts replays two recorded answers of
// azure-sdk-for-js (sdk/storage/storage-blob/recordings/node/blob_versioning):
// "deleting root blob with versionid should fail", where DELETE
// ?versionid= of the current version is 403 OperationNotAllowedOnRootBlob
// and the blob stays, while an older version deletes; and "get properties
// of a blob version", where a request naming both ?snapshot= and
// ?versionid= is 400 MutuallyExclusiveQueryParameters.
func TestRootBlobAndSelectorConflicts(t *testing.T) {
	e := start(t)
	e.setDataProtection(true, 0)
	c := e.container("rootblob")
	bb := c.NewBlockBlobClient("blob")
	v1 := *must(bb.Upload(e.ctx, nopCloser([]byte("Hello World")), nil)).on(t).VersionID
	v2 := *must(bb.Upload(e.ctx, nil, nil)).on(t).VersionID

	must(must(bb.WithVersionID(v1)).on(t).Delete(e.ctx, nil)).on(t)
	_, err := must(bb.WithVersionID(v2)).on(t).Delete(e.ctx, nil)
	wantCode(t, err, http.StatusForbidden, "OperationNotAllowedOnRootBlob")
	if p := e.props(bb.BlobClient()); *p.VersionID != v2 {
		t.Fatalf("root blob after the refused delete: version %s", *p.VersionID)
	}

	snap := *must(bb.CreateSnapshot(e.ctx, nil)).on(t).Snapshot
	resp := e.raw(http.MethodHead, "rootblob/blob?snapshot="+snap+"&versionid="+v2, nil, nil)
	if resp.StatusCode != http.StatusBadRequest || resp.Header.Get("X-Ms-Error-Code") != "MutuallyExclusiveQueryParameters" {
		t.Fatalf("snapshot with versionid: %d %s", resp.StatusCode, resp.Header.Get("X-Ms-Error-Code"))
	}
}
