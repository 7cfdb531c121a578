package blob

import (
	"time"

	"net/http"

	"github.com/lazuli-storage/lazuli/internal/engine/store"
	"github.com/lazuli-storage/lazuli/internal/frame/request"
	"github.com/lazuli-storage/lazuli/internal/service/blobdata"
)

// undeleteBlob is Undelete Blob: every soft-deleted state of the blob
// whose retention has not ended comes back. The soft-deleted base blob
// becomes the base blob again, or, when the blob was written again since,
// a snapshot; soft-deleted snapshots and versions become live ones.
func (s *Service) undeleteBlob(w http.ResponseWriter, r *http.Request) error {
	t := targetOf(r)
	if _, err := parseBaseRequest(r, 0); err != nil {
		return err
	}
	account := request.Of(r).Account
	err := s.store.Update(r.Context(), func(tx store.Tx) error {
		if _, found, err := blobdata.LoadContainer(tx, account, t.Container); err != nil || !found {
			return firstErr(err, containerNotFound())
		}
		// An expired base blob is gone: what is restored takes its place.
		if _, err := blobdata.LoadBlobForWrite(tx, account, t.Container, t.Blob, s.now()); err != nil {
			return err
		}
		d, err := s.newDeletion(tx, account, t)
		if err != nil {
			return err
		}
		if err := d.purgeExpired(tx); err != nil {
			return err
		}
		if err := d.restore(tx); err != nil {
			return err
		}
		return d.refs.Apply(tx, d.now)
	})
	if err != nil {
		return err
	}
	return write(w, http.StatusOK)
}

// restore brings back the soft-deleted states (expired ones are purged
// already). Without a base blob and with nothing to restore the blob does
// not exist: 404.
func (d *deletion) restore(tx store.Tx) error {
	all, err := d.states(tx)
	if err != nil {
		return err
	}
	var base *blobdata.Blob
	for _, st := range all {
		switch deleted, _ := st.rec.SoftDeleted(d.now); {
		case st.elem == blobdata.ElemBase:
			base = st.rec
		case st.elem == blobdata.ElemDeleted:
			if err := d.restoreBase(tx, st.rec, base); err != nil {
				return err
			}
			if base == nil || !base.Committed {
				base = st.rec
			}
		case deleted:
			st.rec.DeletedAt, st.rec.Purge = time.Time{}, time.Time{}
			if err := tx.Put(d.key(st.elem), st.rec.Encode()); err != nil {
				return err
			}
		}
	}
	if base == nil || !base.Committed {
		return blobNotFound()
	}
	return nil
}

// restoreBase brings back the soft-deleted base blob: as the base blob
// when there is none (a placeholder's uncommitted blocks are kept), else
// as a snapshot taken when it was deleted. The record moves, and its
// extent references with it.
func (d *deletion) restoreBase(tx store.Tx, rec, base *blobdata.Blob) error {
	deletedAt := rec.DeletedAt
	rec.DeletedAt, rec.Purge = time.Time{}, time.Time{}
	if err := tx.Delete(d.key(blobdata.ElemDeleted)); err != nil {
		return err
	}
	if base != nil && base.Committed {
		id, err := blobdata.FreeStamp(tx, d.account, d.container, d.name, blobdata.SnapshotPrefix, deletedAt)
		if err != nil {
			return err
		}
		return tx.Put(d.key(blobdata.SnapshotPrefix+id), rec.Encode())
	}
	if base != nil {
		rec.HasUncommitted, rec.BlockIDLen = base.HasUncommitted, base.BlockIDLen
	}
	if err := blobdata.ReindexTags(tx, d.account, d.container, d.name, base, rec); err != nil {
		return err
	}
	return tx.Put(d.key(blobdata.ElemBase), rec.Encode())
}
