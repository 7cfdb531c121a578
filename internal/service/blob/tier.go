package blob

import (
	"net/http"
	"strings"
	"time"

	"github.com/lazuli-storage/lazuli/internal/engine/store"
	"github.com/lazuli-storage/lazuli/internal/frame/request"
	"github.com/lazuli-storage/lazuli/internal/rule/azerr"
	"github.com/lazuli-storage/lazuli/internal/rule/cond"
	"github.com/lazuli-storage/lazuli/internal/rule/lease"
	"github.com/lazuli-storage/lazuli/internal/service/blobdata"
)

// Rehydration out of the archive tier takes hours in Azure. Lazuli keeps
// the protocol (the blob stays archived, with x-ms-archive-status, until
// the rehydration ends) but with short fixed delays, measured from the
// request's instant: an application that polls the blob's properties sees
// the same sequence of states, only sooner.
const (
	rehydrateStandard = 10 * time.Second
	rehydrateHigh     = 1 * time.Second
)

// Rehydrate priorities (x-ms-rehydrate-priority).
const (
	priorityStandard = "Standard"
	priorityHigh     = "High"
)

// rehydrateDelay is how long a rehydration at a priority takes.
func rehydrateDelay(priority string) time.Duration {
	if priority == priorityHigh {
		return rehydrateHigh
	}
	return rehydrateStandard
}

// parseTier reads x-ms-access-tier; "" when absent.
func parseTier(h http.Header) (string, error) {
	raw := h.Get("X-Ms-Access-Tier")
	for _, tier := range []string{"Hot", "Cool", "Cold", "Archive"} {
		if strings.EqualFold(raw, tier) {
			return tier, nil
		}
	}
	if raw == "" {
		return "", nil
	}
	return "", azerr.InvalidHeader("x-ms-access-tier", raw)
}

// parseRehydratePriority reads x-ms-rehydrate-priority: Standard when
// absent.
func parseRehydratePriority(h http.Header) (string, error) {
	raw := h.Get("X-Ms-Rehydrate-Priority")
	switch {
	case raw == "":
		return priorityStandard, nil
	case strings.EqualFold(raw, priorityStandard):
		return priorityStandard, nil
	case strings.EqualFold(raw, priorityHigh):
		return priorityHigh, nil
	}
	return "", azerr.InvalidHeader("x-ms-rehydrate-priority", raw)
}

// setBlobTier is Set Blob Tier on the base blob, a snapshot or a version
// of a block blob. An online tier changes at once (200); leaving the
// archive tier starts a rehydration (202) that ends after
// rehydrateDelay. The ETag and Last-Modified do not change. Blob Batch
// runs its set-tier sub-requests through this handler too.
func (s *Service) setBlobTier(w http.ResponseWriter, r *http.Request) error {
	if _, _, ok := blobdata.PremiumTier(r.Header.Get("X-Ms-Access-Tier")); ok {
		return s.setPremiumTier(w, r)
	}
	t := targetOf(r)
	conds, sel, err := parseSelectedRequest(r, cond.IfTags)
	if err != nil {
		return err
	}
	tier, err := parseTier(r.Header)
	if err != nil {
		return err
	}
	if tier == "" {
		return azerr.MissingHeader("x-ms-access-tier")
	}
	priority, err := parseRehydratePriority(r.Header)
	if err != nil {
		return err
	}
	account := request.Of(r).Account
	status := http.StatusOK
	err = s.store.Update(r.Context(), func(tx store.Tx) error {
		if _, found, err := blobdata.LoadContainer(tx, account, t.Container); err != nil || !found {
			return firstErr(err, containerNotFound())
		}
		now := s.now()
		b, key, err := loadTierTarget(tx, account, t, sel, now)
		if err != nil {
			return err
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
		if err := checkSnapshotRehydration(b, sel, tier, now); err != nil {
			return err
		}
		if status, err = changeTier(b, tier, priority, now); err != nil {
			return err
		}
		return tx.Put(key, b.Encode())
	})
	if err != nil {
		return err
	}
	return write(w, status)
}

// loadTierTarget loads the state Set Blob Tier addresses, with its key.
func loadTierTarget(tx store.Tx, account string, t target, sel blobdata.Selector, now time.Time) (*blobdata.Blob, []byte, error) {
	b, err := blobdata.LoadState(tx, account, t.Container, t.Blob, sel, now)
	if err != nil || b == nil {
		return nil, nil, firstErr(err, blobNotFound())
	}
	if b.Type != blobdata.BlockBlob {
		// Page blob tiers (P4..P80) exist only on premium accounts.
		return nil, nil, azerr.Newf(azerr.InvalidBlobType, "Access tiers apply to block blobs only in a standard storage account.")
	}
	return b, blobdata.RecordKey(account, t.Container, t.Blob, b.LoadedFrom), nil
}

// checkSnapshotRehydration refuses bringing an archived snapshot or
// version back online: "rehydrating a blob version or snapshot from the
// archive tier is not supported" (Set Blob Tier; the SDK's recorded
// TestBlockBlobSetTierOnSnapshots and ...OnVersions expect an error). Copy
// it to a new blob instead.
func checkSnapshotRehydration(b *blobdata.Blob, sel blobdata.Selector, tier string, now time.Time) error {
	if sel.Base() || tier == "Archive" {
		return nil
	}
	if current, _, _ := b.TierAt(now); current == "Archive" {
		return azerr.New(azerr.BlobArchived)
	}
	return nil
}

// changeTier applies Set Blob Tier to b and returns the status to answer.
func changeTier(b *blobdata.Blob, tier, priority string, now time.Time) (int, error) {
	if b.CopyPendingAt(now) {
		return 0, azerr.New(azerr.PendingCopyOperation)
	}
	if r := b.Rehydrate; r != nil {
		if now.Before(r.Ends) {
			return rehydrating(r, tier, priority, now)
		}
		// The rehydration is over: settle it before the change.
		b.Tier, b.TierChanged, b.Rehydrate = r.Target, r.Ends, nil
	}
	current, _, _ := b.TierAt(now)
	switch {
	case current == "Archive" && tier != "Archive":
		b.Rehydrate = &blobdata.Rehydration{Target: tier, Priority: priority, Ends: now.Add(rehydrateDelay(priority))}
		return http.StatusAccepted, nil
	case current != tier || b.Tier == "":
		b.Tier, b.TierChanged = tier, now
	}
	return http.StatusOK, nil
}

// rehydrating answers Set Blob Tier during a rehydration: asking again for
// the same tier may raise the priority to High (which shortens it); any
// other change waits until the rehydration ends (409).
func rehydrating(r *blobdata.Rehydration, tier, priority string, now time.Time) (int, error) {
	if tier != r.Target {
		return 0, azerr.New(azerr.BlobBeingRehydrated)
	}
	if priority == priorityHigh && r.Priority != priorityHigh {
		r.Priority = priorityHigh
		if ends := now.Add(rehydrateHigh); ends.Before(r.Ends) {
			r.Ends = ends
		}
	}
	return http.StatusAccepted, nil
}
