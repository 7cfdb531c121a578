package blob

import (
	"net/http"
	"strconv"
	"time"

	"github.com/lazuli-storage/lazuli/internal/rule/azerr"
	"github.com/lazuli-storage/lazuli/internal/rule/lease"
)

// setLeaseHeaders writes x-ms-lease-status, -state and -duration.
func setLeaseHeaders(h http.Header, l lease.Lease, now time.Time) {
	h.Set("X-Ms-Lease-Status", l.Status(now))
	h.Set("X-Ms-Lease-State", string(l.State(now)))
	if d := l.DurationType(now); d != "" {
		h.Set("X-Ms-Lease-Duration", d)
	}
}

// setLeaseResult writes the headers of a successful lease operation.
func setLeaseResult(h http.Header, res lease.Result) {
	if res.LeaseID != "" {
		h.Set(lease.HeaderID, res.LeaseID)
	}
	if res.LeaseTime != nil {
		h.Set("X-Ms-Lease-Time", strconv.Itoa(*res.LeaseTime))
	}
}

// leaseID returns the request's x-ms-lease-id as sent.
func leaseID(r *http.Request) string { return r.Header.Get(lease.HeaderID) }

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
