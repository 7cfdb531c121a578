package file

import (
	"context"
	"net/http"
	"time"

	"github.com/lazuli-storage/lazuli/internal/engine/store"
	"github.com/lazuli-storage/lazuli/internal/frame/keymove"
	"github.com/lazuli-storage/lazuli/internal/rule/auth"
	"github.com/lazuli-storage/lazuli/internal/rule/azerr"
	"github.com/lazuli-storage/lazuli/internal/rule/etag"
	"github.com/lazuli-storage/lazuli/internal/rule/lease"
	"github.com/lazuli-storage/lazuli/internal/rule/svcprops"
)

// Share soft delete. The File service properties' ShareDeleteRetentionPolicy
// turns it on. With it on, Delete Share moves the share's records (its
// directories, files, ranges, permissions and snapshots) under a tombstone
// key name (package keymove) instead of removing them: the name is free at
// once, List Shares with include=deleted shows the deleted version, and
// Undelete Share brings it back under its name (which must then be free:
// 409 ShareAlreadyExists otherwise) until the retention ends. Then the
// reaper purges it (share_reaper.go), from its entry in
// store.SpaceShareExpiry.

// shareRetention is how long the account keeps deleted shares; 0 when
// share soft delete is off. It is read in the deletion's own transaction,
// so a delete never races a change of the setting.
func shareRetention(tx store.Tx, account string) (time.Duration, error) {
	p, err := svcprops.Load(tx, account, string(auth.File))
	if err != nil {
		return 0, err
	}
	rp := p.ShareDeleteRetentionPolicy
	if rp == nil || !rp.Enabled || rp.Days == nil {
		return 0, nil
	}
	return time.Duration(*rp.Days) * 24 * time.Hour, nil
}

// markSoftDeleted starts the soft delete of a live share when the account
// keeps deleted shares, returning the tombstone its records move to (""
// when soft delete is off). The share is hidden from now.
func (s *Service) markSoftDeleted(tx store.Tx, account, name string, sh *shareRecord, now time.Time) (string, error) {
	retention, err := shareRetention(tx, account)
	if err != nil || retention == 0 {
		return "", err
	}
	sh.DeletedAt, sh.Purge = now, now.Add(retention)
	sh.Version = deletedVersion(now)
	sh.MoveTo = keymove.Tombstone(name, sh.Version)
	return sh.MoveTo, saveShare(tx, account, name, "", sh)
}

// finishSoftDelete moves a share's records to its tombstone, and in the
// last Update the record itself, scheduling the purge.
func (s *Service) finishSoftDelete(ctx context.Context, account, name, tombstone string) error {
	return keymove.Move(ctx, s.store, shareSpans(account, name, tombstone), nil, func(tx store.Tx) error {
		sh, _, err := loadShare(tx, account, name, "")
		if err != nil || sh == nil || sh.MoveTo != tombstone {
			return err // finished by another request
		}
		sh.MoveTo, sh.Lease = "", lease.Lease{}
		if err := tx.Delete(shareKey(account, name, "")); err != nil {
			return err
		}
		if err := tx.Put(purgeKey(sh.Purge, account, tombstone), nil); err != nil {
			return err
		}
		return saveShare(tx, account, tombstone, "", sh)
	})
}

// restoreShare is Undelete Share (Restore Share): the deleted version named
// by x-ms-deleted-share-name and -version comes back, with its snapshots,
// under the request's share name, with a new ETag.
func (s *Service) restoreShare(w http.ResponseWriter, r *http.Request) error {
	t := targetOf(r)
	if err := readOnlySnapshot(t); err != nil {
		return err
	}
	deleted, version := r.Header.Get("X-Ms-Deleted-Share-Name"), r.Header.Get("X-Ms-Deleted-Share-Version")
	switch {
	case deleted == "":
		return azerr.MissingHeader("x-ms-deleted-share-name")
	case version == "":
		return azerr.MissingHeader("x-ms-deleted-share-version")
	}
	if err := validShareName(deleted); err != nil {
		return err
	}
	tombstone := keymove.Tombstone(deleted, version)
	now := s.now()
	err := s.store.Update(r.Context(), func(tx store.Tx) error {
		dest, found, err := loadShare(tx, t.Account, t.Share, "")
		if err != nil {
			return err
		}
		if found {
			if dest.MoveFrom == tombstone {
				return nil // a restore that stopped part-way: finish it
			}
			return shareExists(dest)
		}
		sh, _, err := loadShare(tx, t.Account, tombstone, "")
		if err != nil {
			return err
		}
		if sh == nil || sh.Deleting || sh.MoveTo != "" || sh.expiredAt(now) {
			return azerr.New(azerr.ShareNotFound)
		}
		sh.MoveTo = t.Share
		if err := saveShare(tx, t.Account, tombstone, "", sh); err != nil {
			return err
		}
		return saveShare(tx, t.Account, t.Share, "", &shareRecord{shareLife: shareLife{MoveFrom: tombstone}})
	})
	if err != nil {
		return err
	}
	var restored *shareRecord
	err = keymove.Move(r.Context(), s.store, shareSpans(t.Account, tombstone, t.Share), nil, func(tx store.Tx) error {
		sh, _, err := loadShare(tx, t.Account, tombstone, "")
		if err != nil {
			return err
		}
		if sh == nil { // finished by another request
			restored, err = shareFor(tx, &target{Account: t.Account, Share: t.Share})
			return err
		}
		if err := tx.Delete(purgeKey(sh.Purge, t.Account, tombstone)); err != nil {
			return err
		}
		if err := tx.Delete(shareKey(t.Account, tombstone, "")); err != nil {
			return err
		}
		sh.shareLife = shareLife{}
		sh.ETag = etag.Next(now, sh.ETag)
		restored = sh
		return saveShare(tx, t.Account, t.Share, "", sh)
	})
	if err != nil {
		return err
	}
	setETag(w.Header(), restored.ETag)
	w.WriteHeader(http.StatusCreated)
	return nil
}

// shareExists is the conflict a share name in use answers: 409
// ShareBeingDeleted while a deletion holds it, ShareAlreadyExists
// otherwise.
func shareExists(sh *shareRecord) error {
	if sh.beingDeleted() {
		return azerr.New(azerr.ShareBeingDeleted)
	}
	return azerr.New(azerr.ShareAlreadyExists)
}

// listedShare reports whether a share record found by List Shares is
// shown: live ones always, deleted ones with include=deleted until their
// retention ends, others (being deleted or moved) never.
func listedShareRecord(sh *shareRecord, includeDeleted bool, now time.Time) bool {
	switch {
	case sh.Deleting || sh.MoveTo != "" || sh.MoveFrom != "":
		return false
	case !sh.DeletedAt.IsZero():
		return includeDeleted && !sh.expiredAt(now)
	}
	return true
}
