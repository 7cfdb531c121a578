package blob_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blockblob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/container"
)

func TestListBlobsFlat(t *testing.T) {
	e := start(t)
	c := e.container("flat")
	names := []string{"b", "a", "a/1", "a/2", "c\u00e9", "B", "a-", "a/sub/x"}
	for _, n := range names {
		c.NewBlockBlobClient(n).Upload(e.ctx, nopCloser([]byte(n)), &blockblob.UploadOptions{
			Metadata: map[string]*string{"name": to.Ptr("v")}, HTTPHeaders: &blob.HTTPHeaders{BlobContentType: to.Ptr("text/x")}})
	}
	var got []string
	pages := 0
	pager := c.NewListBlobsFlatPager(&container.ListBlobsFlatOptions{MaxResults: to.Ptr(int32(3)), Include: container.ListBlobsInclude{Metadata: true}})
	for pager.More() {
		page, err := pager.NextPage(e.ctx)
		if err != nil {
			t.Fatal(err)
		}
		pages++
		for _, it := range page.Segment.BlobItems {
			got = append(got, *it.Name)
			p := it.Properties
			if *p.ContentType != "text/x" || *p.BlobType != blob.BlobTypeBlockBlob || *p.AccessTier != "Hot" || !*p.AccessTierInferred ||
				!*p.ServerEncrypted || p.ETag == nil || p.CreationTime == nil || p.LastModified == nil || p.ContentMD5 == nil || *it.Metadata["name"] != "v" {
				t.Fatalf("item %s: %+v", *it.Name, p)
			}
		}
	}
	// Byte-wise order: upper case before lower, "a-" before "a/".
	want := "B,a,a-,a/1,a/2,a/sub/x,b,c\u00e9"
	if strings.Join(got, ",") != want || pages != 3 {
		t.Fatalf("%d pages, order %v", pages, got)
	}
	pager = c.NewListBlobsFlatPager(&container.ListBlobsFlatOptions{Prefix: to.Ptr("a/")})
	page, _ := pager.NextPage(e.ctx)
	if len(page.Segment.BlobItems) != 3 || page.Prefix == nil || *page.Prefix != "a/" {
		t.Fatalf("prefix a/: %d items", len(page.Segment.BlobItems))
	}
	resp := e.raw(http.MethodGet, "flat?restype=container&comp=list&maxresults=-1", nil, nil)
	if resp.StatusCode != 400 {
		t.Fatalf("maxresults=-1: %d", resp.StatusCode)
	}
	resp = e.raw(http.MethodGet, "flat?restype=container&comp=list&include=bogus", nil, nil)
	if resp.StatusCode != 400 {
		t.Fatalf("include=bogus: %d", resp.StatusCode)
	}
	// Values left to later work are tolerated.
	resp = e.raw(http.MethodGet, "flat?restype=container&comp=list&include=snapshots,deleted,tags,versions,copy", nil, nil)
	if resp.StatusCode != 200 {
		t.Fatalf("tolerated include values: %d", resp.StatusCode)
	}
}

func TestListBlobsHierarchy(t *testing.T) {
	e := start(t)
	c := e.container("tree")
	for _, n := range []string{"root.txt", "docs/a.txt", "docs/b.txt", "docs/deep/c.txt", "img/x.png", "img/y.png", "zeta"} {
		e.upload(c, n, []byte("x"))
	}
	for i := range 50 {
		e.upload(c, fmt.Sprintf("many/%02d", i), []byte("x"))
	}
	list := func(prefix string, max int32) (items, prefixes []string, pages int) {
		opts := &container.ListBlobsHierarchyOptions{MaxResults: &max}
		if prefix != "" {
			opts.Prefix = &prefix
		}
		pager := c.NewListBlobsHierarchyPager("/", opts)
		for pager.More() {
			page, err := pager.NextPage(e.ctx)
			if err != nil {
				t.Fatal(err)
			}
			pages++
			for _, it := range page.Segment.BlobItems {
				items = append(items, *it.Name)
			}
			for _, p := range page.Segment.BlobPrefixes {
				prefixes = append(prefixes, *p.Name)
			}
		}
		return
	}
	items, prefixes, pages := list("", 2)
	if strings.Join(items, ",") != "root.txt,zeta" || strings.Join(prefixes, ",") != "docs/,img/,many/" || pages != 3 {
		t.Fatalf("top level: %v %v in %d pages", items, prefixes, pages)
	}
	items, prefixes, _ = list("docs/", 100)
	if strings.Join(items, ",") != "docs/a.txt,docs/b.txt" || strings.Join(prefixes, ",") != "docs/deep/" {
		t.Fatalf("docs/: %v %v", items, prefixes)
	}
}

func TestListUncommittedAndPlaceholders(t *testing.T) {
	e := start(t)
	c := e.container("staged")
	e.upload(c, "a", []byte("x"))
	c.NewBlockBlobClient("b").StageBlock(e.ctx, blockID(1), nopCloser([]byte("x")), nil)
	e.upload(c, "c", []byte("x"))
	count := func(include bool) int {
		page, err := c.NewListBlobsFlatPager(&container.ListBlobsFlatOptions{Include: container.ListBlobsInclude{UncommittedBlobs: include}}).NextPage(e.ctx)
		if err != nil {
			t.Fatal(err)
		}
		return len(page.Segment.BlobItems)
	}
	if count(false) != 2 || count(true) != 3 {
		t.Fatalf("listing: %d without, %d with uncommitted", count(false), count(true))
	}
	// Deleting a placeholder deletes its staged blocks and the listing
	// entry with them (TestDeleteBlobOfStagedBlocksOnly).
	if _, err := c.NewBlobClient("b").Delete(e.ctx, nil); err != nil {
		t.Fatal(err)
	}
	if count(true) != 2 {
		t.Fatalf("listing with uncommitted after the delete: %d", count(true))
	}
}
