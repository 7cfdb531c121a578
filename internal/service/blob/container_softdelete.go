package blob

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/lazuli-storage/lazuli/internal/engine/store"
	"github.com/lazuli-storage/lazuli/internal/frame/request"
	"github.com/lazuli-storage/lazuli/internal/rule/azerr"
	"github.com/lazuli-storage/lazuli/internal/rule/lease"
	"github.com/lazuli-storage/lazuli/internal/service/blobdata"
)

// Container soft delete. Azure turns it on in the management plane
// (containerDeleteRetentionPolicy); Lazuli takes it from the extension
// element <ContainerDeleteRetentionPolicy> of the Blob service properties.
// With it on, Delete Container moves the container's records under a
// tombstone key name (container_move.go) instead of removing them: the
// name is free at once, List Containers with include=deleted shows the
// deleted version, and Restore Container brings it back (under its name,
// which must then be free: 409 ContainerAlreadyExists otherwise) until
// the retention ends. Then the expiry reaper purges it, from an entry of
// the expiry index whose blob name is empty (no blob has an empty name).

// markSoftDeleted starts the soft delete of a live container when the
// account keeps deleted containers, returning the tombstone its records
// move to ("" when soft delete is off). The container is hidden from now.
func (s *Service) markSoftDeleted(tx store.Tx, account, name string, c *blobdata.Container) (string, error) {
	pol, err := blobdata.LoadPolicy(tx, account, s.versioningDefault)
	if err != nil || pol.ContainerRetention == 0 {
		return "", err
	}
	now := s.now()
	c.DeletedAt, c.Purge = now, now.Add(pol.ContainerRetention)
	c.Version = fmt.Sprintf("%016X", uint64(now.UnixNano())/100)
	c.MoveTo = tombstoneName(name, c.Version)
	return c.MoveTo, blobdata.SaveContainer(tx, account, name, c)
}

// finishSoftDelete moves a container's records to its tombstone, then
// moves the record itself and schedules the purge.
func (s *Service) finishSoftDelete(ctx context.Context, account, name, tombstone string) error {
	if err := s.moveRecords(ctx, account, name, tombstone); err != nil {
		return err
	}
	return s.store.Update(ctx, func(tx store.Tx) error {
		c, _, err := blobdata.LoadContainer(tx, account, name)
		if err != nil || c == nil || c.MoveTo != tombstone {
			return err // finished by another request
		}
		c.MoveTo, c.Lease = "", lease.Lease{}
		if err := tx.Delete(blobdata.ContainerKey(account, name)); err != nil {
			return err
		}
		// An unfinished directory delete of the container ends with it.
		if err := blobdata.DropTreeDeletions(tx, account, name); err != nil {
			return err
		}
		if err := tx.Put(blobdata.ExpiryKey(c.Purge, account, tombstone, ""), nil); err != nil {
			return err
		}
		return blobdata.SaveContainer(tx, account, tombstone, c)
	})
}

// restoreContainer is Restore Container: the deleted version named by
// x-ms-deleted-container-name and -version comes back under the request's
// container name.
func (s *Service) restoreContainer(w http.ResponseWriter, r *http.Request) error {
	t := targetOf(r)
	deleted, version := r.Header.Get("X-Ms-Deleted-Container-Name"), r.Header.Get("X-Ms-Deleted-Container-Version")
	switch {
	case deleted == "":
		return azerr.MissingHeader("x-ms-deleted-container-name")
	case version == "":
		return azerr.MissingHeader("x-ms-deleted-container-version")
	}
	if err := validContainerName(t.Container); err != nil {
		return err
	}
	if _, err := containerConditions(r, 0); err != nil {
		return err
	}
	if err := validContainerName(deleted); err != nil {
		return err
	}
	account := request.Of(r).Account
	tombstone := tombstoneName(deleted, version)
	err := s.store.Update(r.Context(), func(tx store.Tx) error {
		dest, _, err := blobdata.LoadContainer(tx, account, t.Container)
		if err != nil {
			return err
		}
		if dest != nil {
			if dest.MoveFrom == tombstone {
				return nil // a restore that stopped part-way: finish it
			}
			return azerr.New(azerr.ContainerAlreadyExists)
		}
		c, _, err := blobdata.LoadContainer(tx, account, tombstone)
		if err != nil {
			return err
		}
		if c == nil || c.Deleting || c.MoveTo != "" || !s.now().Before(c.Purge) {
			return containerNotFound()
		}
		c.MoveTo = t.Container
		if err := blobdata.SaveContainer(tx, account, tombstone, c); err != nil {
			return err
		}
		return blobdata.SaveContainer(tx, account, t.Container, &blobdata.Container{ContainerLife: blobdata.ContainerLife{MoveFrom: tombstone}})
	})
	if err != nil {
		return err
	}
	if err := s.moveRecords(r.Context(), account, tombstone, t.Container); err != nil {
		return err
	}
	var rec *blobdata.Container
	err = s.store.Update(r.Context(), func(tx store.Tx) error {
		c, _, err := blobdata.LoadContainer(tx, account, tombstone)
		if err != nil {
			return err
		}
		if c == nil { // finished by another request
			rec, _, err = blobdata.LoadContainer(tx, account, t.Container)
			if err == nil && rec == nil {
				err = containerNotFound()
			}
			return err
		}
		if err := tx.Delete(blobdata.ExpiryKey(c.Purge, account, tombstone, "")); err != nil {
			return err
		}
		if err := tx.Delete(blobdata.ContainerKey(account, tombstone)); err != nil {
			return err
		}
		c.ContainerLife = blobdata.ContainerLife{}
		rec = c
		return blobdata.SaveContainer(tx, account, t.Container, c)
	})
	if err != nil {
		return err
	}
	setContainerHeaders(w.Header(), rec)
	return write(w, http.StatusCreated)
}

// writeDeletedContainerElements writes what List Containers with
// include=deleted adds for a deleted container: Deleted and Version, and
// the properties DeletedTime and RemainingRetentionDays.
func writeDeletedIdentity(x *xmlWriter, c *blobdata.Container) {
	if c.DeletedAt.IsZero() {
		return
	}
	x.Elem("Deleted", "true")
	x.Elem("Version", c.Version)
}

func writeDeletedProperties(x *xmlWriter, c *blobdata.Container, now time.Time) {
	if c.DeletedAt.IsZero() {
		return
	}
	x.Elem("DeletedTime", httpTime(c.DeletedAt))
	days := int64((c.Purge.Sub(now) + 24*time.Hour - 1) / (24 * time.Hour))
	x.Int("RemainingRetentionDays", days)
}

// listedContainer reports whether a container record found by a listing
// is shown: live ones always, deleted ones with include=deleted until
// their retention ends, others (being deleted or moved) never.
func listedContainer(c *blobdata.Container, includeDeleted bool, now time.Time) bool {
	switch {
	case c.Deleting || c.MoveTo != "" || c.MoveFrom != "":
		return false
	case !c.DeletedAt.IsZero():
		return includeDeleted && now.Before(c.Purge)
	}
	return true
}

// containerItemName is the name a listing shows for a container record's
// key name: a deleted container shows its own name.
func containerItemName(keyName string) string {
	if name, _, ok := splitTombstone(keyName); ok {
		return name
	}
	return keyName
}
