package blob_test

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/container"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/sas"
)

// TestBackslashInBlobNameIsSlash replays the JavaScript SDK's recorded
// "Should work with special blob name characters" (storage-blob
// recordings/node/special_naming_tests/
// recording_should_work_with_special_blob_name_characters.json): a Put
// Blob whose path carries "%5C" creates a blob whose name has "/" there
// (List Blobs answers "...[]/:..." for "...[]\:..."; the test's comment
// says the service replaces "\" with "/" in blob names), and the blob is
// reached by either spelling.
func TestBackslashInBlobNameIsSlash(t *testing.T) {
	e := start(t)
	c := e.container("bslash")
	if r := e.raw(http.MethodPut, "bslash/dir%5Cleaf", http.Header{"X-Ms-Blob-Type": {"BlockBlob"}}, []byte("A")); r.StatusCode != http.StatusCreated {
		t.Fatalf("put: %d %s", r.StatusCode, r.Header.Get("X-Ms-Error-Code"))
	}
	page, err := c.NewListBlobsFlatPager(&container.ListBlobsFlatOptions{Prefix: to.Ptr("dir")}).NextPage(e.ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Segment.BlobItems) != 1 || *page.Segment.BlobItems[0].Name != "dir/leaf" {
		var names []string
		for _, b := range page.Segment.BlobItems {
			names = append(names, *b.Name)
		}
		t.Fatalf("listed %q, want [dir/leaf]", names)
	}
	for _, path := range []string{"bslash/dir/leaf", "bslash/dir%5Cleaf"} {
		r := e.raw(http.MethodGet, path, nil, nil)
		body, _ := io.ReadAll(r.Body)
		if r.StatusCode != http.StatusOK || string(body) != "A" {
			t.Fatalf("get %s: %d %q", path, r.StatusCode, body)
		}
	}
	// A service SAS signed for the name as the caller spelled it still
	// reaches the blob.
	u := sasURL(t, e, sas.BlobSignatureValues{ContainerName: "bslash", BlobName: `dir\leaf`,
		Permissions: (&sas.BlobPermissions{Read: true}).String()})
	r, err := http.Get(strings.Replace(u, `dir\leaf`, "dir%5Cleaf", 1))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Body.Close()
	if r.StatusCode != http.StatusOK {
		t.Fatalf("get with a SAS for dir\\leaf: %d %s", r.StatusCode, r.Header.Get("X-Ms-Error-Code"))
	}
}
