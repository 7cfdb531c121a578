package blob

import (
	"net/http"
	"strconv"
	"time"

	"github.com/lazuli-storage/lazuli/internal/rule/lease"
)

// The lease headers of containers and blobs: the lease ID a request sends,
// the lease state an answer reports, and the result of a lease operation.

// leaseID returns the request's x-ms-lease-id as sent.
func leaseID(r *http.Request) string { return r.Header.Get(lease.HeaderID) }

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
