// Package azerr is Lazuli's error contract: one catalogue of Azure Storage
// error codes with their HTTP status and default message, and one renderer
// that writes an error exactly as the real service does (XML for Blob, Queue
// and File; OData JSON for Table; plain JSON for the Data Lake (dfs) API), with the x-ms-error-code header and the
// RequestId/Time lines in the message.
//
// Handlers return *Error values; any other error reaching the renderer is an
// internal fault and becomes 500 InternalError, its Go text logged, never sent.
package azerr

import (
	"errors"
	"fmt"
	"net/http"
)

// Error is an Azure Storage error response.
type Error struct {
	Status  int
	Code    string
	Message string
	// Details are extra elements of the XML body (QueryParameterName,
	// MinimumAllowed, ...), rendered in order after Message.
	Details []Detail
	// Header holds extra response headers (e.g. x-ms-copy-source-error-code).
	Header http.Header
}

// Detail is one extra element of an error body.
type Detail struct{ Name, Value string }

func (e *Error) Error() string { return fmt.Sprintf("%d %s: %s", e.Status, e.Code, e.Message) }

// New returns the catalogue error for code. An unknown code is a programming
// error and yields InternalError.
func New(code string) *Error {
	ent, ok := catalogue[code]
	if !ok {
		ent = catalogue[InternalError]
		code = InternalError
	}
	return &Error{Status: ent.status, Code: code, Message: ent.message}
}

// Lookup returns the catalogue error for code and whether the catalogue
// has it; for an unknown code it returns an Error carrying only the code.
func Lookup(code string) (*Error, bool) {
	ent, ok := catalogue[code]
	return &Error{Status: ent.status, Code: code, Message: ent.message}, ok
}

// Newf returns the catalogue error for code with a specific message.
func Newf(code, format string, args ...any) *Error {
	e := New(code)
	e.Message = fmt.Sprintf(format, args...)
	return e
}

// WithStatus returns a copy of e with another status (codes such as
// ConditionNotMet are 304 on reads and 412 on writes).
func (e *Error) WithStatus(status int) *Error {
	c := *e
	c.Status = status
	return &c
}

// With returns a copy of e with one more detail element.
func (e *Error) With(name, value string) *Error {
	c := *e
	c.Details = append(append([]Detail(nil), e.Details...), Detail{name, value})
	return &c
}

// As extracts an *Error from err's chain.
func As(err error) (*Error, bool) {
	var e *Error
	ok := errors.As(err, &e)
	return e, ok
}

// Is reports whether err is an Azure error with the given code.
func Is(err error, code string) bool {
	e, ok := As(err)
	return ok && e.Code == code
}

// NameLengthOutOfRange is the answer to a container, queue or table name
// outside 3 to 63 characters: 400 OutOfRangeInput (not InvalidResourceName,
// which is for characters the rules do not allow).
func NameLengthOutOfRange() *Error {
	return Newf(OutOfRangeInput, "The specified resource name length is not within the permissible limits.")
}

// InvalidHeader is 400 InvalidHeaderValue naming the header.
func InvalidHeader(name, value string) *Error {
	return New(InvalidHeaderValue).With("HeaderName", name).With("HeaderValue", value)
}

// MissingHeader is 400 MissingRequiredHeader naming the header.
func MissingHeader(name string) *Error {
	return New(MissingRequiredHeader).With("HeaderName", name)
}

// InvalidQuery is 400 InvalidQueryParameterValue naming the parameter.
func InvalidQuery(name, value, reason string) *Error {
	e := New(InvalidQueryParameterValue).With("QueryParameterName", name).With("QueryParameterValue", value)
	if reason != "" {
		e = e.With("Reason", reason)
	}
	return e
}

// OutOfRangeQuery is 400 OutOfRangeQueryParameterValue with its bounds.
func OutOfRangeQuery(name, value string, min, max int64) *Error {
	return New(OutOfRangeQueryParameterValue).With("QueryParameterName", name).
		With("QueryParameterValue", value).
		With("MinimumAllowed", fmt.Sprint(min)).With("MaximumAllowed", fmt.Sprint(max))
}
