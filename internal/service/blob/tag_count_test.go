package blob_test

import (
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/appendblob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blockblob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/pageblob"
)

// TestTagCountOnReads follows azblob's live tests of x-ms-tag-count:
// TestGetPropertiesReturnsTagsCount (Put Blob with tags, then Get Blob
// Properties and Get Blob), TestSetBlobTagForSnapshot and the append blob
// version (a snapshot carries its blob's tags), the page blob test
// (Set Blob Tags, then Get Blob Properties, twice).
func TestTagCountOnReads(t *testing.T) {
	e := start(t)
	c := e.container("tagcount")
	three := map[string]string{"azure": "blob", "blob": "sdk", "sdk": "go"}
	want := func(what string, got *int64, n int64) {
		t.Helper()
		if got == nil || *got != n {
			t.Errorf("%s: x-ms-tag-count %v, want %d", what, got, n)
		}
	}

	bb := c.NewBlockBlobClient("put")
	if _, err := bb.Upload(e.ctx, nopCloser([]byte("data")), &blockblob.UploadOptions{Tags: three}); err != nil {
		t.Fatal(err)
	}
	props := must(bb.GetProperties(e.ctx, nil)).on(t)
	want("Get Blob Properties", props.TagCount, 3)
	dl := must(bb.DownloadStream(e.ctx, nil)).on(t)
	dl.Body.Close()
	want("Get Blob", dl.TagCount, 3)
	snap := must(bb.CreateSnapshot(e.ctx, nil)).on(t)
	sc, _ := bb.WithSnapshot(*snap.Snapshot)
	want("snapshot", must(sc.GetProperties(e.ctx, nil)).on(t).TagCount, 3)

	ab := c.NewAppendBlobClient("append")
	must(ab.Create(e.ctx, &appendblob.CreateOptions{Tags: three})).on(t)
	asnap := must(ab.CreateSnapshot(e.ctx, nil)).on(t)
	asc, _ := ab.WithSnapshot(*asnap.Snapshot)
	want("append blob snapshot", must(asc.GetProperties(e.ctx, nil)).on(t).TagCount, 3)

	pb := c.NewPageBlobClient("pages")
	must(pb.Create(e.ctx, 512, &pageblob.CreateOptions{})).on(t)
	must(pb.SetTags(e.ctx, three, nil)).on(t)
	want("page blob", must(pb.GetProperties(e.ctx, nil)).on(t).TagCount, 3)
	must(pb.SetTags(e.ctx, map[string]string{"a": "b", "c": "d"}, nil)).on(t)
	want("page blob retagged", must(pb.GetProperties(e.ctx, &blob.GetPropertiesOptions{})).on(t).TagCount, 2)
}
