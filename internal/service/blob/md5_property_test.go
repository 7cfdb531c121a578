package blob_test

import (
	"bytes"
	"crypto/md5"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/appendblob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blockblob"
)

// TestContentMD5PropertyOfAnyLength pins that x-ms-blob-content-md5 is a
// property stored as given, not a digest checked for 16 bytes: the
// JavaScript SDK's live test "setHTTPHeaders with all parameters set"
// (sdk/storage/storage-blob/test/blobclient.spec.ts) sets the 4 bytes
// 01 02 03 04 and reads them back from Get Blob Properties. Set Blob
// Properties, Create Append Blob and Put Block List take it; Put Blob does
// not (TestPutBlobContentMD5IsADigest).
func TestContentMD5PropertyOfAnyLength(t *testing.T) {
	e := start(t)
	c := e.container("md5prop")
	four, five := []byte{1, 2, 3, 4}, []byte{1, 2, 3, 4, 5}

	set := e.upload(c, "set", []byte("data"))
	if _, err := set.SetHTTPHeaders(e.ctx, blob.HTTPHeaders{BlobContentMD5: four}, nil); err != nil {
		t.Fatalf("Set Blob Properties with a 4-byte MD5: %v", err)
	}
	wantMD5(t, e, set.BlobClient(), four)

	app := c.NewAppendBlobClient("append")
	if _, err := app.Create(e.ctx, &appendblob.CreateOptions{HTTPHeaders: &blob.HTTPHeaders{BlobContentMD5: five}}); err != nil {
		t.Fatalf("Create Append Blob with a 5-byte MD5: %v", err)
	}
	wantMD5(t, e, app.BlobClient(), five)

	// Put Block List stores it as given too: its x-ms-blob-content-md5 "isn't
	// validated" (Put Block List, Request headers).
	list := c.NewBlockBlobClient("list")
	must(list.StageBlock(e.ctx, "YQ==", nopCloser([]byte("data")), nil)).on(t)
	must(list.CommitBlockList(e.ctx, []string{"YQ=="}, &blockblob.CommitBlockListOptions{HTTPHeaders: &blob.HTTPHeaders{BlobContentMD5: four}})).on(t)
	wantMD5(t, e, list.BlobClient(), four)

	// Not Base64 at all is refused.
	resp := e.raw(http.MethodPut, "md5prop/set?comp=properties", http.Header{"X-Ms-Blob-Content-Md5": {"not base64!"}}, nil)
	if resp.StatusCode != http.StatusBadRequest || resp.Header.Get("X-Ms-Error-Code") != "InvalidMd5" {
		t.Fatalf("non-Base64 MD5: %d %s", resp.StatusCode, resp.Header.Get("X-Ms-Error-Code"))
	}
}

// TestPutBlobContentMD5IsADigest pins that Put Blob refuses an
// x-ms-blob-content-md5 that is not 16 bytes: 400 InvalidMd5 "The MD5 value
// specified in the request is invalid. MD5 value must be 128 bits and base64
// encoded.", the answer quoted with its Put Blob request in
// azure-sdk-for-js#9507 (a 32-byte value) and azure-sdk-for-java#14430 (24
// bytes). Nothing is written.
func TestPutBlobContentMD5IsADigest(t *testing.T) {
	e := start(t)
	c := e.container("md5put")
	put := c.NewBlockBlobClient("put")
	for _, sum := range [][]byte{{1, 2, 3, 4}, []byte("5d41402abc4b2a76b9719d911017c592")} {
		_, err := put.Upload(e.ctx, nopCloser([]byte("data")), &blockblob.UploadOptions{HTTPHeaders: &blob.HTTPHeaders{BlobContentMD5: sum}})
		wantCode(t, err, http.StatusBadRequest, "InvalidMd5")
		var re *azcore.ResponseError
		if errors.As(err, &re) && !strings.Contains(re.Error(), "MD5 value must be 128 bits and base64 encoded.") {
			t.Fatalf("InvalidMd5 message: %v", err)
		}
	}
	if _, err := put.GetProperties(e.ctx, nil); err == nil {
		t.Fatal("a refused Put Blob created its blob")
	}
	sum := md5.Sum([]byte("data"))
	must(put.Upload(e.ctx, nopCloser([]byte("data")), &blockblob.UploadOptions{HTTPHeaders: &blob.HTTPHeaders{BlobContentMD5: sum[:]}})).on(t)
	wantMD5(t, e, put.BlobClient(), sum[:])

}

func wantMD5(t *testing.T, e *env, b *blob.Client, want []byte) {
	t.Helper()
	props, err := b.GetProperties(e.ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(props.ContentMD5, want) {
		t.Fatalf("Content-MD5 %x, want %x", props.ContentMD5, want)
	}
}
