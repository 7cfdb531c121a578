package blob_test

import (
	"encoding/xml"
	"net/http"
	"testing"
)

// TestMalformedQueryValues pins the one answer to a malformed value of a
// Blob query parameter: 400 InvalidQueryParameterValue naming the
// parameter ("Value for one of the query parameters specified in the
// request URI is invalid", the common REST error codes), never the
// InvalidHeaderValue of a header; a header-borne URL (x-ms-copy-source,
// x-ms-previous-snapshot-url) keeps the header's code. The snapshot and
// versionid answers are azure-sdk-for-js's recorded ones (recordings/node/
// blob_versioning, see parseSelector).
func TestMalformedQueryValues(t *testing.T) {
	e := start(t)
	c := e.container("queryvalues")
	e.upload(c, "b", []byte("x"))
	pg := e.raw(http.MethodPut, "queryvalues/pg", http.Header{"X-Ms-Blob-Type": {"PageBlob"}, "X-Ms-Blob-Content-Length": {"1024"}}, nil)
	pg.Body.Close()
	for _, q := range []struct{ method, path, param string }{
		{http.MethodGet, "queryvalues/b?snapshot=abc", "snapshot"},
		{http.MethodHead, "queryvalues/b?versionid=abc", ""},
		{http.MethodGet, "queryvalues/b?versionid=", "versionid"},
		{http.MethodGet, "queryvalues/pg?comp=pagelist&prevsnapshot=abc", "prevsnapshot"},
		{http.MethodGet, "queryvalues/pg?comp=pagelist&maxresults=abc", "maxresults"},
		{http.MethodGet, "queryvalues/pg?comp=pagelist&marker=zzzz", "marker"},
		{http.MethodGet, "queryvalues?restype=container&comp=list&maxresults=abc", "maxresults"},
		{http.MethodGet, "queryvalues?restype=container&comp=list&include=bad", "include"},
		{http.MethodGet, "queryvalues/b?comp=blocklist&blocklisttype=bad", "blocklisttype"},
		{http.MethodDelete, "queryvalues/b?deletetype=bad", "deletetype"},
		{http.MethodPut, "queryvalues/b?comp=metadata&snapshot=abc", "snapshot"},
		{http.MethodGet, "queryvalues/b?comp=tags&versionid=abc", "versionid"},
	} {
		resp := e.raw(q.method, q.path, nil, nil)
		if resp.StatusCode != http.StatusBadRequest || resp.Header.Get("x-ms-error-code") != "InvalidQueryParameterValue" {
			t.Errorf("%s %s: %d %s", q.method, q.path, resp.StatusCode, resp.Header.Get("x-ms-error-code"))
			continue
		}
		if q.param == "" {
			continue // a HEAD answer has no body
		}
		var doc struct {
			Name string `xml:"QueryParameterName"`
		}
		if err := xml.NewDecoder(resp.Body).Decode(&doc); err != nil || doc.Name != q.param {
			t.Errorf("%s %s: names %q (%v), want %q", q.method, q.path, doc.Name, err, q.param)
		}
	}
}
