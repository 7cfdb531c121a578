package blob_test

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

// TestNamesXMLCannotCarry: names holding characters XML 1.0 cannot carry
// are listed percent-encoded (Encoded="true") and azblob decodes them back,
// so every listed name reaches its own blob. Before, they listed as U+FFFD
// and two such blobs listed under one name. Invalid UTF-8 is refused.
func TestNamesXMLCannotCarry(t *testing.T) {
	e := start(t)
	c := e.container("oddnames")
	names := []string{"nul\x00x", "bell\x07y", "ffff\uffffz", "fffe\ufffez", "cr\rlf\nq", "plain+space here"}
	for _, n := range names {
		e.upload(c, n, []byte(n))
	}
	listed := map[string]bool{}
	pager := c.NewListBlobsFlatPager(nil)
	for pager.More() {
		page, err := pager.NextPage(e.ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range page.Segment.BlobItems {
			listed[*b.Name] = true
		}
	}
	for _, n := range names {
		if !listed[n] {
			t.Errorf("%q is not listed under its own name (listed: %v)", n, listed)
		}
		if got := e.download(c.NewBlockBlobClient(n)); string(got) != n {
			t.Errorf("%q reads %q", n, got)
		}
	}
	r := e.raw(http.MethodGet, "oddnames?restype=container&comp=list", nil, nil)
	body, _ := io.ReadAll(r.Body)
	if !strings.Contains(string(body), `<Name Encoded="true">nul%00x</Name>`) {
		t.Errorf("no encoded name in %s", body)
	}
	if !strings.Contains(string(body), "<Etag>0x") {
		t.Errorf("List Blobs ETags are quoted: %s", body)
	}
	bad := e.raw(http.MethodPut, "oddnames/bad%FFname", http.Header{"X-Ms-Blob-Type": {"BlockBlob"}}, []byte("x"))
	if bad.StatusCode != http.StatusBadRequest || bad.Header.Get("X-Ms-Error-Code") != "InvalidResourceName" {
		t.Errorf("invalid UTF-8 name: %d %s", bad.StatusCode, bad.Header.Get("X-Ms-Error-Code"))
	}
}

// TestUncommittedBlobMakesNoPrefix: a blob that has only uncommitted blocks
// is invisible to a listing that does not ask for uncommitted blobs, with a
// delimiter too. Before, it showed up as a BlobPrefix of its directory.
func TestUncommittedBlobMakesNoPrefix(t *testing.T) {
	e := start(t)
	c := e.container("staged")
	if _, err := c.NewBlockBlobClient("dir/only-staged").StageBlock(e.ctx, "YmxvY2sx", nopCloser([]byte("x")), nil); err != nil {
		t.Fatal(err)
	}
	e.upload(c, "top", []byte("x"))
	page, err := c.NewListBlobsHierarchyPager("/", nil).NextPage(e.ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Segment.BlobPrefixes) != 0 || len(page.Segment.BlobItems) != 1 {
		t.Fatalf("listing with a delimiter: %d prefixes, %d blobs; want 0 and 1", len(page.Segment.BlobPrefixes), len(page.Segment.BlobItems))
	}
}
