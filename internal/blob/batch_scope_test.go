package blob_test

import (
	"fmt"
	"io"
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

// Sub-responses spell the service's headers as the service does,
// "x-ms-error-code" in lower case: the JavaScript SDK's batch parser
// compares header names case-sensitively and counts a sub-response without
// that exact name as a success.
func TestBlobBatchSubResponseHeaderNames(t *testing.T) {
	e := start(t)
	c := e.container("names")
	e.upload(c, "a", []byte("a"))
	r := rawBatch(t, e, e.in.BlobURL+"?comp=batch", nil, []subReq{
		{method: "DELETE", path: "names/a"},
		{method: "DELETE", path: "names/missing"},
	})
	body, err := io.ReadAll(r.Body)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"\r\nx-ms-error-code: BlobNotFound\r\n", "\r\nx-ms-request-id: ", "\r\nx-ms-version: "} {
		if !strings.Contains(string(body), want) {
			t.Errorf("no %q in\n%s", want, body)
		}
	}
}
