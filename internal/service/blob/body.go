package blob

import (
	"net/http"
	"strconv"

	"github.com/lazuli-storage/lazuli/internal/frame/request"
	"github.com/lazuli-storage/lazuli/internal/rule/azerr"
)

// The rules on a request body's length that the operations writing blob
// content share (Put Blob, Put Block, Append Block, Put Page).

// contentLength returns the request's declared body length. Azure requires
// Content-Length on every PUT that carries a body (411
// MissingContentLengthHeader) and refuses bodies past max (413
// RequestBodyTooLarge) before reading them.
func contentLength(r *http.Request, max int64) (int64, error) {
	if r.ContentLength < 0 || (r.ContentLength == 0 && r.Header.Get("Content-Length") == "") {
		return 0, azerr.New(azerr.MissingContentLengthHeader)
	}
	if r.ContentLength > max {
		return 0, azerr.New(azerr.RequestBodyTooLarge).With("MaxLimit", strconv.FormatInt(max, 10))
	}
	return r.ContentLength, nil
}

// versionLimit is a body limit that grew with a service version: current
// from version since on, legacy for a request of an older version.
func versionLimit(r *http.Request, since string, current, legacy int64) int64 {
	if v := request.Of(r).Version; v != "" && v < since {
		return legacy
	}
	return current
}
