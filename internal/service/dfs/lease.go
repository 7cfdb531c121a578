package dfs

import (
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/lazuli-storage/lazuli/internal/engine/store"
	"github.com/lazuli-storage/lazuli/internal/rule/azerr"
	"github.com/lazuli-storage/lazuli/internal/rule/lease"
	"github.com/lazuli-storage/lazuli/internal/service/blobdata"
)

// pathLease is Path - Lease: x-ms-lease-action acquire, break, change,
// renew or release on a file or directory, with the states, codes and
// statuses of Lease Blob (package lease: 201 for acquire, 200 for renew,
// change and release, 202 for break with x-ms-lease-time). A path's lease
// is its blob's, so the Blob API's Lease Blob and this operation see one
// lease. Like Lease Blob it moves neither the ETag nor Last-Modified.
func (s *Service) pathLease(w http.ResponseWriter, r *http.Request) error {
	req, err := lease.ParseRequest(r.Header, lease.Blob)
	if err != nil {
		return err
	}
	var result lease.Result
	b, err := s.updatePath(r, func(_ store.Tx, b *blobdata.Blob, now time.Time) error {
		next, res, err := lease.Apply(b.Lease, req, now, lease.Blob)
		b.Lease, result = next, res
		return err
	})
	if err != nil {
		return err
	}
	h := w.Header()
	if result.LeaseID != "" {
		h.Set(lease.HeaderID, result.LeaseID)
	}
	if result.LeaseTime != nil {
		h.Set("X-Ms-Lease-Time", strconv.Itoa(*result.LeaseTime))
	}
	h.Set("Content-Length", "0")
	return answerChange(w, b, result.Status)
}

// The x-ms-lease-action values of append and flush that Lease Blob does
// not have: "auto-renew" renews the lease the request names, and
// "acquire-release" takes a lease for the flush and gives it back after
// (Path - Update, x-ms-lease-action).
const (
	leaseAutoRenew      = "auto-renew"
	leaseAcquireRelease = "acquire-release"
)

// writeLease is what an append or a flush does with the file's lease:
// the x-ms-lease-id it writes under and its x-ms-lease-action.
type writeLease struct {
	action string
	id     string // x-ms-lease-id as sent
	// acquire is the lease acquire and acquire-release take.
	acquire lease.Request
}

// parseWriteLease reads the lease headers of an append or flush. acquire
// and acquire-release take x-ms-lease-duration and x-ms-proposed-lease-id
// as Lease Blob's acquire does; auto-renew and release need x-ms-lease-id;
// release and acquire-release are for a request that flushes ("If
// "release" it will release the lease only on flush"). Any other action
// is 400 InvalidHeaderValue.
func parseWriteLease(h http.Header, flushes bool) (writeLease, error) {
	raw := h.Get(lease.HeaderAction)
	wl := writeLease{action: strings.ToLower(strings.TrimSpace(raw)), id: h.Get(lease.HeaderID)}
	releases := wl.action == lease.Release || wl.action == leaseAcquireRelease
	switch {
	case wl.action == "":
		return wl, nil
	case releases && !flushes:
		return wl, azerr.InvalidHeader(lease.HeaderAction, raw)
	case wl.action == lease.Acquire || wl.action == leaseAcquireRelease:
		acquire := h.Clone()
		acquire.Set(lease.HeaderAction, lease.Acquire)
		var err error
		wl.acquire, err = lease.ParseRequest(acquire, lease.Blob)
		return wl, err
	case wl.action == leaseAutoRenew || wl.action == lease.Release:
		if wl.id == "" {
			return wl, azerr.MissingHeader(lease.HeaderID)
		}
		return wl, nil
	}
	return wl, azerr.InvalidHeader(lease.HeaderAction, raw)
}

// before applies the lease action ahead of the write and checks that the
// request may write: acquire takes the lease (409 when another holds it),
// auto-renew renews the one it names, the others must name the active
// lease (lease.CheckWrite). renewed reports a renewal, which the answer's
// x-ms-lease-renewed says.
func (wl writeLease) before(b *blobdata.Blob, now time.Time) (renewed bool, err error) {
	switch wl.action {
	case lease.Acquire, leaseAcquireRelease:
		b.Lease, _, err = lease.Apply(b.Lease, wl.acquire, now, lease.Blob)
		return false, err
	case leaseAutoRenew:
		// Renewed first, as Renew Lease renews: an expired lease the
		// request names is held again (azdatalake's recorded
		// TestFileAppendDataWithRenewLease appends with auto-renew after
		// its 15 s lease expired, and the file is leased after).
		id, _ := lease.ParseID(wl.id)
		held, _, renewErr := lease.Apply(b.Lease, lease.Request{Action: lease.Renew, ID: id}, now, lease.Blob)
		if renewErr != nil {
			// A lease this request cannot renew: the write's own refusal
			// where the write would be refused, else the renewal's.
			if err := b.Lease.CheckWrite(wl.id, now, lease.Blob); err != nil {
				return false, err
			}
			return false, renewErr
		}
		b.Lease = held
		return true, nil
	}
	return false, b.Lease.CheckWrite(wl.id, now, lease.Blob)
}

// after settles the lease once a flush has written: release and
// acquire-release give it back; otherwise an expired or broken lease is
// forgotten, as after any blob write.
func (wl writeLease) after(b *blobdata.Blob, now time.Time) {
	if wl.action == lease.Release || wl.action == leaseAcquireRelease {
		b.Lease = lease.Lease{}
		return
	}
	b.Lease = b.Lease.AfterWrite(now)
}
