package blob_test

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

// TestIfTagsOnEveryOperation pins that a failing x-ms-if-tags (or
// x-ms-source-if-tags on a copy source) is 412 on each operation whose
// reference page lists the header: Set Blob Tier, Get Block List, Lease
// Blob, Snapshot Blob, Set Blob Properties (and page blob resize), Put
// Block List, Put Page, Get Page Ranges, Append Block, Copy Blob, Put Blob
// From URL and Delete Blob. Copy Blob's failing x-ms-source-if-tags is
// ConditionNotMet, as azure-sdk-for-python's recorded
// test_async_copy_blob_with_if_tags answers (tests/recordings/
// test_common_blob.pyTestStorageCommonBlobtest_async_copy_blob_with_if_tags.json);
// Put Blob From URL's is SourceConditionNotMet.
func TestIfTagsOnEveryOperation(t *testing.T) {
	e := start(t)
	c := e.container("iftagsops")
	e.tagged(c, "x", map[string]string{"state": "draft"})
	e.raw(http.MethodPut, "iftagsops/p", http.Header{"X-Ms-Blob-Type": {"PageBlob"}, "X-Ms-Blob-Content-Length": {"512"}, "X-Ms-Tags": {"state=draft"}}, nil)
	e.raw(http.MethodPut, "iftagsops/a", http.Header{"X-Ms-Blob-Type": {"AppendBlob"}, "X-Ms-Tags": {"state=draft"}}, nil)
	src := e.in.BlobURL + "iftagsops/x"
	cases := []struct {
		method, path string
		header       http.Header
		body         []byte
		code         string
	}{
		{"PUT", "iftagsops/x?comp=tier", http.Header{"X-Ms-Access-Tier": {"Cool"}}, nil, "ConditionNotMet"},
		{"GET", "iftagsops/x?comp=blocklist", nil, nil, "ConditionNotMet"},
		{"PUT", "iftagsops/x?comp=lease", http.Header{"X-Ms-Lease-Action": {"acquire"}, "X-Ms-Lease-Duration": {"-1"}}, nil, "ConditionNotMet"},
		{"PUT", "iftagsops/x?comp=snapshot", nil, nil, "ConditionNotMet"},
		{"PUT", "iftagsops/x?comp=properties", nil, nil, "ConditionNotMet"},
		{"PUT", "iftagsops/x?comp=blocklist", nil, []byte("<BlockList></BlockList>"), "ConditionNotMet"},
		{"PUT", "iftagsops/p?comp=page", http.Header{"X-Ms-Page-Write": {"update"}, "X-Ms-Range": {"bytes=0-511"}}, make([]byte, 512), "ConditionNotMet"},
		{"GET", "iftagsops/p?comp=pagelist", nil, nil, "ConditionNotMet"},
		{"PUT", "iftagsops/p?comp=properties", http.Header{"X-Ms-Blob-Content-Length": {"1024"}}, nil, "ConditionNotMet"},
		{"PUT", "iftagsops/a?comp=appendblock", nil, []byte("x"), "ConditionNotMet"},
		{"PUT", "iftagsops/copy", http.Header{"X-Ms-Copy-Source": {src}}, nil, "ConditionNotMet"},
		{"PUT", "iftagsops/fromurl", http.Header{"X-Ms-Copy-Source": {readable(t, e, src)}, "X-Ms-Blob-Type": {"BlockBlob"}}, nil, "SourceConditionNotMet"},
		{"DELETE", "iftagsops/x", nil, nil, "ConditionNotMet"},
	}
	for _, tc := range cases {
		h := http.Header{}
		for k, v := range tc.header {
			h[k] = v
		}
		name := "X-Ms-If-Tags"
		if h.Get("X-Ms-Copy-Source") != "" {
			name = "X-Ms-Source-If-Tags"
		}
		h.Set(name, `"state" = 'final'`)
		r := e.raw(tc.method, tc.path, h, tc.body)
		if r.StatusCode != http.StatusPreconditionFailed || r.Header.Get("X-Ms-Error-Code") != tc.code {
			t.Errorf("%s %s: %d %s, want 412 %s", tc.method, tc.path, r.StatusCode, r.Header.Get("X-Ms-Error-Code"), tc.code)
		}
	}
}

// TestMalformedIfTagsRefusedFirst pins that a malformed x-ms-if-tags or
// x-ms-source-if-tags is 400 InvalidHeaderValue naming the header it came
// in, before the operation does any other work: before it finds the
// container missing, before it reads a body, before it looks for a copy
// source ("The storage service will reject any request that contains an
// invalid expression with error code 400", "Specifying conditional
// headers for Blob service operations", Tags Predicate Syntax).
func TestMalformedIfTagsRefusedFirst(t *testing.T) {
	e := start(t)
	e.container("iftagsfirst")
	const bad = `"state" = draft`
	missing := e.in.BlobURL + "iftagsfirst/missing"
	cases := []struct {
		name, header string
		send         func(h http.Header) *http.Response
	}{
		{"get blob of a missing container", "x-ms-if-tags", func(h http.Header) *http.Response {
			return e.raw(http.MethodGet, "nosuchcontainer/x", h, nil)
		}},
		{"put blob before its body", "x-ms-if-tags", func(h http.Header) *http.Response {
			h.Set("X-Ms-Blob-Type", "BlockBlob")
			h.Set("X-Ms-Version", "2025-01-05")
			// Past the 256 KiB the HTTP server drains after an early answer.
			return e.headersOnly(http.MethodPut, "iftagsfirst/body", 4<<20, h)
		}},
		{"copy blob of a missing source", "x-ms-source-if-tags", func(h http.Header) *http.Response {
			h.Set("X-Ms-Copy-Source", missing)
			return e.raw(http.MethodPut, "iftagsfirst/copy", h, nil)
		}},
		{"put blob from url of a missing source", "x-ms-source-if-tags", func(h http.Header) *http.Response {
			h.Set("X-Ms-Copy-Source", readable(t, e, missing))
			h.Set("X-Ms-Blob-Type", "BlockBlob")
			return e.raw(http.MethodPut, "iftagsfirst/fromurl", h, nil)
		}},
	}
	for _, tc := range cases {
		r := tc.send(http.Header{http.CanonicalHeaderKey(tc.header): {bad}})
		body, err := io.ReadAll(r.Body)
		if err != nil {
			t.Fatal(err)
		}
		if r.StatusCode != http.StatusBadRequest || r.Header.Get("X-Ms-Error-Code") != "InvalidHeaderValue" ||
			!strings.Contains(string(body), "<HeaderName>"+tc.header+"</HeaderName>") {
			t.Errorf("%s: %d %s %s, want 400 InvalidHeaderValue naming %s", tc.name, r.StatusCode, r.Header.Get("X-Ms-Error-Code"), body, tc.header)
		}
	}
}
