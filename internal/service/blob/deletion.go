package blob

import (
	"strings"
	"time"

	"github.com/lazuli-storage/lazuli/internal/engine/store"
	"github.com/lazuli-storage/lazuli/internal/service/blobdata"
)

// deletion is one Delete Blob or Undelete Blob in its transaction.
type deletion struct {
	account, container, name string
	now                      time.Time
	policy                   blobdata.Policy
	refs                     blobdata.RefDelta
	// permanent is set when the delete removed data for good.
	permanent bool
}

// newDeletion starts a deletion of the named blob at now under the
// account's data protection policy.
func newDeletion(tx store.Tx, account, container, name string, now time.Time, versioningDefault bool) (*deletion, error) {
	pol, err := blobdata.LoadPolicy(tx, account, versioningDefault)
	if err != nil {
		return nil, err
	}
	return &deletion{account: account, container: container, name: name, now: now,
		policy: pol, refs: blobdata.RefDelta{}}, nil
}

// key is the key of one state of the blob.
func (d *deletion) key(elem string) []byte {
	return blobdata.RecordKey(d.account, d.container, d.name, elem)
}

// retire deletes a snapshot as the policy says: soft or for good.
func (d *deletion) retire(tx store.Tx, elem string, rec *blobdata.Blob) error {
	if d.policy.Retention > 0 {
		rec.DeletedAt, rec.Purge = d.now, d.now.Add(d.policy.Retention)
		return tx.Put(d.key(elem), rec.Encode())
	}
	return d.purge(tx, elem, rec)
}

// purge removes one state of the blob for good, releasing its content.
func (d *deletion) purge(tx store.Tx, elem string, rec *blobdata.Blob) error {
	d.permanent = true
	return blobdata.DropState(tx, d.key(elem), rec, d.refs)
}

// retireBase deletes the base blob as the policy says: with versioning it
// becomes a previous version, with soft delete the soft-deleted base, and
// otherwise it goes with its content.
func (d *deletion) retireBase(tx store.Tx, base *blobdata.Blob) error {
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
	if err != nil {
		return nil, err
	}
	return out, decodeErr
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

// restore brings back the soft-deleted states (expired ones are purged
// already). restored is false when there is neither a base blob nor
// anything to restore: the blob does not exist.
func (d *deletion) restore(tx store.Tx) (restored bool, err error) {
	all, err := d.states(tx)
	if err != nil {
		return false, err
	}
	var base *blobdata.Blob
	for _, st := range all {
		switch deleted, _ := st.rec.SoftDeleted(d.now); {
		case st.elem == blobdata.ElemBase:
			base = st.rec
		case st.elem == blobdata.ElemDeleted:
			if err := d.restoreBase(tx, st.rec, base); err != nil {
				return false, err
			}
			if base == nil || !base.Committed {
				base = st.rec
			}
		case deleted:
			st.rec.DeletedAt, st.rec.Purge = time.Time{}, time.Time{}
			if err := tx.Put(d.key(st.elem), st.rec.Encode()); err != nil {
				return false, err
			}
		}
	}
	return base != nil && base.Committed, nil
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
