package blobdata

import (
	"strings"
	"time"

	"github.com/lazuli-storage/lazuli/internal/engine/store"
)

// Deletion is one Delete Blob or Undelete Blob in its transaction.
type Deletion struct {
	Account, Container, Name string
	Now                      time.Time
	// DeletedAt is the time soft-deleted states record, Now when zero: a
	// paged directory delete records its first request's (TreeDeletion).
	DeletedAt time.Time
	Policy    Policy
	Refs      RefDelta
	// permanent is set when the delete removed data for good.
	Permanent bool
}

// NewDeletion starts a deletion of the named blob at now under the
// account's data protection policy.
func NewDeletion(tx store.Tx, account, container, name string, now time.Time, versioningDefault bool) (*Deletion, error) {
	pol, err := LoadPolicy(tx, account, versioningDefault)
	if err != nil {
		return nil, err
	}
	return &Deletion{Account: account, Container: container, Name: name, Now: now,
		Policy: pol, Refs: RefDelta{}}, nil
}

// deletedAt is the time the deletion's soft-deleted states record.
func (d *Deletion) deletedAt() time.Time {
	if d.DeletedAt.IsZero() {
		return d.Now
	}
	return d.DeletedAt
}

// Key is the key of one state of the blob.
func (d *Deletion) Key(elem string) []byte {
	return RecordKey(d.Account, d.Container, d.Name, elem)
}

// Retire deletes a snapshot or a previous version as the policy says:
// soft or for good.
func (d *Deletion) Retire(tx store.Tx, elem string, rec *Blob) error {
	if d.Policy.Retention > 0 {
		rec.DeletedAt, rec.Purge = d.deletedAt(), d.deletedAt().Add(d.Policy.Retention)
		return tx.Put(d.Key(elem), rec.Encode())
	}
	return d.Purge(tx, elem, rec)
}

// Purge removes one state of the blob for good, releasing its content.
func (d *Deletion) Purge(tx store.Tx, elem string, rec *Blob) error {
	d.Permanent = true
	return DropState(tx, d.Key(elem), rec, d.Refs)
}

// RetireBase deletes the base blob as the policy says: with versioning it
// becomes a previous version, with soft delete the soft-deleted base, and
// otherwise it goes with its content.
func (d *Deletion) RetireBase(tx store.Tx, base *Blob) error {
	switch {
	case base.VersionID != "" || d.Policy.Versioning:
		// The current version becomes a previous version.
		h := &History{Account: d.Account, Container: d.Container, Name: d.Name, Now: d.Now, Policy: d.Policy}
		if err := h.KeepVersion(tx, base, d.Refs); err != nil {
			return err
		}
	case d.Policy.Retention > 0:
		if err := d.keepDeletedBase(tx, base); err != nil {
			return err
		}
	default:
		d.Permanent = true
	}
	return RemoveBlob(tx, d.Account, d.Container, d.Name, base, d.Refs)
}

// keepDeletedBase stores the base blob as the soft-deleted base. An older
// soft-deleted base (the blob was deleted, written again and deleted
// again) stays restorable as a soft-deleted snapshot.
func (d *Deletion) keepDeletedBase(tx store.Tx, base *Blob) error {
	older, err := LoadRecord(tx, d.Key(ElemDeleted))
	if err != nil {
		return err
	}
	if older != nil {
		id, err := FreeStamp(tx, d.Account, d.Container, d.Name, SnapshotPrefix, older.DeletedAt)
		if err != nil {
			return err
		}
		// The record moves: its references move with it.
		if err := tx.Put(d.Key(SnapshotPrefix+id), older.Encode()); err != nil {
			return err
		}
	}
	v := Frozen(base)
	v.DeletedAt, v.Purge = d.deletedAt(), d.deletedAt().Add(d.Policy.Retention)
	return PutState(tx, d.Key(ElemDeleted), v, d.Refs)
}

// State is one stored state of a blob.
type State struct {
	Elem string
	Rec  *Blob
}

// LiveStates returns the states of the blob with the given element prefix
// that are not soft-deleted.
func (d *Deletion) LiveStates(tx store.Tx, prefix string) ([]State, error) {
	all, err := d.states(tx)
	if err != nil {
		return nil, err
	}
	var live []State
	for _, st := range all {
		if deleted, _ := st.Rec.SoftDeleted(d.Now); !deleted && strings.HasPrefix(st.Elem, prefix) && st.Elem != ElemBase {
			live = append(live, st)
		}
	}
	return live, nil
}

// states returns every stored state of the blob, in key order.
func (d *Deletion) states(tx store.Tx) ([]State, error) {
	start, end := StateKeys(d.Account, d.Container, d.Name)
	var out []State
	var decodeErr error
	err := tx.Scan(start, end, store.ScanOptions{}, func(k, v []byte) bool {
		_, elem, err := BlobNameFromKey(k)
		if err == nil {
			var rec *Blob
			if rec, err = DecodeBlob(v); err == nil {
				out = append(out, State{elem, rec})
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

// PurgeExpired removes the soft-deleted states whose retention has ended,
// releasing their content. It runs whenever a delete or undelete touches
// the blob; listings and reads skip expired states in the meantime.
func (d *Deletion) PurgeExpired(tx store.Tx) error {
	all, err := d.states(tx)
	if err != nil {
		return err
	}
	for _, st := range all {
		if _, expired := st.Rec.SoftDeleted(d.Now); expired {
			if err := DropState(tx, d.Key(st.Elem), st.Rec, d.Refs); err != nil {
				return err
			}
		}
	}
	return nil
}

// Restore brings back the soft-deleted states (expired ones are purged
// already). restored is false when there is neither a base blob nor
// anything to restore: the blob does not exist.
func (d *Deletion) Restore(tx store.Tx) (restored bool, err error) {
	all, err := d.states(tx)
	if err != nil {
		return false, err
	}
	var base *Blob
	for _, st := range all {
		switch deleted, _ := st.Rec.SoftDeleted(d.Now); {
		case st.Elem == ElemBase:
			base = st.Rec
		case st.Elem == ElemDeleted:
			if err := d.restoreBase(tx, st.Rec, base); err != nil {
				return false, err
			}
			if base == nil || !base.Committed {
				base = st.Rec
			}
		case deleted:
			st.Rec.DeletedAt, st.Rec.Purge = time.Time{}, time.Time{}
			if err := tx.Put(d.Key(st.Elem), st.Rec.Encode()); err != nil {
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
func (d *Deletion) restoreBase(tx store.Tx, rec, base *Blob) error {
	deletedAt := rec.DeletedAt
	rec.DeletedAt, rec.Purge = time.Time{}, time.Time{}
	if err := tx.Delete(d.Key(ElemDeleted)); err != nil {
		return err
	}
	if base != nil && base.Committed {
		id, err := FreeStamp(tx, d.Account, d.Container, d.Name, SnapshotPrefix, deletedAt)
		if err != nil {
			return err
		}
		return tx.Put(d.Key(SnapshotPrefix+id), rec.Encode())
	}
	if base != nil {
		rec.HasUncommitted, rec.BlockIDLen = base.HasUncommitted, base.BlockIDLen
	}
	if err := ReindexTags(tx, d.Account, d.Container, d.Name, base, rec); err != nil {
		return err
	}
	return tx.Put(d.Key(ElemBase), rec.Encode())
}
