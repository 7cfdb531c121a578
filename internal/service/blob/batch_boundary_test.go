package blob_test

import (
	"bytes"
	"fmt"
	"net/http"
	"testing"
)

// TestBatchBoundaryWithEquals: a Blob Batch whose Content-Type names an
// unquoted boundary ending in "==" is read with that boundary, as the
// service does (Azurite tests/blob/apis/blobbatch.test.ts, "SubmitBatch
// accepts a boundary containing equals signs"; RFC 2046 section 5.1.1 lets
// a boundary hold '='), and so is one with space before the value
// ("SubmitBatch accepts whitespace before the boundary value").
func TestBatchBoundaryWithEquals(t *testing.T) {
	e := start(t)
	c := e.container("eqboundary")
	for _, ct := range []string{"multipart/mixed; boundary=batch_abc==", "multipart/mixed; boundary= batch_abc=="} {
		e.upload(c, "b", []byte("b"))
		resp := e.deleteBatch(ct, "eqboundary/b")
		if got := fmt.Sprint(batchAnswers(t, resp)); got != "[202]" {
			t.Errorf("%q: sub-requests answered %s, want [202]", ct, got)
		}
	}
}

// TestBatchWithoutOneBoundary: a batch whose multipart/mixed Content-Type
// names no boundary, an empty one or two is answered 202 with one failed
// part, as the service answers one without "boundary=" (the live response
// quoted in Azure/Azurite#2421: 202, and one application/http part "400
// ... x-ms-error-code: InvalidHeaderValue"); the empty and the repeated
// boundary follow Azurite's tests/blob/apis/blobbatch.test.ts ("SubmitBatch
// rejects an empty boundary", "... duplicate boundary parameters":
// InvalidHeaderValue and InvalidInput). The blob is left alone.
func TestBatchWithoutOneBoundary(t *testing.T) {
	e := start(t)
	c := e.container("noboundary")
	e.upload(c, "b", []byte("b"))
	for ct, want := range map[string]string{
		"multipart/mixed":                                   "[400 InvalidHeaderValue]",
		"multipart/mixed; boundary=":                        "[400 InvalidHeaderValue]",
		"multipart/mixed; boundary=batch_abc==; boundary=b": "[400 InvalidInput]",
	} {
		resp := e.deleteBatch(ct, "noboundary/b")
		if got := fmt.Sprint(batchAnswers(t, resp)); got != want {
			t.Errorf("%q: sub-requests answered %s, want %s", ct, got, want)
		}
	}
	if _, err := c.NewBlobClient("b").GetProperties(e.ctx, nil); err != nil {
		t.Fatalf("a batch without one boundary deleted the blob: %v", err)
	}
}

// deleteBatch sends a Blob Batch of one Delete Blob of path, its parts
// delimited by "batch_abc==", under the Content-Type ct.
func (e *env) deleteBatch(ct, path string) *http.Response {
	e.t.Helper()
	sub, _ := http.NewRequest(http.MethodDelete, e.in.BlobURL+path, nil)
	signRequest(e.t, sub)
	var body bytes.Buffer
	fmt.Fprintf(&body, "--batch_abc==\r\nContent-Type: application/http\r\nContent-Transfer-Encoding: binary\r\nContent-ID: 0\r\n\r\n")
	fmt.Fprintf(&body, "DELETE %s HTTP/1.1\r\n", sub.URL.RequestURI())
	for k, vs := range sub.Header {
		fmt.Fprintf(&body, "%s: %s\r\n", k, vs[0])
	}
	fmt.Fprintf(&body, "\r\n--batch_abc==--\r\n")
	req, _ := http.NewRequest(http.MethodPost, e.in.BlobURL+"?comp=batch", bytes.NewReader(body.Bytes()))
	req.Header.Set("Content-Type", ct)
	req.Header.Set("x-ms-version", "2025-01-05")
	signRequest(e.t, req)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(func() { resp.Body.Close() })
	return resp
}
