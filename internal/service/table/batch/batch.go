// Package batch reads and writes the multipart/mixed bodies of the Table
// service's entity group transactions ($batch): a batch holding either one
// changeset of write requests or a single query, each an embedded HTTP
// request, and the matching batchresponse/changesetresponse body.
package batch

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"net/url"
	"strconv"
	"strings"

	"github.com/lazuli-storage/lazuli/internal/rule/batchmime"
)

// Request is one operation of a batch.
type Request struct {
	Method    string
	URL       *url.URL
	Header    http.Header
	Body      []byte
	ContentID string
}

// Batch is a parsed batch body.
type Batch struct {
	// Changeset is true when the requests came in a changeset (writes);
	// false for a lone query part.
	Changeset bool
	Requests  []Request
}

// Error is a malformed batch body; the service answers 400 InvalidInput.
type Error struct{ Msg string }

func (e *Error) Error() string { return "batch: " + e.Msg }

func errorf(format string, args ...any) error { return &Error{Msg: fmt.Sprintf(format, args...)} }

// MaxParts bounds how many parts are read, so a hostile body cannot make
// the parser allocate without limit; the service's own 100-operation rule is
// applied by the caller, which needs to know how many were sent.
const MaxParts = 1000

// Parse reads a batch body sent with the given Content-Type.
func Parse(contentType string, body []byte) (*Batch, error) {
	boundary, err := multipartBoundary(contentType)
	if err != nil {
		return nil, err
	}
	mr := multipart.NewReader(bytes.NewReader(body), boundary)
	b := &Batch{}
	parts := 0
	for {
		part, err := mr.NextRawPart()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, errorf("malformed multipart body: %v", err)
		}
		parts++
		if parts > 1 {
			return nil, errorf("a batch holds one changeset or one query")
		}
		if err := b.readTopPart(part); err != nil {
			return nil, err
		}
	}
	if parts == 0 || len(b.Requests) == 0 {
		return nil, errorf("the batch is empty")
	}
	return b, nil
}

// multipartBoundary reads the boundary of a multipart/mixed Content-Type.
func multipartBoundary(contentType string) (string, error) {
	boundary, err := batchmime.Boundary(contentType)
	if err != nil {
		return "", errorf("Content-Type must be multipart/mixed with a boundary")
	}
	return boundary, nil
}

// readTopPart reads the batch's one part: a changeset or a query.
func (b *Batch) readTopPart(part *multipart.Part) error {
	ct := part.Header.Get("Content-Type")
	mt, _, _ := mime.ParseMediaType(ct)
	if strings.EqualFold(mt, "application/http") {
		req, err := readRequest(part)
		if err != nil {
			return err
		}
		if req.Method != http.MethodGet {
			return errorf("an operation outside a changeset must be a query")
		}
		b.Requests = append(b.Requests, req)
		return nil
	}
	boundary, err := multipartBoundary(ct)
	if err != nil {
		return errorf("a batch part must be a changeset or an application/http query")
	}
	b.Changeset = true
	mr := multipart.NewReader(part, boundary)
	for {
		p, err := mr.NextRawPart()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return errorf("malformed changeset: %v", err)
		}
		if len(b.Requests) >= MaxParts {
			return errorf("too many operations in the changeset")
		}
		mt, _, _ := mime.ParseMediaType(p.Header.Get("Content-Type"))
		if !strings.EqualFold(mt, "application/http") {
			return errorf("changeset parts must be application/http")
		}
		req, err := readRequest(p)
		if err != nil {
			return err
		}
		if req.Method == http.MethodGet {
			return errorf("a query cannot be part of a changeset")
		}
		b.Requests = append(b.Requests, req)
	}
}

// readRequest reads an embedded HTTP request: request line, headers, then
// the body (Content-Length long when given, else the rest of the part).
func readRequest(part *multipart.Part) (Request, error) {
	br := bufio.NewReader(part)
	tp := textproto.NewReader(br)
	line, err := tp.ReadLine()
	if err != nil {
		return Request{}, errorf("missing request line")
	}
	method, rest, ok1 := strings.Cut(line, " ")
	target, proto, ok2 := strings.Cut(rest, " ")
	if !ok1 || !ok2 || !strings.HasPrefix(proto, "HTTP/") || method == "" {
		return Request{}, errorf("malformed request line %q", line)
	}
	u, err := url.Parse(target)
	if err != nil {
		return Request{}, errorf("malformed request URL %q", target)
	}
	hdr, err := tp.ReadMIMEHeader()
	if err != nil && !errors.Is(err, io.EOF) {
		return Request{}, errorf("malformed request headers")
	}
	body, err := io.ReadAll(br)
	if err != nil {
		return Request{}, errorf("unreadable request body")
	}
	req := Request{Method: strings.ToUpper(method), URL: u, Header: http.Header(hdr), ContentID: part.Header.Get("Content-ID")}
	if req.ContentID == "" {
		req.ContentID = req.Header.Get("Content-ID")
	}
	req.Body = trimBody(body, req.Header.Get("Content-Length"))
	return req, nil
}

// trimBody cuts the body to Content-Length, or drops the line break before
// the next boundary.
func trimBody(body []byte, contentLength string) []byte {
	if n, err := strconv.Atoi(contentLength); err == nil && n >= 0 && n <= len(body) {
		return body[:n]
	}
	return bytes.TrimRight(body, "\r\n")
}
