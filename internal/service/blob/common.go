package blob

import (
	"net/http"
	"strconv"

	"github.com/lazuli-storage/lazuli/internal/rule/azerr"
)

// containerNotFound is 404 ContainerNotFound.
func containerNotFound() error { return azerr.New(azerr.ContainerNotFound) }

// blobNotFound is 404 BlobNotFound.
func blobNotFound() error { return azerr.New(azerr.BlobNotFound) }

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
