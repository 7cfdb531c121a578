package file

import (
	"net/http"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/lazuli-storage/lazuli/internal/frame/accesspolicy"
	"github.com/lazuli-storage/lazuli/internal/rule/metadata"
)

// FuzzParsePath: any input either fails with an Azure error or yields a
// path whose names are valid, whose key folds the names, and which has no
// empty component.
func FuzzParsePath(f *testing.F) {
	for _, s := range []string{"", "a", "a/b/c", "dir/", "x.", "a//b", "CON", "a:b", "é/ü", strings.Repeat("d/", 251)} {
		f.Add(s, false)
		f.Add(s, true)
	}
	f.Fuzz(func(t *testing.T, in string, keepDots bool) {
		p, err := parsePath(in, keepDots)
		if err != nil {
			return
		}
		if len(p.names) != len(p.folded) || len(p.names) > maxDepth+1 {
			t.Fatalf("%q: %d names %d folded", in, len(p.names), len(p.folded))
		}
		for i, n := range p.names {
			if validComponent(n) != nil || p.folded[i] != fold(n) || !utf8.ValidString(n) {
				t.Fatalf("%q: invalid component %q", in, n)
			}
		}
		again, err := parsePath(p.String(), true)
		if err != nil || again.key() != p.key() {
			t.Fatalf("%q: re-parsing %q gives %v", in, p.String(), err)
		}
	})
}

// FuzzSMBHeaders feeds arbitrary values to the SMB property headers; they
// must parse or fail with a 4xx, never panic.
func FuzzSMBHeaders(f *testing.F) {
	f.Add("None", "now", "preserve", "inherit", "")
	f.Add("ReadOnly|Hidden", "2020-01-01T00:00:00.0000000Z", "", "O:BAG:BAD:(A;;FA;;;BA)", "")
	f.Add("Directory", "x", "now", "", "1*2")
	f.Fuzz(func(t *testing.T, attrs, created, written, perm, key string) {
		h := http.Header{}
		h.Set("x-ms-file-attributes", attrs)
		h.Set("x-ms-file-creation-time", created)
		h.Set("x-ms-file-last-write-time", written)
		h.Set("x-ms-file-permission", perm)
		h.Set("x-ms-file-permission-key", key)
		for _, dir := range []bool{false, true} {
			req, err := parseSMBRequest(h, dir)
			if err != nil {
				continue
			}
			if req.attrs != nil && dir && *req.attrs&attrDirectory == 0 {
				t.Fatalf("directory attributes without Directory: %v", *req.attrs)
			}
			if req.perm.mode == 'v' && !validSDDL(perm) {
				t.Fatalf("accepted invalid SDDL %q", perm)
			}
		}
	})
}

// FuzzByteRange: a parsed range clipped to any size is a non-empty window
// inside the resource, or 416.
func FuzzByteRange(f *testing.F) {
	for _, s := range []string{"bytes=0-9", "bytes=5-", "bytes=-1", "bytes=9-1", "bytes= 1 - 2 ", "bytes=0-9223372036854775807"} {
		f.Add(s, int64(10))
	}
	f.Fuzz(func(t *testing.T, raw string, size int64) {
		br, err := parseByteRange(raw)
		if err != nil || size < 0 {
			return
		}
		start, end, err := br.clip(size)
		if err != nil {
			return
		}
		if start < 0 || end > size || start >= end {
			t.Fatalf("%q on %d: window [%d,%d)", raw, size, start, end)
		}
	})
}

// FuzzDecodeNode: corrupt records fail to decode instead of panicking or
// allocating without bound.
func FuzzDecodeNode(f *testing.F) {
	f.Add((&node{Name: "x", ID: 1, Metadata: metadata.Set{{Name: "a", Value: "b"}}}).encode())
	f.Add((&shareRecord{Quota: 5, ACL: []accesspolicy.Identifier{{ID: "p"}}}).encode())
	f.Fuzz(func(t *testing.T, b []byte) {
		_, _ = decodeNode(b)
		_, _ = decodeShare(b)
	})
}
