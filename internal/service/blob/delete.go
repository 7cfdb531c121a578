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
	conds cond.Conditions
	tier  cond.TierConditions
	sel   blobdata.Selector
	// snapshots is x-ms-delete-snapshots: "", "include" or "only".
	snapshots string
	// permanent is deletetype=permanent: remove a soft-deleted snapshot or
	// version for good.
	permanent bool
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
	t := targetOf(r)
	account := request.Of(r).Account
	var permanent bool
	err = s.store.Update(r.Context(), func(tx store.Tx) error {
		if _, found, err := blobdata.LoadContainer(tx, account, t.Container); err != nil || !found {
			return firstErr(err, containerNotFound())
		}
		d, err := s.newDeletion(tx, account, t)
		if err != nil {
			return err
		}
		if err := d.purgeExpired(tx); err != nil {
			return err
		}
		if err := d.run(tx, r, a); err != nil {
			return err
		}
		permanent = d.permanent
		return d.refs.Apply(tx, d.now)
	})
	if err != nil {
		return err
	}
	w.Header().Set("X-Ms-Delete-Type-Permanent", boolText(permanent))
	return write(w, http.StatusAccepted)
}

// deletion is one Delete Blob or Undelete Blob in its transaction.
type deletion struct {
	account, container, name string
	now                      time.Time
	policy                   blobdata.Policy
	refs                     blobdata.RefDelta
	// permanent is set when the delete removed data for good.
	permanent bool
}

func (s *Service) newDeletion(tx store.Tx, account string, t target) (*deletion, error) {
	pol, err := blobdata.LoadPolicy(tx, account, s.versioningDefault)
	if err != nil {
		return nil, err
	}
	return &deletion{account: account, container: t.Container, name: t.Blob, now: s.now(),
		policy: pol, refs: blobdata.RefDelta{}}, nil
}

func (d *deletion) key(elem string) []byte {
	return blobdata.RecordKey(d.account, d.container, d.name, elem)
}

// run deletes the state a addresses.
func (d *deletion) run(tx store.Tx, r *http.Request, a deleteArgs) error {
	switch {
	case a.sel.Snapshot != "":
		return d.deleteState(tx, r, a, blobdata.SnapshotPrefix+a.sel.Snapshot)
	case a.sel.Version != "":
		base, err := blobdata.LoadBlobForWrite(tx, d.account, d.container, d.name, d.now)
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
		return d.deleteState(tx, r, a, blobdata.VersionPrefix+a.sel.Version)
	}
	base, err := blobdata.LoadBlobForWrite(tx, d.account, d.container, d.name, d.now)
	if err != nil {
		return err
	}
	if base == nil || !base.Committed {
		return blobNotFound()
	}
	return d.deleteBase(tx, r, a, base)
}

// deleteState deletes one snapshot or previous version: soft-deleted when
// soft delete is on, else removed; deletetype=permanent removes a
// soft-deleted one.
func (d *deletion) deleteState(tx store.Tx, r *http.Request, a deleteArgs, elem string) error {
	key := d.key(elem)
	rec, err := blobdata.LoadRecord(tx, key)
	if err != nil {
		return err
	}
	if rec == nil {
		return blobNotFound()
	}
	deleted, _ := rec.SoftDeleted(d.now)
	switch {
	case a.permanent && !d.policy.PermanentDelete:
		return azerr.Newf(azerr.FeatureNotEnabled, "Permanent delete is not enabled in the delete retention policy of this account.")
	case a.permanent:
		d.permanent = true
		return blobdata.DropState(tx, key, rec, d.refs)
	case deleted:
		return blobNotFound()
	}
	if err := checkDeleteConditions(a, rec, d.now); err != nil {
		return err
	}
	if err := rec.Lease.CheckWrite(leaseID(r), d.now, lease.Blob); err != nil {
		return err
	}
	if err := rec.Protection(d.now); err != nil {
		return err
	}
	if d.policy.Retention > 0 {
		rec.DeletedAt, rec.Purge = d.now, d.now.Add(d.policy.Retention)
		return tx.Put(key, rec.Encode())
	}
	d.permanent = true
	return blobdata.DropState(tx, key, rec, d.refs)
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
func (d *deletion) deleteBase(tx store.Tx, r *http.Request, a deleteArgs, base *blobdata.Blob) error {
	if err := checkDeleteConditions(a, base, d.now); err != nil {
		return err
	}
	if err := base.Lease.CheckWrite(leaseID(r), d.now, lease.Blob); err != nil {
		return err
	}
	snaps, err := d.liveStates(tx, blobdata.SnapshotPrefix)
	if err != nil {
		return err
	}
	if len(snaps) > 0 && a.snapshots == "" {
		return azerr.New(azerr.SnapshotsPresent)
	}
	if a.snapshots != "only" {
		if err := base.Protection(d.now); err != nil {
			return err
		}
	}
	for _, sn := range snaps {
		if err := sn.rec.Protection(d.now); err != nil {
			return err
		}
		if err := d.retire(tx, sn.elem, sn.rec); err != nil {
			return err
		}
	}
	if a.snapshots == "only" {
		return nil
	}
	switch {
	case base.VersionID != "" || d.policy.Versioning:
		// The current version becomes a previous version.
		h := &blobdata.History{Account: d.account, Container: d.container, Name: d.name, Now: d.now, Policy: d.policy}
		if err := h.KeepVersion(tx, base, d.refs); err != nil {
			return err
		}
	case d.policy.Retention > 0:
		if err := d.keepDeletedBase(tx, base); err != nil {
			return err
		}
	default:
		d.permanent = true
	}
	return blobdata.RemoveBlob(tx, d.account, d.container, d.name, base, d.refs)
}

// retire deletes a snapshot as the policy says: soft or for good.
func (d *deletion) retire(tx store.Tx, elem string, rec *blobdata.Blob) error {
	if d.policy.Retention > 0 {
		rec.DeletedAt, rec.Purge = d.now, d.now.Add(d.policy.Retention)
		return tx.Put(d.key(elem), rec.Encode())
	}
	d.permanent = true
	return blobdata.DropState(tx, d.key(elem), rec, d.refs)
}

// keepDeletedBase stores the base blob as the soft-deleted base. An older
// soft-deleted base (the blob was deleted, written again and deleted
// again) stays restorable as a soft-deleted snapshot.
func (d *deletion) keepDeletedBase(tx store.Tx, base *blobdata.Blob) error {
	older, err := blobdata.LoadRecord(tx, d.key(blobdata.ElemDeleted))
	if err != nil {
		return err
	}
	if older != nil {
		id, err := blobdata.FreeStamp(tx, d.account, d.container, d.name, blobdata.SnapshotPrefix, older.DeletedAt)
		if err != nil {
			return err
		}
		// The record moves: its references move with it.
		if err := tx.Put(d.key(blobdata.SnapshotPrefix+id), older.Encode()); err != nil {
			return err
		}
	}
	v := blobdata.Frozen(base)
	v.DeletedAt, v.Purge = d.now, d.now.Add(d.policy.Retention)
	return blobdata.PutState(tx, d.key(blobdata.ElemDeleted), v, d.refs)
}

// state is one stored state of a blob.
type state struct {
	elem string
	rec  *blobdata.Blob
}

// liveStates returns the states of the blob with the given element prefix
// that are not soft-deleted.
func (d *deletion) liveStates(tx store.Tx, prefix string) ([]state, error) {
	all, err := d.states(tx)
	if err != nil {
		return nil, err
	}
	var live []state
	for _, st := range all {
		if deleted, _ := st.rec.SoftDeleted(d.now); !deleted && strings.HasPrefix(st.elem, prefix) && st.elem != blobdata.ElemBase {
			live = append(live, st)
		}
	}
	return live, nil
}

// states returns every stored state of the blob, in key order.
func (d *deletion) states(tx store.Tx) ([]state, error) {
	start, end := blobdata.StateKeys(d.account, d.container, d.name)
	var out []state
	var decodeErr error
	err := tx.Scan(start, end, store.ScanOptions{}, func(k, v []byte) bool {
		_, elem, err := blobdata.BlobNameFromKey(k)
		if err == nil {
			var rec *blobdata.Blob
			if rec, err = blobdata.DecodeBlob(v); err == nil {
				out = append(out, state{elem, rec})
			}
		}
		decodeErr = err
		return err == nil
	})
	return out, firstErr(err, decodeErr)
}

// purgeExpired removes the soft-deleted states whose retention has ended,
// releasing their content. It runs whenever a delete or undelete touches
// the blob; listings and reads skip expired states in the meantime.
func (d *deletion) purgeExpired(tx store.Tx) error {
	all, err := d.states(tx)
	if err != nil {
		return err
	}
	for _, st := range all {
		if _, expired := st.rec.SoftDeleted(d.now); expired {
			if err := blobdata.DropState(tx, d.key(st.elem), st.rec, d.refs); err != nil {
				return err
			}
		}
	}
	return nil
}
