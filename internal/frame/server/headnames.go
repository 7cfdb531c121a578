package server

import (
	"bytes"
	"net/http"
	"net/textproto"

	"github.com/lazuli-storage/lazuli/internal/rule/metadata"
)

// Azure keeps the case a client gave a metadata name ("Metadata names
// preserve the case with which they were created, but are case-insensitive
// when set or read": Naming and Referencing Containers, Blobs, and
// Metadata), and Python's and .NET's SDK tests read it back that way. Go's
// server canonicalises every header name before a handler sees it
// (x-ms-meta-UP arrives as X-Ms-Meta-Up), so the connection keeps the
// names of a request's x-ms-meta-* headers as they were sent, read from
// the request's head as net/http reads it, and trackRequests gives them
// back to the request's header map before any handler runs.
//
// Only the head of a request is looked at: bytes read between requests
// (a connection is not serving one while net/http reads the next head),
// up to the blank line that ends it. A head net/http had already buffered
// while the previous request was served (a pipelining client) is not
// seen; its metadata names keep the old lower-case form.

// maxHeadCapture bounds the bytes kept while looking for the end of a
// head: net/http refuses heads past its 1 MB MaxHeaderBytes anyway.
const maxHeadCapture = http.DefaultMaxHeaderBytes + 4096

// keptHeadBuffer is the most buffer capacity a connection keeps between
// requests; a larger head's buffer is let go once read.
const keptHeadBuffer = 16 << 10

// headEnd ends a request's head.
var headEnd = []byte("\r\n\r\n")

// sentHead collects one request head's metadata header names.
type sentHead struct {
	buf  []byte
	done bool
	// metaNames are the x-ms-meta-* header names of the last complete
	// head, as sent; nil when it had none.
	metaNames []string
}

// feed takes bytes read from the connection while no request is served.
func (s *sentHead) feed(p []byte) {
	if s.done || len(p) == 0 {
		return
	}
	from := max(len(s.buf)-len(headEnd)+1, 0)
	s.buf = append(s.buf, p...)
	end := bytes.Index(s.buf[from:], headEnd)
	switch {
	case end >= 0:
		s.metaNames = metaHeaderNames(s.buf[:from+end])
	case len(s.buf) > maxHeadCapture:
		s.metaNames = nil
	default:
		return
	}
	s.done = true
	s.buf = s.buf[:0]
	if cap(s.buf) > keptHeadBuffer {
		s.buf = nil // an idle connection does not keep a large head's memory
	}
}

// reset readies s for the next request's head.
func (s *sentHead) reset() { s.done, s.metaNames = false, nil }

// metaHeaderNames returns the names of the head's x-ms-meta-* header
// lines, as written.
func metaHeaderNames(head []byte) []string {
	var names []string
	for line := range bytes.SplitSeq(head, []byte("\r\n")) {
		colon := bytes.IndexByte(line, ':')
		if colon > len(metadata.Prefix) && bytes.EqualFold(line[:len(metadata.Prefix)], []byte(metadata.Prefix)) {
			names = append(names, string(line[:colon]))
		}
	}
	return names
}

// restoreMetaNames renames each x-ms-meta-* key of h that Go canonicalised
// back to the name the client sent, in the form metadata.Parse takes as
// case-preserving.
func restoreMetaNames(h http.Header, sent []string) {
	for _, name := range sent {
		canonical := textproto.CanonicalMIMEHeaderKey(name)
		values, ok := h[canonical]
		if !ok {
			continue // a second spelling of a name already restored
		}
		delete(h, canonical)
		h[metadata.Prefix+name[len(metadata.Prefix):]] = values
	}
}
