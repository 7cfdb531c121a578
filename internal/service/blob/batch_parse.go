package blob

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"mime/multipart"
	"net/http"
	"strings"

	"github.com/lazuli-storage/lazuli/internal/frame/request"
	"github.com/lazuli-storage/lazuli/internal/rule/azerr"
	"github.com/lazuli-storage/lazuli/internal/rule/batchmime"
)

// Blob Batch limits: 256 sub-requests, and a body of at most 4 MiB (256
// signed sub-requests take a small fraction of it).
const (
	maxBatchRequests = 256
	maxBatchBody     = 4 << 20
)

// subRequest is one part of a batch body: its Content-ID and the HTTP
// request it carries.
type subRequest struct {
	contentID string
	req       *http.Request
}

// batchKind is what a sub-request does; a batch holds one kind only.
type batchKind int

const (
	kindOther batchKind = iota
	kindDelete
	kindSetTier
)

func (sr subRequest) kind() batchKind { return batchKindOf(sr.req) }

// batchKindOf is what the request r of a batch does.
func batchKindOf(r *http.Request) batchKind {
	switch {
	case r.Method == http.MethodDelete:
		return kindDelete
	case r.Method == http.MethodPut && r.URL.Query().Get("comp") == "tier":
		return kindSetTier
	}
	return kindOther
}

// errBatchBody reports a batch body that is not a multipart/mixed list of
// application/http requests.
var errBatchBody = errors.New("blob: malformed batch body")

// envelopeError is a fault of a batch's multipart/mixed Content-Type that
// the service answers as the one part of a 202 response, not as the
// batch's status: a Content-Type without "boundary=" is 202 with a part
// "400 ... x-ms-error-code: InvalidHeaderValue" (the live response quoted
// in Azure/Azurite#2421); an empty boundary is the same and two boundaries
// InvalidInput (Azurite's tests/blob/apis/blobbatch.test.ts, "SubmitBatch
// rejects an empty boundary", "... duplicate boundary parameters").
type envelopeError struct{ err *azerr.Error }

func (e *envelopeError) Error() string { return e.err.Error() }

// Unwrap lets the batch's own error answer stand in, should an envelope
// error ever reach the renderer.
func (e *envelopeError) Unwrap() error { return e.err }

// parseBatch reads a Blob Batch body: multipart/mixed parts, each an HTTP
// request line and headers. More than 256 parts is 400
// ExceedsMaxBatchRequestCount, a malformed body 400 InvalidInput, a
// Content-Type that is not multipart/mixed 400 InvalidHeaderValue, and one
// without a single boundary an envelopeError.
func parseBatch(r *http.Request) ([]subRequest, error) {
	ct := r.Header.Get("Content-Type")
	boundary, err := batchmime.Boundary(ct)
	switch {
	case errors.Is(err, batchmime.ErrNoBoundary):
		return nil, &envelopeError{azerr.InvalidHeader("Content-Type", ct)}
	case errors.Is(err, batchmime.ErrRepeatedBoundary):
		return nil, &envelopeError{azerr.New(azerr.InvalidInput)}
	case err != nil:
		return nil, azerr.InvalidHeader("Content-Type", ct)
	}
	body, err := request.ReadBody(r, maxBatchBody)
	if err != nil {
		return nil, err
	}
	subs, err := splitBatch(body, boundary)
	switch {
	case errors.Is(err, errBatchBody):
		return nil, azerr.Newf(azerr.InvalidInput, "The batch request body is malformed: %v.", err)
	case err != nil:
		return nil, err
	case len(subs) == 0:
		return nil, azerr.Newf(azerr.InvalidInput, "The batch request holds no sub-requests.")
	}
	return subs, nil
}

// endHeaders completes a sub-request whose headers run into the next
// delimiter: the JavaScript SDK writes no blank line after them, leaving only
// the CRLF that belongs to the delimiter, and Azure accepts that. Batch
// sub-requests carry no body, so a part without a blank line is all headers.
func endHeaders(data []byte) []byte {
	if bytes.Contains(data, []byte("\r\n\r\n")) || bytes.Contains(data, []byte("\n\n")) {
		return data
	}
	out := append([]byte(nil), data...)
	if !bytes.HasSuffix(out, []byte("\n")) {
		out = append(out, "\r\n"...)
	}
	return append(out, "\r\n"...)
}

// splitBatch splits a multipart body into its sub-requests.
func splitBatch(body []byte, boundary string) ([]subRequest, error) {
	mr := multipart.NewReader(bytes.NewReader(body), boundary)
	var subs []subRequest
	for {
		part, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			return subs, nil
		}
		if err != nil {
			return nil, errors.Join(errBatchBody, err)
		}
		if len(subs) == maxBatchRequests {
			return nil, azerr.New(azerr.ExceedsMaxBatchRequestCount)
		}
		data, err := io.ReadAll(part)
		if err != nil {
			return nil, errors.Join(errBatchBody, err)
		}
		req, err := http.ReadRequest(bufio.NewReader(bytes.NewReader(endHeaders(data))))
		if err != nil {
			return nil, errors.Join(errBatchBody, err)
		}
		subs = append(subs, subRequest{contentID: strings.TrimSpace(part.Header.Get("Content-ID")), req: req})
	}
}
