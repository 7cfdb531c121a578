package request

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strconv"

	"github.com/lazuli-storage/lazuli/internal/rule/azerr"
)

// ReadBody reads a request body of at most limit bytes, the one rule every
// service reads small bodies (XML, JSON, batches) by: a larger body is 413
// RequestBodyTooLarge with the limit, and a body that cannot be read is
// mapped by BodyError.
func ReadBody(r *http.Request, limit int64) ([]byte, error) {
	if r.ContentLength > limit {
		return nil, TooLarge(limit)
	}
	body, err := io.ReadAll(io.LimitReader(MarkReads(r.Body), limit+1))
	if err != nil {
		return nil, BodyError(err)
	}
	if int64(len(body)) > limit {
		return nil, TooLarge(limit)
	}
	return body, nil
}

// TooLarge is 413 RequestBodyTooLarge naming the limit, as the service
// reports it.
func TooLarge(limit int64) error {
	return azerr.New(azerr.RequestBodyTooLarge).With("MaxLimit", strconv.FormatInt(limit, 10))
}

// BodyError maps an error met while reading a request body: an Azure
// error (a checksum, a framing error) stays; a client that went away (its
// context ended, the body was cut short) stays, so that nothing is
// answered; anything else the transport reports (malformed chunked
// encoding, a body longer than its declared length) is the client's fault,
// 400 InvalidInput, never a 500. An error that did not come from a body
// MarkReads wrapped is the storage's the body was copied into (a database
// restarting under a write), not the client's: it is returned unchanged,
// a 500 the client retries.
func BodyError(err error) error {
	if err == nil {
		return nil
	}
	if _, ok := azerr.As(err); ok {
		return err
	}
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	var tooBig *http.MaxBytesError
	if errors.As(err, &tooBig) {
		return TooLarge(tooBig.Limit)
	}
	var read *readError
	if !errors.As(err, &read) {
		return err
	}
	return azerr.Newf(azerr.InvalidInput, "The request body could not be read: %v.", err)
}

// ShortBody reports whether err is a request body, read through MarkReads,
// that ended before its Content-Length: io.ErrUnexpectedEOF from the body's
// own reads, a 400 InvalidInput when the client is still there to hear it.
// The same error from the storage the body was copied into (pgx reports a
// database connection cut mid-statement as an unexpected EOF) is not the
// client's, and a 500 the client retries.
func ShortBody(err error) bool {
	var read *readError
	return errors.As(err, &read) && errors.Is(read.err, io.ErrUnexpectedEOF)
}

// MarkReads returns body with the errors its reads return marked, so that
// BodyError can tell a body that could not be read from storage that could
// not be written while the body was streamed into it.
func MarkReads(body io.Reader) io.Reader { return markedBody{body} }

type markedBody struct{ r io.Reader }

func (b markedBody) Read(p []byte) (int, error) {
	n, err := b.r.Read(p)
	if err != nil && err != io.EOF {
		err = &readError{err}
	}
	return n, err
}

// readError is an error a request body's reader returned.
type readError struct{ err error }

func (e *readError) Error() string { return e.err.Error() }
func (e *readError) Unwrap() error { return e.err }
