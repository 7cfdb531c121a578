package blob

import (
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
		d, err := blobdata.NewDeletion(tx, account, t.Container, t.Blob, s.now(), s.versioningDefault)
		if err != nil {
			return err
		}
		if err := d.PurgeExpired(tx); err != nil {
			return err
		}
		restored, err := d.Restore(tx)
		if err != nil {
			return err
		}
		if !restored {
			return blobNotFound()
		}
		return d.Refs.Apply(tx, d.Now)
	})
	if err != nil {
		return err
	}
	return write(w, http.StatusOK)
}
