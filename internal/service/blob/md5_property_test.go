package blob_test

import (
	"bytes"
	"net/http"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/appendblob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blockblob"
)

// TestContentMD5PropertyOfAnyLength pins that x-ms-blob-content-md5 is a
// property stored as given, not a digest checked for 16 bytes: the
// JavaScript SDK's live test "setHTTPHeaders with all parameters set"
// (sdk/storage/storage-blob/test/blobclient.spec.ts) sets the 4 bytes
// 01 02 03 04 and reads them back from Get Blob Properties. Set Blob
// Properties, Create Append Blob and Put Blob all take it.
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

	put := c.NewBlockBlobClient("put")
	if _, err := put.Upload(e.ctx, nopCloser([]byte("data")), &blockblob.UploadOptions{HTTPHeaders: &blob.HTTPHeaders{BlobContentMD5: four}}); err != nil {
		t.Fatalf("Put Blob with a 4-byte MD5: %v", err)
	}
	wantMD5(t, e, put.BlobClient(), four)

	// Not Base64 at all is still refused.
	resp := e.raw(http.MethodPut, "md5prop/set?comp=properties", http.Header{"X-Ms-Blob-Content-Md5": {"not base64!"}}, nil)
	if resp.StatusCode != http.StatusBadRequest || resp.Header.Get("X-Ms-Error-Code") != "InvalidMd5" {
		t.Fatalf("non-Base64 MD5: %d %s", resp.StatusCode, resp.Header.Get("X-Ms-Error-Code"))
	}
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
