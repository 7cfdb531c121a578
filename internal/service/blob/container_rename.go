package blob

import (
	"net/http"

	"github.com/lazuli-storage/lazuli/internal/engine/store"
	"github.com/lazuli-storage/lazuli/internal/frame/request"
	"github.com/lazuli-storage/lazuli/internal/rule/azerr"
	"github.com/lazuli-storage/lazuli/internal/rule/lease"
	"github.com/lazuli-storage/lazuli/internal/service/blobdata"
)

// renameContainer is Rename Container: the container named by
// x-ms-source-container-name takes the request's container name, with its
// blobs, metadata, ACL and lease. The destination must not exist (409
// ContainerAlreadyExists); a leased source needs its lease ID in
// x-ms-source-lease-id. The records move in bounded batches
// (container_move.go); both names are hidden until the move ends.
func (s *Service) renameContainer(w http.ResponseWriter, r *http.Request) error {
	t := targetOf(r)
	if err := validContainerName(t.Container); err != nil {
		return err
	}
	if _, err := containerConditions(r, 0); err != nil {
		return err
	}
	source := r.Header.Get("X-Ms-Source-Container-Name")
	if source == "" {
		return azerr.MissingHeader("x-ms-source-container-name")
	}
	if err := validContainerName(source); err != nil {
		return err
	}
	account := request.Of(r).Account
	err := s.store.Update(r.Context(), func(tx store.Tx) error {
		dest, _, err := blobdata.LoadContainer(tx, account, t.Container)
		if err != nil {
			return err
		}
		if dest != nil {
			if dest.MoveFrom == source {
				return nil // a rename that stopped part-way: finish it
			}
			return azerr.New(azerr.ContainerAlreadyExists)
		}
		c, found, err := blobdata.LoadContainer(tx, account, source)
		if err != nil || !found {
			return firstErr(err, containerNotFound())
		}
		if err := c.Lease.CheckWrite(r.Header.Get("X-Ms-Source-Lease-Id"), s.now(), lease.Container); err != nil {
			return err
		}
		c.MoveTo = t.Container
		if err := blobdata.SaveContainer(tx, account, source, c); err != nil {
			return err
		}
		return blobdata.SaveContainer(tx, account, t.Container, &blobdata.Container{ContainerLife: blobdata.ContainerLife{MoveFrom: source}})
	})
	if err != nil {
		return err
	}
	if err := s.moveRecords(r.Context(), account, source, t.Container); err != nil {
		return err
	}
	err = s.store.Update(r.Context(), func(tx store.Tx) error {
		c, _, err := blobdata.LoadContainer(tx, account, source)
		if err != nil || c == nil || c.MoveTo != t.Container {
			return err // finished by another request
		}
		if err := tx.Delete(blobdata.ContainerKey(account, source)); err != nil {
			return err
		}
		c.MoveTo = ""
		return blobdata.SaveContainer(tx, account, t.Container, c)
	})
	if err != nil {
		return err
	}
	return write(w, http.StatusOK)
}
