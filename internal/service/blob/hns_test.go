package blob_test

import (
	"net/http"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blockblob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/container"
)

// A blob created through the Blob API (Put Blob of a block or append
// blob, Put Block List, Copy Blob) on an account with a hierarchical
// namespace gets the directories above it ("Blob Storage features
// available in Azure Data Lake Storage": the namespace is one, whichever
// API writes), and the Data Lake SDK reads them as directories with the
// default owner and permissions through its GetProperties, a Blob HEAD.
func TestHNSBlobWritesCreateTheirParents(t *testing.T) {
	e := startHNS(t)
	c := e.container("tree")
	e.upload(c, "put/a/b.txt", []byte("x"))

	bb := c.NewBlockBlobClient("list/a/b.txt")
	must(bb.StageBlock(e.ctx, "YmxvY2sx", nopCloser([]byte("x")), nil)).on(t)
	must(bb.CommitBlockList(e.ctx, []string{"YmxvY2sx"}, nil)).on(t)

	must(c.NewAppendBlobClient("append/a/b.log").Create(e.ctx, nil)).on(t)

	src := e.upload(c, "source", []byte("x"))
	must(c.NewBlobClient("copy/a/b.txt").StartCopyFromURL(e.ctx, src.URL(), nil)).on(t)

	fs := e.filesystemClient("tree")
	for _, dir := range []string{"put", "put/a", "list", "list/a", "append", "append/a", "copy", "copy/a"} {
		p, err := fs.NewDirectoryClient(dir).GetProperties(e.ctx, nil)
		if err != nil {
			t.Fatalf("directory %s: %v", dir, err)
		}
		if p.ResourceType == nil || *p.ResourceType != "directory" || p.Owner == nil || *p.Owner != "$superuser" ||
			p.Permissions == nil || *p.Permissions != "rwxr-x---" || *p.ContentLength != 0 {
			t.Fatalf("directory %s: type %v owner %v permissions %v", dir, p.ResourceType, p.Owner, p.Permissions)
		}
	}
	if md := e.props(c.NewBlobClient("put/a")).Metadata; md["Hdi_isfolder"] == nil || *md["Hdi_isfolder"] != "true" {
		t.Fatalf("parent's metadata %v, want hdi_isfolder=true", md)
	}
}

// A flat account keeps its blob names as names: no blob appears above one.
func TestFlatBlobWritesCreateNoParents(t *testing.T) {
	e := start(t)
	c := e.container("flat")
	e.upload(c, "a/b.txt", []byte("x"))
	_, err := c.NewBlobClient("a").GetProperties(e.ctx, nil)
	wantCode(t, err, http.StatusNotFound, "BlobNotFound")
}

// A blob whose parent is a file cannot be written: the file can have no
// paths under it. The Blob API answers as Path Create does for the same
// name, 409 PathConflict, and writes nothing.
func TestHNSBlobUnderAFileIsAConflict(t *testing.T) {
	e := startHNS(t)
	c := e.container("tree")
	e.upload(c, "d/f", []byte("file"))

	_, err := c.NewBlockBlobClient("d/f/g").Upload(e.ctx, nopCloser([]byte("x")), nil)
	wantCode(t, err, http.StatusConflict, "PathConflict")

	bb := c.NewBlockBlobClient("d/f/h")
	must(bb.StageBlock(e.ctx, "YmxvY2sx", nopCloser([]byte("x")), nil)).on(t)
	_, err = bb.CommitBlockList(e.ctx, []string{"YmxvY2sx"}, nil)
	wantCode(t, err, http.StatusConflict, "PathConflict")

	_, err = c.NewBlobClient("d/f/i").StartCopyFromURL(e.ctx, c.NewBlobClient("d/f").URL(), nil)
	wantCode(t, err, http.StatusConflict, "PathConflict")

	for _, name := range []string{"d/f/g", "d/f/i"} {
		_, err = c.NewBlobClient(name).GetProperties(e.ctx, nil)
		wantCode(t, err, http.StatusNotFound, "BlobNotFound")
	}
	if got := string(e.download(c.NewBlockBlobClient("d/f"))); got != "file" {
		t.Fatalf("the parent file reads %q", got)
	}
}

// Delete Blob of a directory deletes it only when it is empty ("Known
// issues with Azure Data Lake Storage": the Blob API cannot delete a
// directory recursively); a non-empty one is 409 DirectoryIsNotEmpty, as
// recorded in Azure/azure-cli#23062. x-ms-delete-snapshots on a
// directory is 400 OperationNotSupportedOnDirectory, as recorded in
// Azure/azure-storage-fuse#1068.
func TestHNSDeleteBlobOfADirectory(t *testing.T) {
	e := startHNS(t)
	c := e.container("tree")
	e.upload(c, "d/e/f", []byte("x"))

	_, err := c.NewBlobClient("d").Delete(e.ctx, nil)
	wantCode(t, err, http.StatusConflict, "DirectoryIsNotEmpty")
	_, err = c.NewBlobClient("d/e").Delete(e.ctx, nil)
	wantCode(t, err, http.StatusConflict, "DirectoryIsNotEmpty")
	_, err = c.NewBlobClient("d/e").Delete(e.ctx, &blob.DeleteOptions{DeleteSnapshots: to.Ptr(blob.DeleteSnapshotsOptionTypeInclude)})
	wantCode(t, err, http.StatusBadRequest, "OperationNotSupportedOnDirectory")

	must(c.NewBlobClient("d/e/f").Delete(e.ctx, nil)).on(t)
	must(c.NewBlobClient("d/e").Delete(e.ctx, nil)).on(t)
	must(c.NewBlobClient("d").Delete(e.ctx, nil)).on(t)
	if names := blobNames(t, e, c); len(names) != 0 {
		t.Fatalf("left after the deletes: %v", names)
	}
}

// A file with x-ms-delete-snapshots is deleted as on a flat account.
func TestHNSDeleteBlobOfAFileWithSnapshots(t *testing.T) {
	e := startHNS(t)
	c := e.container("tree")
	b := e.upload(c, "d/f", []byte("x"))
	must(b.CreateSnapshot(e.ctx, nil)).on(t)
	must(b.Delete(e.ctx, &blob.DeleteOptions{DeleteSnapshots: to.Ptr(blob.DeleteSnapshotsOptionTypeInclude)})).on(t)
	if names := blobNames(t, e, c); len(names) != 1 || names[0] != "d" {
		t.Fatalf("left after the delete: %v", names)
	}
}

// blobNames lists the container's blob names, flat.
func blobNames(t *testing.T, e *env, c *container.Client) []string {
	t.Helper()
	var names []string
	pager := c.NewListBlobsFlatPager(nil)
	for pager.More() {
		page := must(pager.NextPage(e.ctx)).on(t)
		for _, item := range page.Segment.BlobItems {
			names = append(names, *item.Name)
		}
	}
	return names
}

// A file written over a directory would leave the directory's paths under
// a file: Put Blob and Put Block List over a directory are 409
// PathConflict, as Path Create answers a file created over a directory,
// and the tree reads as before. A directory written again as a directory
// (hdi_isfolder=true, as tools that make directory markers write it) is
// accepted.
func TestHNSFileOverADirectoryIsAConflict(t *testing.T) {
	e := startHNS(t)
	c := e.container("tree")
	e.upload(c, "d/f", []byte("file"))

	_, err := c.NewBlockBlobClient("d").Upload(e.ctx, nopCloser([]byte("x")), nil)
	wantCode(t, err, http.StatusConflict, "PathConflict")
	bb := c.NewBlockBlobClient("d")
	must(bb.StageBlock(e.ctx, "YmxvY2sx", nopCloser([]byte("x")), nil)).on(t)
	_, err = bb.CommitBlockList(e.ctx, []string{"YmxvY2sx"}, nil)
	wantCode(t, err, http.StatusConflict, "PathConflict")

	_, err = c.NewBlockBlobClient("d").Upload(e.ctx, nopCloser(nil),
		&blockblob.UploadOptions{Metadata: map[string]*string{"hdi_isfolder": to.Ptr("true")}})
	if err != nil {
		t.Fatalf("a directory written again as a directory: %v", err)
	}
	if got := string(e.download(c.NewBlockBlobClient("d/f"))); got != "file" {
		t.Fatalf("the file under the directory reads %q", got)
	}
}

// Page blobs and blob index tags are Blob features an account with a
// hierarchical namespace lacks (hns_limits.go cites the answers): page
// blob operations are 409 FeatureNotYetSupportedForHierarchicalNamespaceAccounts,
// Get and Set Blob Tags 400 InvalidQueryParameterValue naming comp, and a
// write with x-ms-tags the 409, writing nothing. A flat account serves all.
func TestHNSRefusesPageBlobsAndTags(t *testing.T) {
	const featureMissing = "FeatureNotYetSupportedForHierarchicalNamespaceAccounts"
	e := startHNS(t)
	c := e.container("tree")
	file := e.upload(c, "dir/file.txt", []byte("x"))

	pages := c.NewPageBlobClient("dir/disk.vhd")
	_, err := pages.Create(e.ctx, 512, nil)
	wantCode(t, err, http.StatusConflict, featureMissing)
	_, err = pages.UploadPages(e.ctx, nopCloser(make([]byte, 512)), blob.HTTPRange{Count: 512}, nil)
	wantCode(t, err, http.StatusConflict, featureMissing)
	_, err = pages.NewGetPageRangesPager(nil).NextPage(e.ctx)
	wantCode(t, err, http.StatusConflict, featureMissing)
	_, err = pages.Resize(e.ctx, 1024, nil)
	wantCode(t, err, http.StatusConflict, featureMissing)

	_, err = file.SetTags(e.ctx, map[string]string{"k": "v"}, nil)
	wantCode(t, err, http.StatusBadRequest, "InvalidQueryParameterValue")
	_, err = file.GetTags(e.ctx, nil)
	wantCode(t, err, http.StatusBadRequest, "InvalidQueryParameterValue")
	_, err = c.NewBlockBlobClient("dir/tagged.txt").Upload(e.ctx, nopCloser([]byte("x")),
		&blockblob.UploadOptions{Tags: map[string]string{"k": "v"}})
	wantCode(t, err, http.StatusConflict, featureMissing)
	_, err = c.NewBlobClient("dir/tagged.txt").GetProperties(e.ctx, nil)
	wantCode(t, err, http.StatusNotFound, "BlobNotFound")

	flat := start(t)
	fc := flat.container("flat")
	must(fc.NewPageBlobClient("disk.vhd").Create(flat.ctx, 512, nil)).on(t)
	must(fc.NewBlockBlobClient("tagged.txt").Upload(flat.ctx, nopCloser([]byte("x")),
		&blockblob.UploadOptions{Tags: map[string]string{"k": "v"}})).on(t)
	must(fc.NewBlobClient("tagged.txt").GetTags(flat.ctx, nil)).on(t)
}
