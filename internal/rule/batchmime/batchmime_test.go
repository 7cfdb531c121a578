package batchmime

import "testing"

// TestBoundaryForms: an unquoted boundary holding '=' is read as sent (RFC
// 2046 section 5.1.1 allows it in a boundary), a quoted one too, with the
// parameter name in any case and space before the value (Azurite
// tests/blob/apis/blobbatch.test.ts, "SubmitBatch accepts a boundary
// containing equals signs", "... a case-insensitive boundary parameter",
// "... whitespace before the boundary value"); a missing, empty or
// repeated boundary parameter is no boundary.
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
	for _, ct := range []string{"", "multipart/mixed", "multipart/mixed; boundary=", "multipart/mixed; boundary=a; boundary=b", "text/plain; boundary=a"} {
		if got, err := Boundary(ct); err != ErrNoBoundary {
			t.Errorf("%q: read boundary %q, %v", ct, got, err)
		}
	}
}
