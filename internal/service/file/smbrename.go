package file

import (
	"context"
	"errors"
	"time"

	"github.com/lazuli-storage/lazuli/internal/engine/store"
	"github.com/lazuli-storage/lazuli/internal/rule/etag"
	"github.com/lazuli-storage/lazuli/internal/service/file/smbstate"
)

// ErrOpenBelow refuses renaming a directory while files below it are open.
var ErrOpenBelow = errors.New("open handles below the directory")

// Rename moves the entry at from (held by the open handleID) to to,
// keeping its id, ranges and opens; replace allows replacing a file
// nobody else holds open.
func (fs *SMBFS) Rename(ctx context.Context, account, share, from, to string, replace bool) error {
	src, err := smbPath(from)
	if err != nil {
		return err
	}
	dst, err := smbPath(to)
	if err != nil || dst.isRoot() {
		return ErrBadName
	}
	return fs.update(ctx, account, share, func(tx store.Tx, t *target, now time.Time) error {
		n, found, err := loadNode(tx, account, share, "", src)
		if err != nil || !found {
			if err == nil {
				err = ErrNotFound
			}
			return err
		}
		parent, found, err := loadNode(tx, account, share, "", dst.parent())
		if err != nil || !found || !parent.Dir {
			if err == nil {
				err = ErrPathNotFound
			}
			return err
		}
		if err := fs.renameAllowed(tx, account, share, src, n); err != nil {
			return err
		}
		same := src.key() == dst.key()
		if !same {
			sameFile, err := fs.clearTarget(tx, &target{Account: account, Share: share, Path: dst}, replace, n, now)
			if err != nil {
				return err
			}
			if sameFile {
				n.Links-- // dst is one of the file's names already; the source name goes
			}
		}
		if err := tx.Delete(nodeKeyOf(account, share, "", src)); err != nil {
			return err
		}
		if n.Dir && !same {
			if err := moveSubtree(tx, account, share, src.key(), dst.key()); err != nil {
				return err
			}
		}
		n.Name, n.ParentID = dst.name(), parent.ID
		n.ETag = etag.Next(now, n.ETag)
		n.SMB.Changed = now
		return saveNode(tx, account, share, "", dst, n)
	})
}

// clearTarget makes room at the rename destination for n, as
// clearDestination does for REST: sameFile when the destination is
// another name of n.
func (fs *SMBFS) clearTarget(tx store.Tx, t *target, replace bool, n *node, now time.Time) (sameFile bool, err error) {
	old, found, err := loadNode(tx, t.Account, t.Share, "", t.Path)
	if err == nil && found {
		err = forgetDeadOpens(tx, fs.live, old)
	}
	switch {
	case err != nil || !found:
		return false, err
	case !replace:
		return false, ErrExists
	case old.Dir:
		return false, ErrExists
	case !n.Dir && old.ID == n.ID:
		return true, nil
	case len(old.Opens) > 0 || old.DeletePending:
		return false, ErrSharing
	case old.SMB.Attrs&attrReadOnly != 0:
		return false, ErrReadOnly
	}
	_, err = unlinkName(tx, t, nodeKeyOf(t.Account, t.Share, "", t.Path), old, now)
	return false, err
}

// renameAllowed applies the sharing rules of an SMB rename, as Windows
// applies them: the rename acts as an open of the parent directory asking
// for delete access and sharing only reads and writes, so it fails while
// another handle holds the parent with delete access or without sharing
// delete; and a directory cannot be renamed while anything below it is
// open.
func (fs *SMBFS) renameAllowed(tx store.Tx, account, share string, src filePath, n *node) error {
	parent, found, err := loadNode(tx, account, share, "", src.parent())
	if err != nil {
		return err
	}
	if found {
		if err := forgetDeadOpens(tx, fs.live, parent); err != nil {
			return err
		}
		if smbstate.OpenConflicts(parent.Opens, smbstate.Delete, smbstate.ShareRead|smbstate.ShareWrite) {
			return ErrSharing
		}
	}
	if !n.Dir {
		return nil
	}
	return fs.noOpensBelow(tx, account, share, src)
}

// noOpensBelow returns ErrOpenBelow when an entry below the directory at
// dir holds a live open.
func (fs *SMBFS) noOpensBelow(tx store.Tx, account, share string, dir filePath) error {
	alive, err := fs.live.Snapshot(tx)
	if err != nil {
		return err
	}
	for _, prefix := range [][]byte{childrenPrefix(account, share, "", dir.key()), descendantsPrefix(account, share, "", dir.key())} {
		open := false
		var linked []*node // name records, whose opens are in their link records
		var decodeErr error
		err := tx.Scan(prefix, store.PrefixEnd(prefix), store.ScanOptions{}, func(_, v []byte) bool {
			n, err := decodeNode(v)
			if err == nil {
				err = forgetOpensOf(n, alive)
			}
			if err != nil {
				decodeErr = err
				return false
			}
			if n.linkName {
				linked = append(linked, n)
			}
			open = len(n.Opens) > 0
			return !open
		})
		if err == nil {
			err = decodeErr
		}
		if err == nil && !open {
			err = resolveLinks(tx, account, share, "", linked)
		}
		if err != nil {
			return err
		}
		for _, n := range linked {
			if err := forgetOpensOf(n, alive); err != nil {
				return err
			}
			open = open || len(n.Opens) > 0
		}
		if open {
			return ErrOpenBelow
		}
	}
	return nil
}
