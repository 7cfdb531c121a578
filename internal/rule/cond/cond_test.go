package cond

import (
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/lazuli-storage/lazuli/internal/rule/azerr"
)

// The resource most tests evaluate against: an existing blob last modified
// at a sub-second instant, as a real write produces.
var (
	lastModified = time.Date(2020, 5, 18, 5, 51, 26, 789_000_000, time.UTC)
	currentETag  = `"0x8D7FADAB3EA4124"`
	otherETag    = `"0x8D7FADAB3EA0000"`
	existing     = Resource{Exists: true, ETag: currentETag, LastModified: lastModified}
	missing      = Resource{}
	staged       = Resource{Staged: true, LastModified: lastModified}

	// HTTP dates around lastModified.
	before    = lastModified.Add(-time.Hour).Format(http.TimeFormat)
	sameSec   = lastModified.Format(http.TimeFormat) // the Last-Modified a client was given
	after     = lastModified.Add(time.Hour).Format(http.TimeFormat)
	secBefore = lastModified.Add(-time.Second).Format(http.TimeFormat)
)

// hdr builds a request header from name/value pairs; a name may repeat.
func hdr(pairs ...string) http.Header {
	h := http.Header{}
	for i := 0; i+1 < len(pairs); i += 2 {
		h.Add(pairs[i], pairs[i+1])
	}
	return h
}

// wantErr checks err against an expected status and code; status 0 means
// success is expected.
func wantErr(t *testing.T, err error, status int, code string) {
	t.Helper()
	if status == 0 {
		if err != nil {
			t.Fatalf("want success, got %v", err)
		}
		return
	}
	var e *azerr.Error
	if !errors.As(err, &e) {
		t.Fatalf("want %d %s, got %v", status, code, err)
	}
	if e.Status != status || e.Code != code {
		t.Fatalf("want %d %s, got %d %s", status, code, e.Status, e.Code)
	}
}

func mustParse(t *testing.T, h http.Header) Conditions {
	t.Helper()
	c, err := Parse(h)
	if err != nil {
		t.Fatalf("Parse(%v): %v", h, err)
	}
	return c
}

func TestParse(t *testing.T) {
	lm := lastModified.Truncate(time.Second)
	tests := []struct {
		name      string
		h         http.Header
		ifMatch   []string
		noneMatch []string
		ims, ius  *time.Time
		tags      string
		errHeader string // non-empty: 400 InvalidHeaderValue naming it
	}{
		{name: "no headers", h: hdr()},
		{name: "quoted etag", h: hdr("If-Match", currentETag), ifMatch: []string{currentETag}},
		{name: "unquoted etag kept as sent", h: hdr("If-Match", "0x8D7FADAB3EA4124"), ifMatch: []string{"0x8D7FADAB3EA4124"}},
		{name: "etag list", h: hdr("If-Match", `"a", "b",  "c"`), ifMatch: []string{`"a"`, `"b"`, `"c"`}},
		{name: "etag list over two lines", h: hdr("If-None-Match", `"a"`, "If-None-Match", `"b"`), noneMatch: []string{`"a"`, `"b"`}},
		{name: "comma inside quotes", h: hdr("If-Match", `"a,b", "c"`), ifMatch: []string{`"a,b"`, `"c"`}},
		{name: "empty list entries dropped", h: hdr("If-Match", ` , "a",`), ifMatch: []string{`"a"`}},
		{name: "empty etag header is absent", h: hdr("If-None-Match", "")},
		{name: "star", h: hdr("If-None-Match", "*"), noneMatch: []string{"*"}},
		{name: "dates", h: hdr("If-Modified-Since", sameSec, "If-Unmodified-Since", sameSec), ims: &lm, ius: &lm},
		{name: "RFC 850 date accepted", h: hdr("If-Modified-Since", "Monday, 18-May-20 05:51:26 GMT"), ims: &lm},
		{name: "empty date is absent", h: hdr("If-Unmodified-Since", " ")},
		{name: "bad IMS", h: hdr("If-Modified-Since", "yesterday"), errHeader: "If-Modified-Since"},
		{name: "bad IUS", h: hdr("If-Unmodified-Since", "2020-05-18T05:51:26Z"), errHeader: "If-Unmodified-Since"},
		{name: "two IMS values", h: hdr("If-Modified-Since", sameSec, "If-Modified-Since", after), errHeader: "If-Modified-Since"},
		{name: "two IUS values", h: hdr("If-Unmodified-Since", sameSec, "If-Unmodified-Since", sameSec), errHeader: "If-Unmodified-Since"},
		{name: "if-tags raw", h: hdr("x-ms-if-tags", `"tag1" = 'v'`), tags: `"tag1" = 'v'`},
		{name: "source headers ignored", h: hdr("x-ms-source-if-match", currentETag, "x-ms-source-if-modified-since", "bad")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Parse(tt.h)
			if tt.errHeader != "" {
				wantErr(t, err, 400, azerr.InvalidHeaderValue)
				e, _ := azerr.As(err)
				if e.Details[0] != (azerr.Detail{Name: "HeaderName", Value: tt.errHeader}) {
					t.Fatalf("error names %v, want %s", e.Details, tt.errHeader)
				}
				return
			}
			wantErr(t, err, 0, "")
			checkParsed(t, c, tt.ifMatch, tt.noneMatch, tt.ims, tt.ius, tt.tags)
		})
	}
}

func checkParsed(t *testing.T, c Conditions, ifMatch, noneMatch []string, ims, ius *time.Time, tags string) {
	t.Helper()
	if !equalStrings(c.IfMatch, ifMatch) || !equalStrings(c.IfNoneMatch, noneMatch) {
		t.Errorf("etags: got %q / %q, want %q / %q", c.IfMatch, c.IfNoneMatch, ifMatch, noneMatch)
	}
	if !equalTime(c.IfModifiedSince, ims) || !equalTime(c.IfUnmodifiedSince, ius) {
		t.Errorf("dates: got %v / %v, want %v / %v", c.IfModifiedSince, c.IfUnmodifiedSince, ims, ius)
	}
	if c.IfTags != tags {
		t.Errorf("tags: got %q, want %q", c.IfTags, tags)
	}
}

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func equalTime(a, b *time.Time) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Equal(*b)
}

func TestParseSource(t *testing.T) {
	h := hdr(
		"If-Match", otherETag,
		"x-ms-source-if-match", currentETag,
		"x-ms-source-if-none-match", otherETag,
		"x-ms-source-if-modified-since", before,
		"x-ms-source-if-unmodified-since", after,
		"x-ms-source-if-tags", `"a" = 'b'`,
	)
	c, err := ParseSource(h)
	wantErr(t, err, 0, "")
	b, _ := http.ParseTime(before)
	a, _ := http.ParseTime(after)
	checkParsed(t, c, []string{currentETag}, []string{otherETag}, &b, &a, `"a" = 'b'`)

	_, err = ParseSource(hdr("x-ms-source-if-unmodified-since", "never"))
	wantErr(t, err, 400, azerr.InvalidHeaderValue)
	e, _ := azerr.As(err)
	if e.Details[0].Value != "x-ms-source-if-unmodified-since" {
		t.Fatalf("error names %v", e.Details)
	}
}

func TestAnyAndIfNoneMatchStar(t *testing.T) {
	tests := []struct {
		h         http.Header
		any, star bool
	}{
		{hdr(), false, false},
		{hdr("If-Match", "*"), true, false},
		{hdr("If-None-Match", "*"), true, true},
		{hdr("If-None-Match", `"a", *`), true, true},
		{hdr("If-None-Match", currentETag), true, false},
		{hdr("If-Modified-Since", before), true, false},
		{hdr("If-Unmodified-Since", before), true, false},
		{hdr("x-ms-if-tags", `"a" = 'b'`), true, false},
	}
	for _, tt := range tests {
		c := mustParse(t, tt.h)
		if c.Any() != tt.any || c.IfNoneMatchStar() != tt.star {
			t.Errorf("%v: Any=%v IfNoneMatchStar=%v, want %v %v", tt.h, c.Any(), c.IfNoneMatchStar(), tt.any, tt.star)
		}
	}
}

// TestRestrict covers which operations accept which conditions: the
// parameter lists of the Blob OpenAPI spec, which the conditional-headers
// page's operation table agrees with.
func TestRestrict(t *testing.T) {
	const (
		deleteContainer      = IfModifiedSince | IfUnmodifiedSince
		setContainerMetadata = IfModifiedSince
		tagsOnly             = IfTags
		none                 = Allowed(0)
	)
	tests := []struct {
		name    string
		allowed Allowed
		h       http.Header
		reject  string // header named by the 400, "" for accepted
	}{
		{"full set takes all", AllConditions, hdr("If-Match", "*", "If-None-Match", "*", "If-Modified-Since", before, "If-Unmodified-Since", before, "x-ms-if-tags", "x"), ""},
		{"delete container IMS", deleteContainer, hdr("If-Modified-Since", before), ""},
		{"delete container IUS", deleteContainer, hdr("If-Unmodified-Since", before), ""},
		{"delete container If-Match", deleteContainer, hdr("If-Match", currentETag), "If-Match"},
		{"delete container If-None-Match", deleteContainer, hdr("If-None-Match", currentETag), "If-None-Match"},
		{"set container metadata IMS", setContainerMetadata, hdr("If-Modified-Since", before), ""},
		{"set container metadata IUS", setContainerMetadata, hdr("If-Unmodified-Since", before), "If-Unmodified-Since"},
		{"tags-only op takes tags", tagsOnly, hdr("x-ms-if-tags", "x"), ""},
		{"tags-only op refuses If-Match", tagsOnly, hdr("If-Match", "*", "x-ms-if-tags", "x"), "If-Match"},
		{"no conditions accepted, none sent", none, hdr(), ""},
		{"no conditions accepted, tags sent", none, hdr("x-ms-if-tags", "x"), "x-ms-if-tags"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := mustParse(t, tt.h).Restrict(tt.allowed)
			if tt.reject == "" {
				wantErr(t, err, 0, "")
				return
			}
			wantErr(t, err, 400, azerr.ConditionHeadersNotSupported)
			if e, _ := azerr.As(err); e.Details[0].Value != tt.reject {
				t.Fatalf("names %v, want %s", e.Details, tt.reject)
			}
		})
	}

	src, _ := ParseSource(hdr("x-ms-source-if-match", "*"))
	err := src.Restrict(IfModifiedSince)
	if e, _ := azerr.As(err); e == nil || e.Details[0].Value != "x-ms-source-if-match" {
		t.Fatalf("source restrict: %v", err)
	}
}

func TestETagComparison(t *testing.T) {
	tests := []struct {
		sent, current string
		match         bool
	}{
		{currentETag, currentETag, true},
		{"0x8D7FADAB3EA4124", currentETag, true},
		{currentETag, "0x8D7FADAB3EA4124", true},
		{otherETag, currentETag, false},
		{`W/` + currentETag, currentETag, false},
		{`"0x8d7fadab3ea4124"`, currentETag, false}, // opaque: case matters
		{`"`, `"`, true},
		{`""`, currentETag, false},
	}
	for _, tt := range tests {
		if got := sameETag(tt.sent, tt.current); got != tt.match {
			t.Errorf("sameETag(%s, %s) = %v, want %v", tt.sent, tt.current, got, tt.match)
		}
	}
}

// TestOneSecondResolution: HTTP dates have whole seconds, so the
// Last-Modified a client received (sub-second part dropped) must read as
// "not modified since" and "unmodified since".
func TestOneSecondResolution(t *testing.T) {
	tests := []struct {
		name   string
		h      http.Header
		status int
	}{
		{"IMS at the same second: not modified", hdr("If-Modified-Since", sameSec), 412},
		{"IMS a second before: modified", hdr("If-Modified-Since", secBefore), 0},
		{"IUS at the same second: unmodified", hdr("If-Unmodified-Since", sameSec), 0},
		{"IUS a second before: modified", hdr("If-Unmodified-Since", secBefore), 412},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			wantErr(t, mustParse(t, tt.h).CheckWrite(existing), tt.status, azerr.ConditionNotMet)
		})
	}
}
