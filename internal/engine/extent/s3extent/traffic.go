package s3extent

import (
	"io"
	"net/http"
	"sync/atomic"
)

// The kinds of request Traffic counts, named after the S3 operations they
// are (Amazon S3 API Reference, "Actions"): what the object store bills
// by, and what the cost table of docs/scaling.md is in.
const (
	KindPut       = "put"       // PutObject (a whole extent, or a marker), PutObjectTagging
	KindGet       = "get"       // GetObject: a range of an extent
	KindHead      = "head"      // HeadObject, HeadBucket
	KindDelete    = "delete"    // DeleteObject(s)
	KindList      = "list"      // ListObjectsV2, ListMultipartUploads, ListParts
	KindPart      = "part"      // UploadPart
	KindMultipart = "multipart" // Create, Complete and AbortMultipartUpload
	KindOther     = "other"     // anything else, such as GetBucketLocation
)

// kind indexes the counts by kind.
type kind int

const (
	kindPut kind = iota
	kindGet
	kindHead
	kindDelete
	kindList
	kindPart
	kindMultipart
	kindOther
	kindCount
)

// Kinds lists every kind, in kind's order.
var Kinds = []string{KindPut, KindGet, KindHead, KindDelete, KindList, KindPart, KindMultipart, KindOther}

// Traffic is what an engine has asked of the S3 server since it opened:
// requests sent by kind (each retry counted again, as the server sees
// and bills it) and body bytes sent and received.
type Traffic struct {
	Requests           map[string]int64
	BytesUp, BytesDown int64
}

// traffic is an engine's running count behind Traffic.
type traffic struct {
	requests [kindCount]atomic.Int64
	up, down atomic.Int64
}

// Traffic returns the engine's counts so far.
func (e *Engine) Traffic() Traffic {
	t := Traffic{Requests: make(map[string]int64, len(Kinds)), BytesUp: e.traffic.up.Load(), BytesDown: e.traffic.down.Load()}
	for i, kind := range Kinds {
		t.Requests[kind] = e.traffic.requests[i].Load()
	}
	return t
}

// kindOf is the kind of request req is, read from its method and query as
// the S3 REST API tells its operations apart.
func kindOf(req *http.Request) kind {
	q := req.URL.Query()
	has := func(name string) bool { _, ok := q[name]; return ok }
	switch req.Method {
	case http.MethodPut:
		if has("partNumber") && has("uploadId") {
			return kindPart
		}
		return kindPut
	case http.MethodGet:
		switch {
		case has("location"):
			return kindOther
		case has("list-type"), has("uploads"), has("uploadId"), has("prefix"), has("delimiter"):
			return kindList
		}
		return kindGet
	case http.MethodHead:
		return kindHead
	case http.MethodDelete:
		if has("uploadId") {
			return kindMultipart
		}
		return kindDelete
	case http.MethodPost:
		switch {
		case has("delete"):
			return kindDelete
		case has("uploads"), has("uploadId"):
			return kindMultipart
		}
	}
	return kindOther
}

// countingTransport counts each request it sends and the body bytes that
// cross it, for Traffic.
type countingTransport struct {
	next    http.RoundTripper
	traffic *traffic
}

func (c *countingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	c.traffic.requests[kindOf(req)].Add(1)
	if req.Body != nil && req.Body != http.NoBody {
		req = req.Clone(req.Context())
		req.Body = &countingBody{ReadCloser: req.Body, n: &c.traffic.up}
	}
	resp, err := c.next.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	resp.Body = &countingBody{ReadCloser: resp.Body, n: &c.traffic.down}
	return resp, nil
}

// countingBody adds the bytes read through it to n.
type countingBody struct {
	io.ReadCloser
	n *atomic.Int64
}

func (b *countingBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	b.n.Add(int64(n))
	return n, err
}
