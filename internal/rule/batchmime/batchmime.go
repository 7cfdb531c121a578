// Package batchmime reads the multipart/mixed envelope that Blob Batch and
// Table entity-group transactions share (Azure REST "Blob Batch", request
// body; "Performing entity group transactions", batch request body): the
// boundary its Content-Type names, in the forms clients send it.
package batchmime

import (
	"errors"
	"mime"
	"strings"
)

// The ways a Content-Type fails to name one boundary. Blob Batch answers
// a multipart/mixed one without a boundary, or with two, in a part of a
// 202 response, and anything else as a whole (service/blob, batch_parse.go).
var (
	// ErrNotMultipart: no Content-Type, or not a multipart/mixed one.
	ErrNotMultipart = errors.New("Content-Type must be multipart/mixed")
	// ErrNoBoundary: multipart/mixed with no boundary or an empty one.
	ErrNoBoundary = errors.New("Content-Type must be multipart/mixed with a boundary")
	// ErrRepeatedBoundary: multipart/mixed with more than one boundary.
	ErrRepeatedBoundary = errors.New("Content-Type must name one boundary")
)

// Boundary reads the boundary of a multipart/mixed Content-Type. The media
// type and the parameter name match in any case.
func Boundary(contentType string) (string, error) {
	mt, _, _ := strings.Cut(contentType, ";")
	if !strings.EqualFold(strings.TrimSpace(mt), "multipart/mixed") {
		return "", ErrNotMultipart
	}
	if boundaryParams(contentType) > 1 {
		return "", ErrRepeatedBoundary
	}
	_, params, err := mime.ParseMediaType(quoteBareBoundary(contentType))
	if err != nil || params["boundary"] == "" {
		return "", ErrNoBoundary
	}
	return params["boundary"], nil
}

// boundaryParams counts the boundary parameters of a Content-Type.
func boundaryParams(contentType string) int {
	n := 0
	for _, p := range strings.Split(contentType, ";")[1:] {
		if name, _, ok := strings.Cut(p, "="); ok && strings.EqualFold(strings.TrimSpace(name), "boundary") {
			n++
		}
	}
	return n
}

// quoteBareBoundary quotes an unquoted boundary parameter. A boundary may
// hold characters a MIME token may not, '=' above all (RFC 2046 section
// 5.1.1, bchars), and clients send such a boundary unquoted ("batch_x==");
// mime.ParseMediaType reads only tokens unquoted, so the value is quoted
// for it. bchars hold no '"' or ';', so the value ends at the next ';'.
func quoteBareBoundary(contentType string) string {
	params := strings.Split(contentType, ";")
	for i := 1; i < len(params); i++ {
		name, value, ok := strings.Cut(params[i], "=")
		value = strings.TrimSpace(value)
		if ok && strings.EqualFold(strings.TrimSpace(name), "boundary") && value != "" && value[0] != '"' {
			params[i] = name + `="` + value + `"`
		}
	}
	return strings.Join(params, ";")
}
