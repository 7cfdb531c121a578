package lease

import (
	"net/http"
	"time"

	"github.com/lazuli-storage/lazuli/internal/base/guid"
	"github.com/lazuli-storage/lazuli/internal/rule/azerr"
)

// Result is the outcome of a successful lease operation.
type Result struct {
	// Status is 201 for acquire, 200 for renew/change/release, 202 for break.
	Status int
	// LeaseID is the x-ms-lease-id to return, "" for none.
	LeaseID string
	// LeaseTime is x-ms-lease-time (break only): whole seconds, rounded up,
	// until the lease is broken and a new one can be acquired.
	LeaseTime *int
}

// Apply performs a lease operation on l at now (the outcome tables of the
// "Lease Blob", "Lease Container" and "Lease File" reference pages,
// learn.microsoft.com/rest/api/storageservices/lease-blob, with the error codes the SDKs' recorded
// tests show) and returns the lease to store. Lease operations never change
// the resource's ETag or Last-Modified. Failures are 409 with the code the
// real service returns for that state.
func Apply(l Lease, req Request, now time.Time, k Kind) (Lease, Result, error) {
	switch req.Action {
	case Acquire:
		return l.acquire(req, now, k)
	case Renew:
		if k == File {
			return l, Result{}, azerr.InvalidHeader(HeaderAction, req.Action)
		}
		return l.renew(req, now, k)
	case Change:
		return l.change(req, now, k)
	case Release:
		return l.release(req, now, k)
	case Break:
		return l.breakLease(req, now, k)
	default:
		return l, Result{}, azerr.InvalidHeader(HeaderAction, req.Action)
	}
}

func (l Lease) acquire(req Request, now time.Time, k Kind) (Lease, Result, error) {
	if req.Duration == nil {
		return l, Result{}, azerr.MissingHeader(HeaderDuration)
	}
	sameID := req.ProposedID != "" && req.ProposedID == l.ID
	switch l.State(now) {
	case Leased:
		// Only the holder may acquire again, which sets a new duration.
		if !sameID {
			return l, Result{}, conflict(azerr.LeaseAlreadyPresent, k)
		}
	case Breaking:
		if sameID {
			return l, Result{}, conflict(azerr.LeaseIsBreakingAndCannotBeAcquired, k)
		}
		return l, Result{}, conflict(azerr.LeaseAlreadyPresent, k)
	}
	id := req.ProposedID
	if id == "" {
		id = guid.New()
	}
	next := Lease{ID: id, Duration: *req.Duration}
	if next.Duration != Infinite {
		next.Expires = now.Add(time.Duration(next.Duration) * time.Second)
	}
	return next, Result{Status: http.StatusCreated, LeaseID: id}, nil
}

func (l Lease) renew(req Request, now time.Time, k Kind) (Lease, Result, error) {
	state := l.State(now)
	if state == Available || req.ID != l.ID {
		return l, Result{}, conflict(azerr.LeaseIdMismatchWithLeaseOperation, k)
	}
	switch state {
	case Breaking, Broken:
		return l, Result{}, conflict(azerr.LeaseIsBrokenAndCannotBeRenewed, k)
	}
	// Leased, or expired but not written since (a write forgets an expired
	// blob lease, see AfterWrite): the clock restarts.
	next := l
	if next.Duration != Infinite {
		next.Expires = now.Add(time.Duration(next.Duration) * time.Second)
	}
	return next, Result{Status: http.StatusOK, LeaseID: l.ID}, nil
}

func (l Lease) change(req Request, now time.Time, k Kind) (Lease, Result, error) {
	// Changing to the ID the lease already has is idempotent, whatever
	// current ID was sent: a client retrying a change that succeeded.
	holder := l.ID != "" && (req.ID == l.ID || req.ProposedID == l.ID)
	switch l.State(now) {
	case Leased:
		if !holder {
			return l, Result{}, conflict(azerr.LeaseIdMismatchWithLeaseOperation, k)
		}
		next := l
		next.ID = req.ProposedID
		return next, Result{Status: http.StatusOK, LeaseID: next.ID}, nil
	case Breaking:
		if holder {
			return l, Result{}, conflict(azerr.LeaseIsBreakingAndCannotBeChanged, k)
		}
		return l, Result{}, conflict(azerr.LeaseIdMismatchWithLeaseOperation, k)
	default:
		// Available, expired and broken leases have nothing to change.
		return l, Result{}, conflict(azerr.LeaseNotPresentWithLeaseOperation, k)
	}
}

func (l Lease) release(req Request, now time.Time, k Kind) (Lease, Result, error) {
	if l.State(now) == Available || req.ID != l.ID {
		return l, Result{}, conflict(azerr.LeaseIdMismatchWithLeaseOperation, k)
	}
	return Lease{}, Result{Status: http.StatusOK}, nil
}

// breakLease ends the lease after the effective break period: the requested
// period capped by the time a fixed lease has left; without a period a fixed
// lease breaks when it would have expired and an infinite one at once.
// Breaking a breaking lease again can only shorten the break; breaking a
// broken or expired lease leaves it broken now. File breaks are immediate.
func (l Lease) breakLease(req Request, now time.Time, k Kind) (Lease, Result, error) {
	var ends time.Time
	switch l.State(now) {
	case Available:
		return l, Result{}, conflict(azerr.LeaseNotPresentWithLeaseOperation, k)
	case Leased:
		ends = now.Add(l.breakPeriod(req.BreakPeriod, now, k))
	case Breaking:
		ends = l.BreakEnds
		if req.BreakPeriod != nil && k != File {
			if shorter := now.Add(seconds(*req.BreakPeriod)); shorter.Before(ends) {
				ends = shorter
			}
		}
	case Broken:
		ends = l.BreakEnds
	case Expired:
		ends = now
	}
	next := Lease{ID: l.ID, BreakEnds: ends}
	leaseTime := ceilSeconds(ends.Sub(now))
	return next, Result{Status: http.StatusAccepted, LeaseTime: &leaseTime}, nil
}

// breakPeriod is the effective break period of an active (leased) lease.
func (l Lease) breakPeriod(requested *int, now time.Time, k Kind) time.Duration {
	if k == File {
		return 0
	}
	if l.Duration == Infinite {
		if requested == nil {
			return 0
		}
		return seconds(*requested)
	}
	remaining := l.remaining(now)
	if requested != nil && seconds(*requested) < remaining {
		return seconds(*requested)
	}
	return remaining
}

func seconds(n int) time.Duration { return time.Duration(n) * time.Second }

// conflict is a 409 lease-operation error whose message names the resource
// kind, as the real service's messages do.
func conflict(code string, k Kind) *azerr.Error {
	e := azerr.New(code)
	switch code {
	case azerr.LeaseIdMismatchWithLeaseOperation:
		return withNoun(e, k, "The lease ID specified did not match the lease ID for the %s.")
	case azerr.LeaseNotPresentWithLeaseOperation:
		return withNoun(e, k, "There is currently no lease on the %s.")
	}
	return e
}
