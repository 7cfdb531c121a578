package file

import (
	"bytes"
	"context"
	"net/http"
	"strings"
	"time"

	"github.com/lazuli-storage/lazuli/internal/engine/extent"
	"github.com/lazuli-storage/lazuli/internal/engine/store"
	"github.com/lazuli-storage/lazuli/internal/frame/keymove"
	"github.com/lazuli-storage/lazuli/internal/rule/azerr"
	"github.com/lazuli-storage/lazuli/internal/rule/lease"
)

// deleteShare is Delete Share. A share snapshot goes in one Update. A
// share is first checked and marked in one Update, which hides it at once
// (404 for every operation, 409 ShareBeingDeleted for a create); then its
// records are moved to a tombstone when the account keeps deleted shares
// (share_softdelete.go), or removed, in bounded Updates, its own record
// last. A crash part-way leaves a marked share that the next Delete Share
// finishes.
func (s *Service) deleteShare(w http.ResponseWriter, r *http.Request) error {
	t := targetOf(r)
	include := strings.ToLower(strings.TrimSpace(r.Header.Get("X-Ms-Delete-Snapshots")))
	if include != "" && include != "include" && include != "include-leased" {
		return azerr.InvalidHeader("x-ms-delete-snapshots", r.Header.Get("X-Ms-Delete-Snapshots"))
	}
	now := s.now()
	leaseID := r.Header.Get(lease.HeaderID)
	if t.Snapshot != "" {
		err := s.store.Update(r.Context(), func(tx store.Tx) error {
			sh, err := shareFor(tx, t)
			if err != nil {
				return err
			}
			if err := sh.Lease.CheckWrite(leaseID, now, lease.Share); err != nil {
				return err
			}
			return purgeSnapshot(tx, t.Account, t.Share, t.Snapshot, now)
		})
		if err != nil {
			return err
		}
		w.WriteHeader(http.StatusAccepted)
		return nil
	}
	var tombstone string
	err := s.store.Update(r.Context(), func(tx store.Tx) error {
		sh, found, err := loadShare(tx, t.Account, t.Share, "")
		switch {
		case err != nil:
			return err
		case !found || sh.MoveFrom != "":
			return azerr.New(azerr.ShareNotFound)
		case sh.Deleting:
			return nil // being deleted: finish the job below
		case sh.MoveTo != "":
			tombstone = sh.MoveTo // being soft-deleted: finish the move
			return nil
		}
		if err := sh.Lease.CheckWrite(leaseID, now, lease.Share); err != nil {
			return err
		}
		if err := checkSnapshotsDeletable(tx, t, include, now); err != nil {
			return err
		}
		if tombstone, err = s.markSoftDeleted(tx, t.Account, t.Share, sh, now); err != nil || tombstone != "" {
			return err
		}
		sh.Deleting = true
		return saveShare(tx, t.Account, t.Share, "", sh)
	})
	if azerr.Is(err, azerr.ShareNotFound) && s.recentlyDeleted.Recent(t.Account, t.Share, now) {
		w.WriteHeader(http.StatusAccepted) // still "being deleted" on Azure
		return nil
	}
	if err != nil {
		return err
	}
	if tombstone != "" {
		err = s.finishSoftDelete(r.Context(), t.Account, t.Share, tombstone)
	} else {
		err = s.purgeShare(r.Context(), t.Account, t.Share)
	}
	if err != nil {
		return err
	}
	s.recentlyDeleted.Deleted(t.Account, t.Share, now)
	w.WriteHeader(http.StatusAccepted)
	return nil
}

// checkSnapshotsDeletable applies x-ms-delete-snapshots: a share with
// snapshots goes only with "include", and with leased snapshots only with
// "include-leased".
func checkSnapshotsDeletable(tx store.Tx, t *target, include string, now time.Time) error {
	snaps, err := snapshotsOf(tx, t.Account, t.Share)
	if err != nil {
		return err
	}
	if len(snaps) > 0 && include == "" {
		return azerr.New(azerr.ShareHasSnapshots)
	}
	for _, snap := range snaps {
		if st := snap.Lease.State(now); include != "include-leased" && (st == lease.Leased || st == lease.Breaking) {
			return azerr.New(azerr.DeleteShareWhenSnapshotLeased)
		}
	}
	return nil
}

// purgeShare removes every record of the share under key name keyName (a
// live share marked Deleting, or a tombstone whose retention ended), in
// bounded Updates, and its record in the last one. Range records give back
// their extent references as they go.
func (s *Service) purgeShare(ctx context.Context, account, keyName string) error {
	drop := func(tx store.Tx, key, value []byte) error {
		if store.Space(key[0]) != store.SpaceFileIndex {
			return nil
		}
		return unrefRange(tx, key, value, s.now())
	}
	return keymove.Move(ctx, s.store, shareSpans(account, keyName, ""), drop, func(tx store.Tx) error {
		return tx.Delete(shareKey(account, keyName, ""))
	})
}

// unrefRange gives back the extent reference of a range segment record;
// other records of store.SpaceFileIndex (permissions) hold none.
func unrefRange(tx store.Tx, key, value []byte, now time.Time) error {
	r := store.ReadKey(key, store.SpaceFileIndex)
	r.Str()
	r.Str()
	r.Str()
	if r.Str() != kindRanges || r.Err() != nil {
		return nil
	}
	seg, err := decodeSegment(bytes.Clone(key), value)
	if err != nil {
		return err
	}
	return extent.Unref(tx, seg.Extent, now)
}
