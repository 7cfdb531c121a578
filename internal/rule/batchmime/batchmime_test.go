package batchmime

import "testing"

// TestBoundaryForms: an unquoted boundary holding '=' is read as sent (RFC
// 2046 section 5.1.1 allows it in a boundary), a quoted one too, with the
// parameter name in any case and space before the value (Azurite
// tests/blob/apis/blobbatch.test.ts, "SubmitBatch accepts a boundary
// containing equals signs", "... a case-insensitive boundary parameter",
// "... whitespace before the boundary value"); a missing, empty or
// repeated boundary parameter is told apart from a Content-Type that is
// not multipart/mixed, which Blob Batch answers differently.
func TestBoundaryForms(t *testing.T) {
	for ct, want := range map[string]string{
		"multipart/mixed; boundary=batch_x==":        "batch_x==",
		"multipart/mixed;boundary=a=b":               "a=b",
		`multipart/mixed; boundary="batch_x=="`:      "batch_x==",
		"multipart/mixed; Boundary=batch_1; x=y":     "batch_1",
		"multipart/mixed; boundary= batch_2":         "batch_2",
		"multipart/mixed; charset=utf-8; boundary=z": "z",
	} {
		if got, err := Boundary(ct); err != nil || got != want {
			t.Errorf("%q: %q %v, want %q", ct, got, err, want)
		}
	}
	for ct, want := range map[string]error{
		"":                           ErrNotMultipart,
		"text/plain; boundary=a":     ErrNotMultipart,
		"multipart/mixed":            ErrNoBoundary,
		"multipart/mixed; boundary=": ErrNoBoundary,
		"multipart/mixed; boundary=a; boundary=b": ErrRepeatedBoundary,
		"multipart/mixed; boundary=a; BOUNDARY=a": ErrRepeatedBoundary,
	} {
		if got, err := Boundary(ct); err != want {
			t.Errorf("%q: read boundary %q, %v, want %v", ct, got, err, want)
		}
	}
}
