package auth

import (
	"net/http/httptest"
	"testing"
)

// The signed request headers and query parameters of a Blob user
// delegation SAS enter the string-to-sign in srh and srq order, with the
// request's values; a header the request lacks signs as empty, so the
// signature no longer matches.
func TestCanonicalSignedRequest(t *testing.T) {
	r := httptest.NewRequest("GET", "/c/b?hello=world&day=monday,tuesday&sv=2026-04-06", nil)
	r.Header.Set("Foo", "bar")
	r.Header.Set("Language", "go,java,python")
	for _, tc := range []struct {
		srh, srq, headers, query string
	}{
		{"foo,language", "hello,day", "foo:bar\nlanguage:go,java,python\n", "\nhello:world\nday:monday,tuesday"},
		{"language,foo", "day", "language:go,java,python\nfoo:bar\n", "\nday:monday,tuesday"},
		{"missing", "", "missing:\n", ""},
		{"", "", "", ""},
	} {
		h, q := canonicalSignedRequest(r, tc.srh, tc.srq)
		if h != tc.headers || q != tc.query {
			t.Errorf("srh %q srq %q: %q %q, want %q %q", tc.srh, tc.srq, h, q, tc.headers, tc.query)
		}
	}
}
