package blob_test

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/pageblob"

	"github.com/lazuli-storage/lazuli/internal/check/lazulitest"
)

// TestKindsSurviveRestart: page maps, sequence numbers, append blocks, the
// sealed flag, tags and the tag index are all there after a restart on
// the same data directory (sqlite and file extents).
func TestKindsSurviveRestart(t *testing.T) {
	e := startWith(t, lazulitest.Options{})
	c := e.container("kinds")
	pb := e.newPageBlob(c, "disk", 1<<30, &pageblob.CreateOptions{SequenceNumber: to.Ptr(int64(42))})
	big := fill(64<<10, 7)
	e.putPages(pb, 1<<20, big)
	e.putPages(pb, 1<<29, fill(512, 9))
	ab := e.newAppendBlob(c, "log")
	for _, s := range []string{"one ", "two ", "three"} {
		if _, err := ab.AppendBlock(e.ctx, nopCloser([]byte(s)), nil); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := ab.Seal(e.ctx, nil); err != nil {
		t.Fatal(err)
	}
	e.tagged(c, "tagged", map[string]string{"env": "prod"})

	e.in.Restart(t)
	e.connect()
	c = e.svc.NewContainerClient("kinds")
	pb, ab = c.NewPageBlobClient("disk"), c.NewAppendBlobClient("log")
	props, err := pb.GetProperties(e.ctx, nil)
	if err != nil || *props.BlobSequenceNumber != 42 || *props.ContentLength != 1<<30 {
		t.Fatalf("page blob after restart: %v %+v", err, props)
	}
	want := fmt.Sprint([][2]int64{{1 << 20, 1<<20 + 64<<10 - 1}, {1 << 29, 1<<29 + 511}})
	if r := e.pageRanges(pb, nil); fmt.Sprint(r) != want {
		t.Fatalf("ranges after restart: %v", r)
	}
	if got := e.readRange(pb.BlobClient(), 1<<20, 64<<10); !bytes.Equal(got, big) {
		t.Fatal("pages differ after restart")
	}
	aprops, err := ab.GetProperties(e.ctx, nil)
	if err != nil || *aprops.BlobCommittedBlockCount != 3 || aprops.IsSealed == nil || !*aprops.IsSealed {
		t.Fatalf("append blob after restart: %v %+v", err, aprops)
	}
	if got := e.read(ab.BlobClient()); got != "one two three" {
		t.Fatalf("append content %q", got)
	}
	if got, _ := e.found(`"env" = 'prod'`, 10, nil); fmt.Sprint(got) != "[kinds/tagged]" {
		t.Fatalf("find after restart: %v", got)
	}
}
