package blob

import (
	"net/http"

	"github.com/lazuli-storage/lazuli/internal/engine/store"
	"github.com/lazuli-storage/lazuli/internal/frame/request"
	"github.com/lazuli-storage/lazuli/internal/rule/azerr"
	"github.com/lazuli-storage/lazuli/internal/rule/cond"
	"github.com/lazuli-storage/lazuli/internal/rule/lease"
	"github.com/lazuli-storage/lazuli/internal/service/blobdata"
)

// Premium page blob tiers: in a premium account (Azure's Premium_LRS page
// blob accounts; --premiumAccounts here) a page blob has a disk tier, P4
// to P80, each with a largest size. A page blob created without one has
// the tier its size infers, P10 at least (the service answers P10 and
// x-ms-access-tier-inferred for a small page blob); Put Blob's
// x-ms-access-tier or Set Blob Tier sets one, which must hold the blob
// (409 BlobTierInadequateForContentLength), and a resize may not outgrow
// it (409 ContentLengthLargerThanTierLimit). Standard accounts refuse the
// tiers as an invalid x-ms-access-tier, as before.

// isPremium reports whether the request's account is a premium one.
func (s *Service) isPremium(r *http.Request) bool { return s.premium[request.Of(r).Account] }

// createTier checks the x-ms-access-tier of a page blob's Put Blob in a
// premium account: a tier that holds size bytes, or none.
func (s *Service) createTier(r *http.Request, size int64) (string, error) {
	raw := r.Header.Get("X-Ms-Access-Tier")
	if raw == "" {
		return "", nil
	}
	name, limit, ok := blobdata.PremiumTier(raw)
	if !ok || !s.isPremium(r) {
		return "", azerr.InvalidHeader("x-ms-access-tier", raw)
	}
	if size > limit {
		return "", azerr.New(azerr.BlobTierInadequateForContentLength)
	}
	return name, nil
}

// checkTierHolds refuses a resize of a premium page blob past the limit
// of the tier set on it.
func checkTierHolds(b *blobdata.Blob, size int64) error {
	if !b.PremiumPage || b.Tier == "" {
		return nil
	}
	if _, limit, ok := blobdata.PremiumTier(b.Tier); ok && size > limit {
		return azerr.New(azerr.ContentLengthLargerThanTierLimit)
	}
	return nil
}

// setPremiumTier is Set Blob Tier with a premium tier: only a page blob of
// a premium account takes one, and it must hold the blob. The ETag does
// not change.
func (s *Service) setPremiumTier(w http.ResponseWriter, r *http.Request) error {
	t := targetOf(r)
	conds, sel, err := parseSelectedRequest(r, cond.IfTags)
	if err != nil {
		return err
	}
	raw := r.Header.Get("X-Ms-Access-Tier")
	name, limit, _ := blobdata.PremiumTier(raw)
	if !s.isPremium(r) {
		return azerr.InvalidHeader("x-ms-access-tier", raw)
	}
	account := request.Of(r).Account
	err = s.store.Update(r.Context(), func(tx store.Tx) error {
		if _, found, err := blobdata.LoadContainer(tx, account, t.Container); err != nil || !found {
			return firstErr(err, containerNotFound())
		}
		now := s.now()
		b, err := blobdata.LoadState(tx, account, t.Container, t.Blob, sel, now)
		if err != nil || b == nil {
			return firstErr(err, blobNotFound())
		}
		if b.Type != blobdata.PageBlob {
			return azerr.Newf(azerr.InvalidBlobType, "Premium access tiers apply to page blobs only.")
		}
		if err := conds.tagsHold(b); err != nil {
			return err
		}
		if err := b.Lease.CheckRead(leaseID(r), now, lease.Blob); err != nil {
			return err
		}
		if err := keyOf(r).check(b); err != nil {
			return err
		}
		if b.Size > limit {
			return azerr.New(azerr.BlobTierInadequateForContentLength)
		}
		b.Tier, b.PremiumPage = name, true
		return tx.Put(blobdata.RecordKey(account, t.Container, t.Blob, b.LoadedFrom), b.Encode())
	})
	if err != nil {
		return err
	}
	return write(w, http.StatusOK)
}
