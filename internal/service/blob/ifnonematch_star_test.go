package blob_test

import (
	"io"
	"net/http"
	"testing"
)

// TestGetBlobIfNoneMatchStar pins Get Blob with If-None-Match: *. The
// conditional-headers page ("Specifying conditional headers for Blob
// service operations") says "*" performs the operation only if the
// resource does not exist and fails it if it does, and a failed
// If-None-Match on a read is 304 Not Modified with an empty body. A blob
// that does not exist is 404 BlobNotFound: there is nothing to read.
// (Azurite answers 400 UnsatisfiableCondition for the missing blob; no
// SDK's error codes list that code, so the service's is not assumed.)
func TestGetBlobIfNoneMatchStar(t *testing.T) {
	e := start(t)
	e.upload(e.container("inm"), "here", []byte("x"))
	for _, method := range []string{http.MethodGet, http.MethodHead} {
		r := e.raw(method, "inm/here", http.Header{"If-None-Match": {"*"}}, nil)
		body, _ := io.ReadAll(r.Body)
		if r.StatusCode != http.StatusNotModified || len(body) != 0 || r.Header.Get("X-Ms-Error-Code") != "ConditionNotMet" {
			t.Fatalf("%s existing blob: %d %s %q", method, r.StatusCode, r.Header.Get("X-Ms-Error-Code"), body)
		}
	}
	r := e.raw(http.MethodGet, "inm/absent", http.Header{"If-None-Match": {"*"}}, nil)
	if r.StatusCode != http.StatusNotFound || r.Header.Get("X-Ms-Error-Code") != "BlobNotFound" {
		t.Fatalf("missing blob: %d %s", r.StatusCode, r.Header.Get("X-Ms-Error-Code"))
	}
}
