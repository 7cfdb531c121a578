package dfs

import (
	"net/http"

	"github.com/lazuli-storage/lazuli/internal/engine/store"
	"github.com/lazuli-storage/lazuli/internal/frame/request"
	"github.com/lazuli-storage/lazuli/internal/rule/lease"
	"github.com/lazuli-storage/lazuli/internal/service/blobdata"
)

// parseCreateLease reads the lease Path - Create takes on the path it
// creates: x-ms-proposed-lease-id with x-ms-lease-duration (15 to 60
// seconds, or -1 for an infinite lease), checked as Lease Blob's acquire
// checks them; nil when the request proposes none.
func parseCreateLease(h http.Header) (*lease.Request, error) {
	if h.Get(lease.HeaderProposedID) == "" && h.Get(lease.HeaderDuration) == "" {
		return nil, nil
	}
	acquire := http.Header{}
	acquire.Set(lease.HeaderAction, lease.Acquire)
	for _, name := range []string{lease.HeaderProposedID, lease.HeaderDuration} {
		if v := h.Get(name); v != "" {
			acquire.Set(name, v)
		}
	}
	req, err := lease.ParseRequest(acquire, lease.Blob)
	if err != nil {
		return nil, err
	}
	return &req, nil
}

// leaseCreated acquires req on the path Put Blob has just written, as
// Lease Blob's acquire would (a lease another holds is 409).
func (s *Service) leaseCreated(r *http.Request, req lease.Request) error {
	t, account := targetOf(r), request.Of(r).Account
	return s.store.Update(r.Context(), func(tx store.Tx) error {
		now := s.now()
		b, err := pathForWrite(tx, account, t.Filesystem, t.Path, now)
		if err != nil || b == nil {
			return err
		}
		if b.Lease, _, err = lease.Apply(b.Lease, req, now, lease.Blob); err != nil {
			return err
		}
		return blobdata.SaveBlob(tx, account, t.Filesystem, t.Path, b)
	})
}
