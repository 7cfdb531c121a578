package file

import (
	"context"
	"net/http"
	"strconv"

	"github.com/lazuli-storage/lazuli/internal/engine/store"
	"github.com/lazuli-storage/lazuli/internal/frame/accesspolicy"
	"github.com/lazuli-storage/lazuli/internal/rule/auth"
	"github.com/lazuli-storage/lazuli/internal/rule/etag"
	"github.com/lazuli-storage/lazuli/internal/rule/lease"
)

func (s *Service) getShareACL(w http.ResponseWriter, r *http.Request) error {
	t := targetOf(r)
	sh, err := s.viewShare(r, t, s.now())
	if err != nil {
		return err
	}
	setETag(w.Header(), sh.ETag)
	x := newXML()
	accesspolicy.Write(x, sh.ACL)
	x.Send(w, http.StatusOK)
	return nil
}

func (s *Service) setShareACL(w http.ResponseWriter, r *http.Request) error {
	t := targetOf(r)
	if err := readOnlySnapshot(t); err != nil {
		return err
	}
	policies, err := accesspolicy.Read(r, accesspolicy.ShareLetters)
	if err != nil {
		return err
	}
	sh, err := s.updateShare(r, t, s.now(), func(sh *shareRecord) { sh.ACL = policies })
	if err != nil {
		return err
	}
	setETag(w.Header(), sh.ETag)
	w.WriteHeader(http.StatusOK)
	return nil
}

// lookupPolicy finds a stored access policy of the request's share for a
// service SAS that names one (si).
func (s *Service) lookupPolicy(ctx context.Context, t *target, si string) (*auth.AccessPolicy, error) {
	var found *auth.AccessPolicy
	err := s.store.View(ctx, func(tx store.Tx) error {
		var err error
		found, err = policyIn(tx, t, si)
		return err
	})
	return found, err
}

// policyIn reads the stored access policy si of the target's share in tx
// (nil when there is none).
func policyIn(tx store.Tx, t *target, si string) (*auth.AccessPolicy, error) {
	sh, ok, err := loadShare(tx, t.Account, t.Share, "")
	if err != nil || !ok || sh.hidden() {
		return nil, err
	}
	return accesspolicy.Find(sh.ACL, si), nil
}

func (s *Service) leaseShare(w http.ResponseWriter, r *http.Request) error {
	t := targetOf(r)
	req, err := lease.ParseRequest(r.Header, lease.Share)
	if err != nil {
		return err
	}
	now := s.now()
	var sh *shareRecord
	var res lease.Result
	err = s.store.Update(r.Context(), func(tx store.Tx) error {
		var err error
		if sh, err = shareFor(tx, t); err != nil {
			return err
		}
		if sh.Lease, res, err = lease.Apply(sh.Lease, req, now, lease.Share); err != nil {
			return err
		}
		return saveShare(tx, t.Account, t.Share, t.Snapshot, sh)
	})
	if err != nil {
		return err
	}
	writeLeaseResult(w, sh.ETag, res)
	return nil
}

// writeLeaseResult answers a lease operation; the ETag is the resource's,
// unchanged by the lease.
func writeLeaseResult(w http.ResponseWriter, tick etag.Tick, res lease.Result) {
	h := w.Header()
	setETag(h, tick)
	if res.LeaseID != "" {
		h.Set(lease.HeaderID, res.LeaseID)
	}
	if res.LeaseTime != nil {
		h.Set("X-Ms-Lease-Time", strconv.Itoa(*res.LeaseTime))
	}
	w.WriteHeader(res.Status)
}
