package blobdata

import (
	"bytes"
	"errors"
	"time"

	"github.com/lazuli-storage/lazuli/internal/base/record"
	"github.com/lazuli-storage/lazuli/internal/engine/store"
	"github.com/lazuli-storage/lazuli/internal/rule/lease"
)

// TreeDeletion is Path - Delete of a directory with recursive=true: every
// blob under the directory, then the directory, each deleted as Delete
// Blob deletes a base blob with its snapshots (Deletion.RetireBase: a
// previous version or a soft-deleted copy when the account's policy
// keeps one, else gone with its content).
//
// A directory may hold more than one transaction should carry, so Run
// deletes at most Limit blobs and says where the next call goes on, as
// the service pages a large delete with x-ms-continuation ("Path -
// Delete": continuation).
type TreeDeletion struct {
	Account, Container, Dir string
	Now                     time.Time
	Policy                  Policy
	Refs                    RefDelta
	// Limit is the most blobs one Run deletes (at least 1).
	Limit int
	// LeaseID is the request's lease ID, for the directory's own lease.
	LeaseID string
	// Alone deletes the named blob only, whatever is named under it (a
	// flat namespace has no directories; its "directory" is one blob).
	Alone bool
	// DeletedAt is the time Run records the deletion at: the first
	// request's, for every request of a paged delete (treeDeletionKey).
	DeletedAt time.Time
}

// treeDeletionFamily keys, in store.SpaceBlobIndex, the start of a
// directory delete still under way over several requests:
//
//	(account, "dd", container, directory) -> the first request's time
//
// Every path a paged delete retires is recorded as deleted at that one
// time, so that the deletion has one ID (DeletionID of the time) and Path -
// Undelete of the directory brings back what every request of it took,
// not only the last one's. The key is the server's, not the client's
// continuation, so a caller cannot choose the time and with it how long a
// soft deletion is kept.
const treeDeletionFamily = "dd"

func treeDeletionKey(account, container, dir string) []byte {
	return store.NewKey(store.SpaceBlobIndex).Str(account).Str(treeDeletionFamily).Str(container).Str(dir).Bytes()
}

// DropTreeDeletions removes the starts of the container's unfinished
// directory deletes (treeDeletionFamily), for a container going for good.
func DropTreeDeletions(tx store.Tx, account, container string) error {
	return store.DeletePrefix(tx, store.NewKey(store.SpaceBlobIndex).Str(account).Str(treeDeletionFamily).Str(container))
}

// startTime sets DeletedAt: now for a delete's first request (after is
// ""), else the time its first request recorded, now when none is (a
// delete whose earlier requests ran before that time was kept).
func (t *TreeDeletion) startTime(tx store.Tx, after string) error {
	t.DeletedAt = t.Now
	if after == "" || t.Alone {
		return nil
	}
	v, err := tx.Get(treeDeletionKey(t.Account, t.Container, t.Dir))
	switch {
	case errors.Is(err, store.ErrNotFound):
		return nil
	case err != nil:
		return err
	}
	d := record.NewDecoder(v)
	if at := d.Time(); d.Err() == nil && !at.After(t.Now) {
		t.DeletedAt = at
	}
	return nil
}

// keepStartTime records DeletedAt for the next request of an unfinished
// soft delete, and drops it once the delete is done.
func (t *TreeDeletion) keepStartTime(tx store.Tx, done bool) error {
	key := treeDeletionKey(t.Account, t.Container, t.Dir)
	switch {
	case t.Alone:
		return nil
	case done:
		return tx.Delete(key)
	case t.Policy.Retention > 0:
		var e record.Encoder
		e.Time(t.DeletedAt)
		return tx.Put(key, e.Bytes())
	}
	return nil
}

// namedRecords are the records of one blob name, in key order.
type namedRecords struct {
	name string
	recs []treeRecord
}

// Run deletes up to Limit blobs under the directory whose names sort
// after after ("" to start), and the directory itself once none is left
// (done). next is the after of the following call. A blob with an active
// lease stops the delete (412 LeaseIdMissing), as does an immutability
// policy or legal hold (Protection), with nothing of this call deleted.
func (t *TreeDeletion) Run(tx store.Tx, after string) (next string, done bool, err error) {
	if err := t.startTime(tx, after); err != nil {
		return "", false, err
	}
	if next, done, err = t.run(tx, after); err != nil {
		return "", false, err
	}
	return next, done, t.keepStartTime(tx, done)
}

func (t *TreeDeletion) run(tx store.Tx, after string) (next string, done bool, err error) {
	var page []namedRecords
	var more bool
	if !t.Alone {
		if page, more, err = t.page(tx, after); err != nil {
			return "", false, err
		}
	}
	for _, n := range page {
		if err := t.remove(tx, n, ""); err != nil {
			return "", false, err
		}
		next = n.name
	}
	if more {
		return next, false, nil
	}
	recs, err := recordsUnder(tx, t.Account, t.Container, t.Dir, false)
	if err != nil {
		return "", false, err
	}
	return "", true, t.remove(tx, namedRecords{name: t.Dir, recs: recs}, t.LeaseID)
}

// page reads the records of up to Limit blob names under the directory
// after after; more is set when names are left beyond them.
func (t *TreeDeletion) page(tx store.Tx, after string) (page []namedRecords, more bool, err error) {
	prefix := NamePrefixKey(t.Account, t.Container, t.Dir+"/")
	start := prefix
	if after != "" {
		_, start = StateKeys(t.Account, t.Container, after)
	}
	var keyErr error
	err = tx.Scan(start, store.PrefixEnd(prefix), store.ScanOptions{}, func(k, v []byte) bool {
		name, elem, err := BlobNameFromKey(k)
		if keyErr = err; err != nil {
			return false
		}
		if len(page) == 0 || page[len(page)-1].name != name {
			if len(page) == t.Limit {
				more = true
				return false
			}
			page = append(page, namedRecords{name: name})
		}
		last := &page[len(page)-1]
		last.recs = append(last.recs, treeRecord{key: bytes.Clone(k), name: name, elem: elem, value: bytes.Clone(v)})
		return true
	})
	if err == nil {
		err = keyErr
	}
	return page, more, err
}

// remove deletes one blob name's base blob (committed, or a placeholder
// for uncommitted blocks) with its live snapshots; its versions and
// soft-deleted states stay as Delete Blob leaves them. leaseID is the
// lease ID the request gives for the blob.
func (t *TreeDeletion) remove(tx store.Tx, n namedRecords, leaseID string) error {
	if len(n.recs) == 0 || n.recs[0].elem != ElemBase {
		return nil // no base blob: only history is stored under the name
	}
	base, err := DecodeBlob(n.recs[0].value)
	if err != nil {
		return err
	}
	d := &Deletion{Account: t.Account, Container: t.Container, Name: n.name, Now: t.Now, DeletedAt: t.DeletedAt,
		Policy: t.Policy, Refs: t.Refs}
	if !base.Committed || base.ExpiredAt(t.Now) {
		return RemoveBlob(tx, t.Account, t.Container, n.name, base, t.Refs)
	}
	if err := base.Lease.CheckWrite(leaseID, t.Now, lease.Blob); err != nil {
		return err
	}
	if err := base.Protection(t.Now); err != nil {
		return err
	}
	for _, st := range n.recs[1:] {
		if st.elem[:1] != SnapshotPrefix {
			continue
		}
		snap, err := DecodeBlob(st.value)
		if err != nil {
			return err
		}
		if deleted, _ := snap.SoftDeleted(t.Now); deleted {
			continue
		}
		if err := snap.Protection(t.Now); err != nil {
			return err
		}
		if err := d.Retire(tx, st.elem, snap); err != nil {
			return err
		}
	}
	return d.RetireBase(tx, base)
}
