package blob

import (
	"context"
	"net/http"

	"github.com/lazuli-storage/lazuli/internal/engine/store"
	"github.com/lazuli-storage/lazuli/internal/frame/request"
	"github.com/lazuli-storage/lazuli/internal/rule/azerr"
	"github.com/lazuli-storage/lazuli/internal/rule/cond"
	"github.com/lazuli-storage/lazuli/internal/rule/lease"
	"github.com/lazuli-storage/lazuli/internal/service/blobdata"
)

// purgeBatch bounds the blobs one Update of a container deletion removes.
const purgeBatch = 256

// deleteContainer is Delete Container. The first Update checks the lease
// and conditions and marks the container as being deleted, which hides it
// at once (404 for every operation, 409 ContainerBeingDeleted for a
// create); its blobs are then removed in bounded Updates and the record
// last. A crash part-way leaves a marked container that the next Delete
// Container finishes.
func (s *Service) deleteContainer(w http.ResponseWriter, r *http.Request) error {
	t := targetOf(r)
	if err := validContainerName(t.Container); err != nil {
		return err
	}
	conds, err := containerConditions(r, cond.IfModifiedSince|cond.IfUnmodifiedSince)
	if err != nil {
		return err
	}
	account := request.Of(r).Account
	var tombstone string
	err = s.store.Update(r.Context(), func(tx store.Tx) error {
		c, found, err := blobdata.LoadContainer(tx, account, t.Container)
		if err != nil {
			return err
		}
		switch {
		case c == nil:
			return containerNotFound()
		case c.Deleting:
			return nil // being deleted: finish the job below
		case c.MoveTo != "" && !indexedName(c.MoveTo):
			tombstone = c.MoveTo // being soft-deleted: finish the move
			return nil
		case !found:
			return containerNotFound()
		}
		if err := c.Lease.CheckWrite(leaseID(r), s.now(), lease.Container); err != nil {
			return err
		}
		if err := conds.CheckWrite(c.Resource()); err != nil {
			return err
		}
		if err := checkNothingProtected(tx, account, t.Container, s.now()); err != nil {
			return err
		}
		if tombstone, err = s.markSoftDeleted(tx, account, t.Container, c); err != nil || tombstone != "" {
			return err
		}
		c.Deleting = true
		return blobdata.SaveContainer(tx, account, t.Container, c)
	})
	if azerr.Is(err, azerr.ContainerNotFound) && s.recentlyDeleted.Recent(account, t.Container, s.now()) {
		return write(w, http.StatusAccepted) // still "being deleted" on Azure
	}
	if err != nil {
		return err
	}
	if tombstone != "" {
		err = s.finishSoftDelete(r.Context(), account, t.Container, tombstone)
	} else {
		err = s.purgeContainer(r.Context(), account, t.Container)
	}
	if err != nil {
		return err
	}
	s.recentlyDeleted.Deleted(account, t.Container, s.now())
	return write(w, http.StatusAccepted)
}

// purgeContainer removes a marked container's blobs, then its record.
func (s *Service) purgeContainer(ctx context.Context, account, container string) error {
	if err := s.dropProtectedNames(ctx, account, container); err != nil {
		return err
	}
	prefix := blobdata.BlobPrefix(account, container)
	for {
		done := false
		err := s.store.Update(ctx, func(tx store.Tx) error {
			type victim struct {
				name, elem string
				rec        *blobdata.Blob
			}
			var victims []victim
			var decodeErr error
			err := tx.Scan(prefix, store.PrefixEnd(prefix), store.ScanOptions{Limit: purgeBatch}, func(k, v []byte) bool {
				name, elem, err := blobdata.BlobNameFromKey(k)
				if err == nil {
					var b *blobdata.Blob
					b, err = blobdata.DecodeBlob(v)
					victims = append(victims, victim{name, elem, b})
				}
				decodeErr = err
				return err == nil
			})
			if err = firstErr(err, decodeErr); err != nil {
				return err
			}
			d := blobdata.RefDelta{}
			for _, v := range victims {
				var err error
				if v.elem == blobdata.ElemBase {
					err = blobdata.RemoveBlob(tx, account, container, v.name, v.rec, d)
				} else {
					// A snapshot, version or soft-deleted state.
					err = blobdata.DropState(tx, blobdata.RecordKey(account, container, v.name, v.elem), v.rec, d)
				}
				if err != nil {
					return err
				}
			}
			if err := d.Apply(tx, s.now()); err != nil {
				return err
			}
			done = len(victims) < purgeBatch
			if done {
				if err := blobdata.DropTreeDeletions(tx, account, container); err != nil {
					return err
				}
				return tx.Delete(blobdata.ContainerKey(account, container))
			}
			return nil
		})
		if err != nil || done {
			return err
		}
	}
}
