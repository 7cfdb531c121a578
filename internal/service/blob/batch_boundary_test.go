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
		sub, _ := http.NewRequest(http.MethodDelete, e.in.BlobURL+"eqboundary/b", nil)
		signRequest(t, sub)
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
		signRequest(t, req)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { resp.Body.Close() })
		if got := fmt.Sprint(batchAnswers(t, resp)); got != "[202]" {
			t.Errorf("%q: sub-requests answered %s, want [202]", ct, got)
		}
	}
}
