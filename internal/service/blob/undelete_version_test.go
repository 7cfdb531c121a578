package blob_test

import (
	"net/http"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blob"
)

// TestUndeleteSoftDeletedVersion replays the JavaScript SDK's recorded
// "undelete a soft-deleted version" (storage-blob recordings/browsers/
// blob_versioning/recording_undelete_a_softdeleted_version.json): with
// versioning and a 7-day delete retention, a blob written twice has its
// first version deleted (202, x-ms-delete-type-permanent: false; a HEAD of
// it 404 BlobNotFound); Undelete Blob on the blob answers 200 and the
// version reads again.
func TestUndeleteSoftDeletedVersion(t *testing.T) {
	e := start(t)
	e.setDataProtection(true, 7)
	c := e.container("undelver")
	first, err := c.NewBlockBlobClient("b").Upload(e.ctx, nopCloser([]byte("Hello World")), nil)
	if err != nil {
		t.Fatal(err)
	}
	e.upload(c, "b", nil)
	v1 := "undelver/b?versionid=" + *first.VersionID
	del := e.raw(http.MethodDelete, v1, nil, nil)
	if del.StatusCode != http.StatusAccepted || del.Header.Get("X-Ms-Delete-Type-Permanent") != "false" {
		t.Fatalf("delete version: %d permanent=%q", del.StatusCode, del.Header.Get("X-Ms-Delete-Type-Permanent"))
	}
	if r := e.raw(http.MethodHead, v1, nil, nil); r.StatusCode != http.StatusNotFound || r.Header.Get("X-Ms-Error-Code") != "BlobNotFound" {
		t.Fatalf("head deleted version: %d %s", r.StatusCode, r.Header.Get("X-Ms-Error-Code"))
	}
	if _, err := c.NewBlobClient("b").Undelete(e.ctx, &blob.UndeleteOptions{}); err != nil {
		t.Fatalf("undelete: %v", err)
	}
	if r := e.raw(http.MethodHead, v1, nil, nil); r.StatusCode != http.StatusOK || r.Header.Get("Content-Length") != "11" {
		t.Fatalf("head restored version: %d length %s", r.StatusCode, r.Header.Get("Content-Length"))
	}
}
