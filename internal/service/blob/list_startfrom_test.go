package blob_test

import (
	"encoding/xml"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/container"
)

// TestListBlobsStartFrom follows azblob's recorded tests
// TestContainerListBlobsFlatStartFrom and
// TestContainerListBlobsHierarchyStartFrom: startFrom lists from that name
// on, inclusive. It combines with a prefix, with include=snapshots and
// with the marker of a later page.
func TestListBlobsStartFrom(t *testing.T) {
	e := start(t)
	c := e.container("startfrom")
	for _, n := range []string{"a", "b", "c", "dir/a.txt", "dir/b.txt"} {
		e.upload(c, n, []byte(n))
	}
	list := func(o *container.ListBlobsFlatOptions) []string {
		t.Helper()
		var names []string
		pager := c.NewListBlobsFlatPager(o)
		for pager.More() {
			resp := must(pager.NextPage(e.ctx)).on(t)
			for _, b := range resp.Segment.BlobItems {
				names = append(names, *b.Name)
			}
		}
		return names
	}
	cases := []struct {
		opts *container.ListBlobsFlatOptions
		want []string
	}{
		{&container.ListBlobsFlatOptions{StartFrom: to.Ptr("b")}, []string{"b", "c", "dir/a.txt", "dir/b.txt"}},
		{&container.ListBlobsFlatOptions{StartFrom: to.Ptr("bb")}, []string{"c", "dir/a.txt", "dir/b.txt"}},
		{&container.ListBlobsFlatOptions{StartFrom: to.Ptr("dir/b.txt"), Prefix: to.Ptr("dir/")}, []string{"dir/b.txt"}},
		{&container.ListBlobsFlatOptions{StartFrom: to.Ptr("b"), MaxResults: to.Ptr(int32(1))}, []string{"b", "c", "dir/a.txt", "dir/b.txt"}},
		{&container.ListBlobsFlatOptions{StartFrom: to.Ptr("c"), Include: container.ListBlobsInclude{Snapshots: true}}, []string{"c", "dir/a.txt", "dir/b.txt"}},
	}
	for _, tc := range cases {
		if got := list(tc.opts); !slices.Equal(got, tc.want) {
			t.Errorf("startFrom %s prefix %v: %v, want %v", *tc.opts.StartFrom, tc.opts.Prefix, got, tc.want)
		}
	}
	var names []string
	pager := c.NewListBlobsHierarchyPager("", &container.ListBlobsHierarchyOptions{StartFrom: to.Ptr("dir/b.txt")})
	for pager.More() {
		for _, b := range must(pager.NextPage(e.ctx)).on(t).Segment.BlobItems {
			names = append(names, *b.Name)
		}
	}
	if !slices.Equal(names, []string{"dir/b.txt"}) {
		t.Errorf("hierarchy listing from dir/b.txt: %v", names)
	}
}

// endBefore stops a listing before that name (azblob's
// TestContainerListBlobsFlatArrowStartFromEndBefore; the Go SDK sends it
// with the Arrow format only, so these are plain requests).
func TestListBlobsEndBefore(t *testing.T) {
	e := start(t)
	c := e.container("endbefore")
	for _, n := range []string{"a", "b", "c", "d"} {
		e.upload(c, n, []byte(n))
	}
	for query, want := range map[string]string{
		"startFrom=b&endBefore=d":                   "b,c",
		"startFrom=a&endBefore=c&include=snapshots": "a,b",
		"startFrom=c&endBefore=b":                   "",
		"endBefore=b":                               "a",
		"endBefore=b&prefix=c":                      "",
	} {
		r := e.raw(http.MethodGet, "endbefore?restype=container&comp=list&"+query, nil, nil)
		var list struct {
			Names []string `xml:"Blobs>Blob>Name"`
		}
		if err := xml.NewDecoder(r.Body).Decode(&list); err != nil || r.StatusCode != http.StatusOK {
			t.Fatalf("%s: %d %v", query, r.StatusCode, err)
		}
		if got := strings.Join(list.Names, ","); got != want {
			t.Errorf("%s: listed %q, want %q", query, got, want)
		}
	}
}
