package blob_test

import (
	"bytes"
	"testing"
)

func TestSmoke(t *testing.T) {
	e := start(t)
	c := e.container("smoke")
	b := e.upload(c, "dir/hello.txt", []byte("hello, world"))
	if got := e.download(b); !bytes.Equal(got, []byte("hello, world")) {
		t.Fatalf("download = %q", got)
	}
	pager := c.NewListBlobsFlatPager(nil)
	n := 0
	for pager.More() {
		page, err := pager.NextPage(e.ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, item := range page.Segment.BlobItems {
			n++
			if *item.Name != "dir/hello.txt" || *item.Properties.ContentLength != 12 {
				t.Fatalf("listed %s %d", *item.Name, *item.Properties.ContentLength)
			}
		}
	}
	if n != 1 {
		t.Fatalf("listed %d blobs", n)
	}
}
