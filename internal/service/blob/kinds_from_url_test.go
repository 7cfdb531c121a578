package blob_test

import (
	"bytes"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/appendblob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/pageblob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/sas"
)

func TestAppendBlockFromURL(t *testing.T) {
	e := start(t)
	c := e.container("fromurl")
	e.upload(c, "src", []byte("abcdefgh"))
	src := sasURL(t, e, sas.BlobSignatureValues{ContainerName: "fromurl", BlobName: "src",
		Permissions: (&sas.BlobPermissions{Read: true}).String(), ExpiryTime: time.Now().Add(time.Hour)})
	ab := e.newAppendBlob(c, "log")
	resp, err := ab.AppendBlockFromURL(e.ctx, src, &appendblob.AppendBlockFromURLOptions{Range: blob.HTTPRange{Offset: 2, Count: 3}})
	if err != nil {
		t.Fatal(err)
	}
	if *resp.BlobAppendOffset != "0" || *resp.BlobCommittedBlockCount != 1 {
		t.Fatalf("answer %+v", resp)
	}
	if _, err := ab.AppendBlockFromURL(e.ctx, src, &appendblob.AppendBlockFromURLOptions{
		AppendPositionAccessConditions: &appendblob.AppendPositionAccessConditions{AppendPosition: to.Ptr(int64(3))}}); err != nil {
		t.Fatal(err)
	}
	if got := e.read(ab.BlobClient()); got != "cdeabcdefgh" {
		t.Fatalf("content %q", got)
	}
	_, err = ab.AppendBlockFromURL(e.ctx, src, &appendblob.AppendBlockFromURLOptions{
		SourceModifiedAccessConditions: &blob.SourceModifiedAccessConditions{SourceIfMatch: to.Ptr(azcore.ETag(`"0x1"`))}})
	wantCode(t, err, 412, "SourceConditionNotMet")
	_, err = ab.AppendBlockFromURL(e.ctx, src, &appendblob.AppendBlockFromURLOptions{
		AppendPositionAccessConditions: &appendblob.AppendPositionAccessConditions{AppendPosition: to.Ptr(int64(1))}})
	wantCode(t, err, 412, "AppendPositionConditionNotMet")
	_, err = ab.AppendBlockFromURL(e.ctx, readable(t, e, e.in.BlobURL+"fromurl/none"), nil)
	wantCode(t, err, 404, "CannotVerifyCopySource")
}

func TestPutPageFromURL(t *testing.T) {
	e := start(t)
	c := e.container("pagefromurl")
	data := fill(1024, 5)
	e.upload(c, "src", data)
	pb := e.newPageBlob(c, "disk", 4096, nil)
	resp, err := pb.UploadPagesFromURL(e.ctx, readable(t, e, e.in.BlobURL+"pagefromurl/src"), 0, 2048, 1024, nil)
	if err != nil {
		t.Fatal(err)
	}
	if resp.BlobSequenceNumber == nil || resp.ETag == nil {
		t.Fatalf("answer %+v", resp)
	}
	want := make([]byte, 4096)
	copy(want[2048:], data)
	if got := e.readRange(pb.BlobClient(), 0, 4096); !bytes.Equal(got, want) {
		t.Fatal("content differs")
	}
	// A piece of the source, and a sequence number condition.
	_, err = pb.UploadPagesFromURL(e.ctx, readable(t, e, e.in.BlobURL+"pagefromurl/src"), 512, 0, 512, &pageblob.UploadPagesFromURLOptions{
		SequenceNumberAccessConditions: &pageblob.SequenceNumberAccessConditions{IfSequenceNumberEqualTo: to.Ptr(int64(1))}})
	wantCode(t, err, 412, "SequenceNumberConditionNotMet")
	if _, err := pb.UploadPagesFromURL(e.ctx, readable(t, e, e.in.BlobURL+"pagefromurl/src"), 512, 0, 512, nil); err != nil {
		t.Fatal(err)
	}
	copy(want, data[512:])
	if got := e.readRange(pb.BlobClient(), 0, 4096); !bytes.Equal(got, want) {
		t.Fatal("content after the second copy differs")
	}
	if r := e.pageRanges(pb, nil); len(r) != 2 {
		t.Fatalf("ranges %v", r)
	}
	// The source range must be as long as the destination's.
	_, err = pb.UploadPagesFromURL(e.ctx, readable(t, e, e.in.BlobURL+"pagefromurl/src"), 0, 0, 1000, nil)
	wantCode(t, err, 416, "InvalidPageRange")
}
