package blob_test

import (
	"net/http"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blob"
)

// TestClearedContentTypeIsNotAnswered pins what reads answer once Set Blob
// Properties has cleared Content-Type: no Content-Type at all, as azblob's
// recorded live test TestBlobSetPropertiesEmptyValue (blob/client_test.go)
// requires of Get Blob Properties (resp.ContentType nil), and not a type
// sniffed from the content on Get Blob either. A blob stored without a
// type still reads as application/octet-stream.
func TestClearedContentTypeIsNotAnswered(t *testing.T) {
	e := start(t)
	c := e.container("cleared")
	b := e.upload(c, "b", []byte("<html>looks like a page</html>")).BlobClient()
	if p, err := b.GetProperties(e.ctx, nil); err != nil || *p.ContentType != "application/octet-stream" {
		t.Fatalf("stored without a type: %v %v", err, p.ContentType)
	}
	if _, err := b.SetHTTPHeaders(e.ctx, blob.HTTPHeaders{BlobContentType: to.Ptr("my_type")}, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := b.SetHTTPHeaders(e.ctx, blob.HTTPHeaders{}, nil); err != nil {
		t.Fatal(err)
	}
	p, err := b.GetProperties(e.ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if p.ContentType != nil {
		t.Fatalf("Get Blob Properties after clearing: Content-Type %q", *p.ContentType)
	}
	for _, method := range []string{http.MethodGet, http.MethodHead} {
		r := e.raw(method, "cleared/b", nil, nil)
		if v, ok := r.Header["Content-Type"]; ok {
			t.Fatalf("%s after clearing: Content-Type %q", method, v)
		}
	}
}
