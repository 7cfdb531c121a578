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

// deleteArgs is a parsed Delete Blob request.
type deleteArgs struct {
	conds conditions
	tier  cond.TierConditions
	sel   blobdata.Selector
	// snapshots is x-ms-delete-snapshots: "", "include" or "only".
	snapshots string
	// permanent is deletetype=permanent: remove a soft-deleted snapshot or
	// version for good.
	permanent bool
	// hns is set when the account has a hierarchical namespace (hns.go).
	hns bool
}

func parseDelete(r *http.Request) (deleteArgs, error) {
	var a deleteArgs
	var err error
	if a.conds, a.sel, err = parseSelectedRequest(r, cond.AllConditions); err != nil {
		return a, err
	}
	if a.tier, err = cond.ParseTier(r.Header); err != nil {
		return a, err
	}
	switch a.snapshots = r.Header.Get("X-Ms-Delete-Snapshots"); a.snapshots {
	case "", "include", "only":
	default:
		return a, azerr.InvalidHeader("x-ms-delete-snapshots", a.snapshots)
	}
	if a.snapshots != "" && !a.sel.Base() {
		// A snapshot or version has no snapshots of its own.
		return a, azerr.InvalidHeader("x-ms-delete-snapshots", a.snapshots)
	}
	raw := r.URL.Query().Get("deletetype")
	switch v := strings.ToLower(raw); {
	case v == "" || v == "none":
	case v == "permanent" && !a.sel.Base():
		a.permanent = true
	default:
		return a, azerr.InvalidQuery("deletetype", raw, "Only a snapshot or a version can be deleted permanently.")
	}
	return a, nil
}

// deleteBlob is Delete Blob: of the base blob (with or without its
// snapshots), of one snapshot, or of one version. What a delete keeps
// follows the service properties: with versioning the base blob becomes a
// previous version, with soft delete the deleted states stay restorable
// until the retention ends, and otherwise they go with their content.
func (s *Service) deleteBlob(w http.ResponseWriter, r *http.Request) error {
	a, err := parseDelete(r)
	if err != nil {
		return err
	}
	a.hns = s.isHNS(r)
	t := targetOf(r)
	account := request.Of(r).Account
	var permanent bool
	err = s.store.Update(r.Context(), func(tx store.Tx) error {
		if _, found, err := blobdata.LoadContainer(tx, account, t.Container); err != nil || !found {
			return firstErr(err, containerNotFound())
		}
		d, err := blobdata.NewDeletion(tx, account, t.Container, t.Blob, s.now(), s.versioningDefault)
		if err != nil {
			return err
		}
		if err := d.PurgeExpired(tx); err != nil {
			return err
		}
		if err := runDelete(tx, d, r, a); err != nil {
			return err
		}
		permanent = d.Permanent
		return d.Refs.Apply(tx, d.Now)
	})
	if err != nil {
		return err
	}
	w.Header().Set("X-Ms-Delete-Type-Permanent", boolText(permanent))
	return write(w, http.StatusAccepted)
}

// run deletes the state a addresses.
func runDelete(tx store.Tx, d *blobdata.Deletion, r *http.Request, a deleteArgs) error {
	switch {
	case a.sel.Snapshot != "":
		return deleteState(tx, d, r, a, blobdata.SnapshotPrefix+a.sel.Snapshot)
	case a.sel.Version != "":
		base, err := blobdata.LoadBlobForWrite(tx, d.Account, d.Container, d.Name, d.Now)
		if err != nil {
			return err
		}
		if base != nil && base.Committed && base.VersionID == a.sel.Version {
			// The current version is the root blob, which its version id
			// does not delete: 403 OperationNotAllowedOnRootBlob
			// (azure-sdk-for-js's recorded "deleting root blob with
			// versionid should fail", recordings/node/blob_versioning).
			return azerr.New(azerr.OperationNotAllowedOnRootBlob)
		}
		return deleteState(tx, d, r, a, blobdata.VersionPrefix+a.sel.Version)
	}
	base, err := blobdata.LoadBlobForWrite(tx, d.Account, d.Container, d.Name, d.Now)
	if err != nil {
		return err
	}
	switch {
	case base == nil:
		return blobNotFound()
	case !base.Committed:
		return deleteStaged(tx, d, base)
	}
	if err := checkDirectoryDelete(tx, d, a, base); err != nil {
		return err
	}
	return deleteBase(tx, d, r, a, base)
}

// deleteStaged deletes a blob that has only staged blocks: its blocks go
// for good, there being no content to keep. The service does so
// (Azure/azure-storage-node#350: Put Block, Delete Blob, then Get Block
// List finds no blob), and it is how the Storage team says staged blocks
// are cleared (Azure/azure-sdk-for-cpp#3911).
func deleteStaged(tx store.Tx, d *blobdata.Deletion, base *blobdata.Blob) error {
	d.Permanent = true
	return blobdata.RemoveBlob(tx, d.Account, d.Container, d.Name, base, d.Refs)
}

// deleteState deletes one snapshot or previous version: soft-deleted when
// soft delete is on, else removed; deletetype=permanent removes a
// soft-deleted one.
func deleteState(tx store.Tx, d *blobdata.Deletion, r *http.Request, a deleteArgs, elem string) error {
	rec, err := blobdata.LoadRecord(tx, d.Key(elem))
	if err != nil {
		return err
	}
	if rec == nil {
		return blobNotFound()
	}
	deleted, _ := rec.SoftDeleted(d.Now)
	switch {
	case a.permanent && !d.Policy.PermanentDelete:
		return azerr.Newf(azerr.FeatureNotEnabled, "Permanent delete is not enabled in the delete retention policy of this account.")
	case a.permanent:
		return d.Purge(tx, elem, rec)
	case deleted:
		return blobNotFound()
	}
	if err := checkDeleteConditions(a, rec, d.Now); err != nil {
		return err
	}
	if err := rec.Lease.CheckWrite(leaseID(r), d.Now, lease.Blob); err != nil {
		return err
	}
	if err := rec.Protection(d.Now); err != nil {
		return err
	}
	return d.Retire(tx, elem, rec)
}

// checkDeleteConditions evaluates a delete's conditional headers and its
// access tier conditions against the state it deletes. A tier never set
// explicitly has been the blob's since it was created.
func checkDeleteConditions(a deleteArgs, rec *blobdata.Blob, now time.Time) error {
	if err := checkWriteConditions(a.conds, rec); err != nil {
		return err
	}
	changed := rec.TierChangedAt(now)
	if changed.IsZero() {
		changed = rec.Created
	}
	return a.tier.Check(changed)
}

// deleteBase deletes the base blob, its snapshots, or both.
func deleteBase(tx store.Tx, d *blobdata.Deletion, r *http.Request, a deleteArgs, base *blobdata.Blob) error {
	if err := checkDeleteConditions(a, base, d.Now); err != nil {
		return err
	}
	if err := base.Lease.CheckWrite(leaseID(r), d.Now, lease.Blob); err != nil {
		return err
	}
	snaps, err := d.LiveStates(tx, blobdata.SnapshotPrefix)
	if err != nil {
		return err
	}
	if len(snaps) > 0 && a.snapshots == "" {
		return azerr.New(azerr.SnapshotsPresent)
	}
	if a.snapshots != "only" {
		if err := base.Protection(d.Now); err != nil {
			return err
		}
	}
	for _, sn := range snaps {
		if err := sn.Rec.Protection(d.Now); err != nil {
			return err
		}
		if err := d.Retire(tx, sn.Elem, sn.Rec); err != nil {
			return err
		}
	}
	if a.snapshots == "only" {
		return nil
	}
	return d.RetireBase(tx, base)
}
