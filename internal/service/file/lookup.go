package file

import (
	"math/rand/v2"

	"github.com/lazuli-storage/lazuli/internal/engine/store"
	"github.com/lazuli-storage/lazuli/internal/rule/azerr"
)

// The records a request's target names, loaded in its transaction with
// the errors the service answers when they are missing, and the IDs of new
// nodes.

// shareFor loads the share (or snapshot) a request targets: 404
// ShareNotFound, or ShareSnapshotNotFound for a missing snapshot of an
// existing share. A share being deleted or moved (share_softdelete.go) is
// not found, nor are its snapshots.
func shareFor(tx store.Tx, t *target) (*shareRecord, error) {
	live, found, err := loadShare(tx, t.Account, t.Share, "")
	if err != nil {
		return nil, err
	}
	if !found || live.hidden() {
		return nil, azerr.New(azerr.ShareNotFound)
	}
	if t.Snapshot == "" {
		return live, nil
	}
	sh, found, err := loadShare(tx, t.Account, t.Share, t.Snapshot)
	if err != nil || found {
		return sh, err
	}
	return nil, azerr.New(azerr.ShareSnapshotNotFound)
}

// nodeFor loads the directory or file a request targets. A missing entry is
// 404 ResourceNotFound when the share exists, and the share's error
// otherwise; an entry an SMB client marked for deletion is 409
// DeletePending (the code the SDKs know; the locks page calls it
// SMBDeletePending).
func nodeFor(tx store.Tx, t *target) (*node, error) {
	n, found, err := loadNode(tx, t.Account, t.Share, t.Snapshot, t.Path)
	if err != nil {
		return nil, err
	}
	if !found {
		if _, err := shareFor(tx, t); err != nil {
			return nil, err
		}
		return nil, missingNode(tx, t)
	}
	if err := forgetDeadOpens(tx, t.live, n); err != nil {
		return nil, err
	}
	if n.DeletePending {
		return nil, azerr.New(azerr.DeletePending)
	}
	return n, nil
}

// missingNode is the error for a path that names nothing: 404
// ParentNotFound when its directory does not exist either (the SDK's
// recorded TestDirectoryRenameDefault reads a file of a directory renamed
// away), else 404 ResourceNotFound.
func missingNode(tx store.Tx, t *target) error {
	parent := t.Path.parent()
	if parent.isRoot() {
		return azerr.New(azerr.ResourceNotFound)
	}
	dir, found, err := loadNode(tx, t.Account, t.Share, t.Snapshot, parent)
	switch {
	case err != nil:
		return err
	case !found || !dir.Dir:
		return azerr.New(azerr.ParentNotFound)
	}
	return azerr.New(azerr.ResourceNotFound)
}

// fileFor loads the file a request targets; a directory there is 404
// ResourceNotFound for reads and 409 ResourceTypeMismatch for writes.
func fileFor(tx store.Tx, t *target, write bool) (*node, error) {
	n, err := nodeFor(tx, t)
	if err != nil {
		return nil, err
	}
	if n.Dir {
		if write {
			return nil, azerr.New(azerr.ResourceTypeMismatch)
		}
		return nil, azerr.New(azerr.ResourceNotFound)
	}
	return n, nil
}

// dirFor loads the directory a request targets.
func dirFor(tx store.Tx, t *target, write bool) (*node, error) {
	n, err := nodeFor(tx, t)
	if err != nil {
		return nil, err
	}
	if !n.Dir {
		if write {
			return nil, azerr.New(azerr.ResourceTypeMismatch)
		}
		return nil, azerr.New(azerr.ResourceNotFound)
	}
	return n, nil
}

// parentFor loads the directory that will hold a new entry at t.Path:
// 404 ParentNotFound when it is missing or is a file.
func parentFor(tx store.Tx, t *target) (*node, error) {
	parent := t.Path.parent()
	n, found, err := loadNode(tx, t.Account, t.Share, t.Snapshot, parent)
	if err != nil {
		return nil, err
	}
	if !found && parent.isRoot() {
		if _, err := shareFor(tx, t); err != nil {
			return nil, err
		}
	}
	if !found || !n.Dir {
		return nil, azerr.New(azerr.ParentNotFound)
	}
	if err := forgetDeadOpens(tx, t.live, n); err != nil {
		return nil, err
	}
	if n.DeletePending {
		return nil, azerr.New(azerr.DeletePending)
	}
	return n, nil
}

// readOnlySnapshot refuses writes addressed to a share snapshot.
func readOnlySnapshot(t *target) error {
	if t.Snapshot != "" {
		return azerr.New(azerr.ShareSnapshotOperationNotSupported)
	}
	return nil
}

// newFileID picks the id of a new file or directory. Ids are random 63-bit
// numbers: unique without a shared counter record that every create in a
// share would contend on.
func newFileID() uint64 {
	for {
		if id := rand.Uint64() >> 1; id != 0 {
			return id
		}
	}
}
