package blob_test

import (
	"fmt"
	"strings"
	"testing"
)

// The JavaScript SDK's BlobBatchClient, made from a path-style service URL,
// takes the account segment for a container and sends
// POST /<account>?restype=container&comp=batch. Azure never sees that form
// (its URLs name the account in the host) and Azurite serves it as the
// service's batch, so Lazuli does too.
func TestBlobBatchAtAccountPathWithContainerRestype(t *testing.T) {
	e := start(t)
	c := e.container("jsbatch")
	e.upload(c, "a", []byte("a"))
	e.upload(c, "b", []byte("b"))
	url := strings.TrimSuffix(e.in.BlobURL, "/") + "?comp=batch&restype=container"
	r := rawBatch(t, e, url, nil, []subReq{
		{method: "DELETE", path: "jsbatch/a"},
		{method: "DELETE", path: "jsbatch/b"},
	})
	if got := batchAnswers(t, r); fmt.Sprint(got) != "[202 202]" {
		t.Fatalf("answers %v (status %d %s)", got, r.StatusCode, r.Header.Get("x-ms-error-code"))
	}
}
