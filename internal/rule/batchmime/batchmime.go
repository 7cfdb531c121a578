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

// ErrNoBoundary reports a Content-Type that is not multipart/mixed with
// exactly one non-empty boundary parameter.
var ErrNoBoundary = errors.New("Content-Type must be multipart/mixed with one boundary")

// Boundary reads the boundary of a multipart/mixed Content-Type. The media
// type and the parameter name match in any case; a missing, empty or
// repeated boundary is ErrNoBoundary.
func Boundary(contentType string) (string, error) {
	mt, params, err := mime.ParseMediaType(quoteBareBoundary(contentType))
	if err != nil || !strings.EqualFold(mt, "multipart/mixed") || params["boundary"] == "" {
		return "", ErrNoBoundary
	}
	return params["boundary"], nil
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
