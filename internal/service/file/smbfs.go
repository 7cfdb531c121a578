package file

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/lazuli-storage/lazuli/internal/base/clock"
	"github.com/lazuli-storage/lazuli/internal/engine/extent"
	"github.com/lazuli-storage/lazuli/internal/engine/store"
	"github.com/lazuli-storage/lazuli/internal/frame/liveness"
	"github.com/lazuli-storage/lazuli/internal/rule/contentprops"
	"github.com/lazuli-storage/lazuli/internal/rule/etag"
	"github.com/lazuli-storage/lazuli/internal/rule/lease"
	"github.com/lazuli-storage/lazuli/internal/rule/sddl"
	"github.com/lazuli-storage/lazuli/internal/service/file/ranges"
	"github.com/lazuli-storage/lazuli/internal/service/file/smbstate"
)

// SMBFS is the File service's directories and files as the SMB endpoint
// reaches them: the same records and ranges REST serves, changed in the
// same transactions, so that the opens an SMB client holds are what REST
// operations check (package smbstate) and a write over SMB is a write REST
// sees (new ETag, Last-Modified, last write time).
type SMBFS struct {
	store   store.Store
	extents extent.Engine
	clock   clock.Clock
	// live ties each open to this node and judges the opens of others
	// (nil: opens belong to no node and never expire).
	live *liveness.Registry
}

// NewSMBFS serves the SMB endpoint from st and ext; the opens it records
// belong to the node live names.
func NewSMBFS(st store.Store, ext extent.Engine, c clock.Clock, live *liveness.Registry) *SMBFS {
	if c == nil {
		c = clock.Real{}
	}
	return &SMBFS{store: st, extents: ext, clock: c, live: live}
}

// Errors of SMBFS operations; the SMB endpoint maps each to an NTSTATUS.
var (
	ErrNotFound      = errors.New("no such file or directory")
	ErrPathNotFound  = errors.New("parent directory not found")
	ErrExists        = errors.New("name already exists")
	ErrIsDirectory   = errors.New("is a directory")
	ErrNotDirectory  = errors.New("not a directory")
	ErrSharing       = errors.New("sharing violation")
	ErrDeletePending = errors.New("delete pending")
	ErrNotEmpty      = errors.New("directory not empty")
	ErrReadOnly      = errors.New("read-only attribute")
	ErrCannotDelete  = errors.New("read-only or root: cannot be deleted")
	ErrBadName       = errors.New("invalid name")
	ErrNoShare       = errors.New("no such share")
	ErrQuota         = errors.New("share quota reached")
)

// Entry is a directory or file as SMB reports it.
type Entry struct {
	Name          string
	Dir           bool
	ID, ParentID  uint64
	Size          int64
	Attrs         uint32
	Created       time.Time
	Written       time.Time
	Changed       time.Time
	DeletePending bool
	Opens         int
}

func entryOf(n *node) Entry {
	return Entry{Name: n.Name, Dir: n.Dir, ID: n.ID, ParentID: n.ParentID, Size: n.Size, Attrs: uint32(n.SMB.Attrs),
		Created: n.SMB.Created, Written: n.SMB.Written, Changed: n.SMB.Changed,
		DeletePending: n.DeletePending, Opens: len(n.Opens)}
}

// Dispositions of an open (MS-SMB2 CreateDisposition).
const (
	Supersede = iota
	OpenExisting
	Create
	OpenIf
	Overwrite
	OverwriteIf
)

// Create actions reported back.
const (
	Superseded = iota
	Opened
	Created
	Overwritten
)

// OpenRequest is what an SMB CREATE asks for.
type OpenRequest struct {
	Disposition int
	Dir, NonDir bool // CreateOptions DIRECTORY_FILE / NON_DIRECTORY_FILE
	Attrs       uint32
	// DeleteOnClose is CreateOptions FILE_DELETE_ON_CLOSE.
	DeleteOnClose bool
	Open          smbstate.Open
}

// Shares reports whether share exists (live) in account.
func (fs *SMBFS) Shares(ctx context.Context, account, share string) (bool, error) {
	found := false
	err := fs.store.View(ctx, func(tx store.Tx) error {
		var err error
		_, found, err = loadShare(tx, account, share, "")
		return err
	})
	return found, err
}

func smbPath(p string) (filePath, error) {
	fp, err := parsePath(p, false)
	if err != nil {
		return fp, ErrBadName
	}
	return fp, nil
}

func (fs *SMBFS) update(ctx context.Context, account, share string, f func(tx store.Tx, t *target, now time.Time) error) error {
	return fs.store.Update(ctx, func(tx store.Tx) error {
		if _, found, err := loadShare(tx, account, share, ""); err != nil || !found {
			if err == nil {
				err = ErrNoShare
			}
			return err
		}
		return f(tx, &target{Account: account, Share: share}, fs.clock.Now().UTC())
	})
}

// Open opens, creates or overwrites the entry at path and records o on it,
// all in one transaction: the share-mode rule against the entry's other
// opens, delete-pending, and an active REST lease refusing write and
// delete are checked against the same state REST checks.
func (fs *SMBFS) Open(ctx context.Context, account, share, path string, req OpenRequest) (Entry, int, error) {
	fp, err := smbPath(path)
	if err != nil {
		return Entry{}, 0, err
	}
	var out Entry
	action := Opened
	err = fs.update(ctx, account, share, func(tx store.Tx, t *target, now time.Time) error {
		t.Path = fp
		n, found, err := loadNode(tx, account, share, "", fp)
		if err != nil {
			return err
		}
		if !found {
			if n, err = fs.create(tx, t, req, now); err != nil {
				return err
			}
			action = Created
		} else if err = forgetDeadOpens(tx, fs.live, n); err != nil {
			return err
		} else if action, err = fs.reopen(tx, t, n, req, now); err != nil {
			return err
		}
		open := req.Open
		open.Node = fs.live.Node()
		n.Opens = append(n.Opens, open)
		out = entryOf(n)
		return saveNode(tx, account, share, "", fp, n)
	})
	return out, action, err
}

func (fs *SMBFS) create(tx store.Tx, t *target, req OpenRequest, now time.Time) (*node, error) {
	switch req.Disposition {
	case OpenExisting, Overwrite:
		return nil, ErrNotFound
	}
	if t.Path.isRoot() {
		return nil, ErrNotFound
	}
	if req.DeleteOnClose {
		if err := deletable(attributes(req.Attrs)); err != nil {
			return nil, err
		}
	}
	parent, found, err := loadNode(tx, t.Account, t.Share, "", t.Path.parent())
	switch {
	case err != nil:
		return nil, err
	case !found || !parent.Dir:
		return nil, ErrPathNotFound
	}
	if err := forgetDeadOpens(tx, fs.live, parent); err != nil {
		return nil, err
	}
	switch {
	case parent.DeletePending:
		return nil, ErrDeletePending
	}
	n := &node{Name: t.Path.name(), Dir: req.Dir, ID: newFileID(), ParentID: parent.ID}
	if !req.Dir {
		n.Props.Type = contentprops.DefaultType // as Create File gives one
	}
	n.ETag = etag.Next(now, 0)
	attrs := attributes(req.Attrs) & (attrReadOnly | attrHidden | attrSystem | attrArchive | attrTemporary | attrNotContentIndexed)
	r := smbRequest{attrs: &attrs}
	if n.Dir {
		attrs |= attrDirectory
	} else if attrs == 0 {
		attrs = attrArchive
	}
	if err := r.create(tx, t, n, parent, now); err != nil {
		return nil, err
	}
	return n, nil
}

// reopen applies the disposition to an existing entry after the checks.
func (fs *SMBFS) reopen(tx store.Tx, t *target, n *node, req OpenRequest, now time.Time) (int, error) {
	switch {
	case req.Disposition == Create:
		return 0, ErrExists
	case n.DeletePending:
		return 0, ErrDeletePending
	case req.Dir && !n.Dir:
		return 0, ErrNotDirectory
	case req.NonDir && n.Dir:
		return 0, ErrIsDirectory
	}
	if req.DeleteOnClose {
		if err := deletable(n.SMB.Attrs); err != nil {
			return 0, err
		}
	}
	o := req.Open
	if o.Access&(smbstate.Write|smbstate.Delete) != 0 {
		if n.SMB.Attrs&attrReadOnly != 0 && o.Access&smbstate.Write != 0 {
			return 0, ErrReadOnly
		}
		if !n.Dir && n.Lease.CheckWrite("", now, lease.File) != nil {
			return 0, ErrSharing
		}
	}
	if smbstate.OpenConflicts(n.Opens, o.Access, o.Share) {
		return 0, ErrSharing
	}
	switch req.Disposition {
	case Supersede, Overwrite, OverwriteIf:
		if n.Dir {
			return 0, ErrIsDirectory
		}
		if err := fs.resize(tx, t, n, 0, now); err != nil {
			return 0, err
		}
		if req.Disposition == Supersede {
			return Superseded, nil
		}
		return Overwritten, nil
	}
	return Opened, nil
}

// resize sets a file's length, keeping the share's usage.
func (fs *SMBFS) resize(tx store.Tx, t *target, n *node, size int64, now time.Time) error {
	if size < n.Size {
		if err := truncate(tx, t.Account, t.Share, "", n.ID, size, now); err != nil {
			return err
		}
	}
	if err := adjustUsage(tx, t, size-n.Size); err != nil {
		return ErrQuota
	}
	n.Size = size
	n.SMB.Written, n.SMB.Changed = now, now
	n.ETag = etag.Next(now, n.ETag)
	return nil
}

// Close drops the open handleID from path. A delete-on-close open marks
// the entry delete-pending; when its last open goes, a delete-pending
// entry is deleted.
func (fs *SMBFS) Close(ctx context.Context, account, share, path string, handleID uint64, deleteOnClose bool) (Entry, error) {
	fp, err := smbPath(path)
	if err != nil {
		return Entry{}, err
	}
	var out Entry
	err = fs.update(ctx, account, share, func(tx store.Tx, t *target, now time.Time) error {
		t.Path = fp
		n, found, err := loadNode(tx, account, share, "", fp)
		if err != nil || !found {
			return err
		}
		if err := forgetDeadOpens(tx, fs.live, n); err != nil {
			return err
		}
		kept := n.Opens[:0:0]
		for _, o := range n.Opens {
			if o.HandleID != handleID {
				kept = append(kept, o)
			}
		}
		n.Opens = kept
		if deleteOnClose {
			n.DeletePending = true
		}
		out = entryOf(n)
		if len(kept) == 0 && n.DeletePending {
			return fs.remove(tx, t, n, now)
		}
		return saveNode(tx, account, share, "", fp, n)
	})
	return out, err
}

// remove deletes an entry whose last open has closed while delete-pending.
func (fs *SMBFS) remove(tx store.Tx, t *target, n *node, now time.Time) error {
	if n.Dir {
		if empty, err := dirEmpty(tx, t); err != nil || !empty {
			return err // a directory that filled meanwhile stays
		}
	} else {
		_, err := unlinkName(tx, t, nodeKeyOf(t.Account, t.Share, "", t.Path), n, now)
		return err
	}
	return tx.Delete(nodeKeyOf(t.Account, t.Share, "", t.Path))
}

func dirEmpty(tx store.Tx, t *target) (bool, error) {
	children := childrenPrefix(t.Account, t.Share, "", t.Path.key())
	empty := true
	err := tx.Scan(children, store.PrefixEnd(children), store.ScanOptions{Limit: 1}, func(_, _ []byte) bool {
		empty = false
		return false
	})
	return empty, err
}

// Stat returns the entry at path.
func (fs *SMBFS) Stat(ctx context.Context, account, share, path string) (Entry, error) {
	fp, err := smbPath(path)
	if err != nil {
		return Entry{}, err
	}
	var out Entry
	err = fs.store.View(ctx, func(tx store.Tx) error {
		n, found, err := loadNode(tx, account, share, "", fp)
		if err != nil {
			return err
		}
		if !found {
			return ErrNotFound
		}
		if err := forgetDeadOpens(tx, fs.live, n); err != nil {
			return err
		}
		out = entryOf(n)
		return nil
	})
	return out, err
}

// List returns the entries directly in the directory at path, in name order.
func (fs *SMBFS) List(ctx context.Context, account, share, path string) ([]Entry, error) {
	fp, err := smbPath(path)
	if err != nil {
		return nil, err
	}
	var out []Entry
	err = fs.store.View(ctx, func(tx store.Tx) error {
		alive, err := fs.live.Snapshot(tx)
		if err != nil {
			return err
		}
		prefix := childrenPrefix(account, share, "", fp.key())
		var nodes []*node
		var decodeErr error
		err = tx.Scan(prefix, store.PrefixEnd(prefix), store.ScanOptions{}, func(k, v []byte) bool {
			if _, name, err := nodeKeyParts(k); err != nil || name == "" {
				return err == nil
			}
			n, err := decodeNode(v)
			if err != nil {
				decodeErr = err
				return false
			}
			nodes = append(nodes, n)
			return true
		})
		if err == nil {
			err = decodeErr
		}
		if err == nil {
			err = resolveLinks(tx, account, share, "", nodes)
		}
		if err != nil {
			return err
		}
		for _, n := range nodes {
			if err := forgetOpensOf(n, alive); err != nil {
				return err
			}
			out = append(out, entryOf(n))
		}
		return nil
	})
	return out, err
}

// Read returns up to length bytes of the file at path from off.
func (fs *SMBFS) Read(ctx context.Context, account, share, path string, off, length int64) ([]byte, error) {
	fp, err := smbPath(path)
	if err != nil {
		return nil, err
	}
	var segs []ranges.Segment
	var end int64
	err = fs.store.View(ctx, func(tx store.Tx) error {
		n, found, err := loadNode(tx, account, share, "", fp)
		if err != nil || !found {
			if err == nil {
				err = ErrNotFound
			}
			return err
		}
		end = min(n.Size, off+length)
		if off >= end {
			return nil
		}
		segs, err = segmentsIn(tx, account, share, "", n.ID, off, end)
		return err
	})
	if err != nil || off >= end {
		return nil, err
	}
	buf := make([]byte, end-off)
	for _, p := range ranges.Plan(segs, off, end) {
		if p.Extent == "" {
			continue // a hole reads as zeros
		}
		rd, err := fs.extents.Open(ctx, p.Extent)
		if err != nil {
			return nil, fmt.Errorf("open extent %s: %w", p.Extent, err)
		}
		_, err = rd.ReadAt(buf[p.Start-off:p.Start-off+p.Length], p.ExtentOffset)
		_ = rd.Close()
		if err != nil {
			return nil, fmt.Errorf("read extent %s: %w", p.Extent, err)
		}
	}
	return buf, nil
}

// Write stores data at off in the file at path, growing it as needed; the
// file gets a new ETag and last write time, as a Put Range would give it.
func (fs *SMBFS) Write(ctx context.Context, account, share, path string, off int64, data []byte) (Entry, error) {
	fp, err := smbPath(path)
	if err != nil {
		return Entry{}, err
	}
	info, err := fs.extents.Write(ctx, bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return Entry{}, err
	}
	end := off + int64(len(data))
	return fs.change(ctx, account, share, fp, func(tx store.Tx, t *target, n *node, now time.Time) error {
		if end > n.Size {
			if err := fs.resize(tx, t, n, end, now); err != nil {
				return err
			}
		}
		n.SMB.Written, n.SMB.Changed = now, now
		return overlay(tx, account, share, "", n.ID, off, end, &ranges.Segment{Start: off, Length: int64(len(data)), Extent: info.ID}, now)
	})
}

// change edits the entry at path; it gets a new ETag.
func (fs *SMBFS) change(ctx context.Context, account, share string, fp filePath, f func(tx store.Tx, t *target, n *node, now time.Time) error) (Entry, error) {
	var out Entry
	err := fs.update(ctx, account, share, func(tx store.Tx, t *target, now time.Time) error {
		t.Path = fp
		n, found, err := loadNode(tx, account, share, "", fp)
		if err != nil || !found {
			if err == nil {
				err = ErrNotFound
			}
			return err
		}
		if err := forgetDeadOpens(tx, fs.live, n); err != nil {
			return err
		}
		if err := f(tx, t, n, now); err != nil {
			return err
		}
		n.ETag = etag.Next(now, n.ETag)
		out = entryOf(n)
		return saveNode(tx, account, share, "", fp, n)
	})
	return out, err
}

// Truncate sets the length of the file at path.
func (fs *SMBFS) Truncate(ctx context.Context, account, share, path string, size int64) (Entry, error) {
	fp, err := smbPath(path)
	if err != nil {
		return Entry{}, err
	}
	return fs.change(ctx, account, share, fp, func(tx store.Tx, t *target, n *node, now time.Time) error {
		if n.Dir {
			return ErrIsDirectory
		}
		return fs.resize(tx, t, n, size, now)
	})
}

// Basic is a FileBasicInformation change: zero times and attributes are
// left as they are.
type Basic struct {
	Created, Written, Changed time.Time
	Attrs                     uint32
}

// SetBasic sets the times and attributes of the entry at path, the
// properties REST reports as x-ms-file-*.
func (fs *SMBFS) SetBasic(ctx context.Context, account, share, path string, b Basic) (Entry, error) {
	fp, err := smbPath(path)
	if err != nil {
		return Entry{}, err
	}
	return fs.change(ctx, account, share, fp, func(_ store.Tx, _ *target, n *node, now time.Time) error {
		if !b.Created.IsZero() {
			n.SMB.Created = b.Created
		}
		if !b.Written.IsZero() {
			n.SMB.Written = b.Written
		}
		n.SMB.Changed = now
		if !b.Changed.IsZero() {
			n.SMB.Changed = b.Changed
		}
		if b.Attrs != 0 {
			a := attributes(b.Attrs) & (attrReadOnly | attrHidden | attrSystem | attrArchive | attrTemporary | attrNotContentIndexed | attrOffline)
			if n.Dir {
				a |= attrDirectory
			} else if a == 0 {
				a = attrArchive
			}
			n.SMB.Attrs = a
		}
		return nil
	})
}

// SetDeletePending sets or clears the delete-pending flag of the entry at
// path; a directory must be empty to become pending.
func (fs *SMBFS) SetDeletePending(ctx context.Context, account, share, path string, pending bool) error {
	fp, err := smbPath(path)
	if err != nil {
		return err
	}
	if fp.isRoot() {
		return ErrCannotDelete
	}
	_, err = fs.change(ctx, account, share, fp, func(tx store.Tx, t *target, n *node, _ time.Time) error {
		if pending && n.Dir {
			if empty, err := dirEmpty(tx, t); err != nil || !empty {
				if err == nil {
					err = ErrNotEmpty
				}
				return err
			}
		}
		if pending {
			if err := deletable(n.SMB.Attrs); err != nil {
				return err
			}
		}
		n.DeletePending = pending
		return nil
	})
	return err
}

// deletable refuses to mark an entry with the ReadOnly attribute for
// deletion, whether by a CREATE with FILE_DELETE_ON_CLOSE (MS-FSA
// 2.1.5.1.1 and 2.1.5.1.2.1) or by FileDispositionInformation (MS-FSA
// 2.1.5.15.3): STATUS_CANNOT_DELETE.
func deletable(attrs attributes) error {
	if attrs&attrReadOnly != 0 {
		return ErrCannotDelete
	}
	return nil
}

// DropOpens removes every open whose handle id is in ids from the entries
// at paths (handles of a closed connection); delete-pending entries whose
// last open goes are deleted.
func (fs *SMBFS) DropOpens(ctx context.Context, account, share string, handles map[uint64]string) error {
	var firstErr error
	for id, path := range handles {
		if _, err := fs.Close(ctx, account, share, path, id, false); err != nil && firstErr == nil {
			firstErr = err
		}
	}
	return firstErr
}

// Locate finds the entry an open holds: at path, or, when REST renamed it
// meanwhile (the open's share mode allowed it), wherever the entry with id
// now is. It returns the entry's current path and whether the open
// handleID is still recorded on it (Force Close Handles removes it).
func (fs *SMBFS) Locate(ctx context.Context, account, share, path string, id, handleID uint64) (string, bool, error) {
	fp, err := smbPath(path)
	if err != nil {
		return "", false, err
	}
	has := false
	err = fs.store.View(ctx, func(tx store.Tx) error {
		n, found, err := loadNode(tx, account, share, "", fp)
		if err != nil {
			return err
		}
		if !found || n.ID != id {
			if n, path, err = findByID(tx, account, share, id); err != nil || n == nil {
				return err
			}
		}
		for _, o := range n.Opens {
			has = has || o.HandleID == handleID
		}
		return nil
	})
	return path, has, err
}

// findByID scans a live share for the entry with id; its path comes back
// in folded (upper) case, which names it as well.
func findByID(tx store.Tx, account, share string, id uint64) (*node, string, error) {
	prefix := snapPrefix(store.SpaceFile, account, share, "")
	var found *node
	var path string
	var scanErr error
	err := tx.Scan(prefix, store.PrefixEnd(prefix), store.ScanOptions{}, func(k, v []byte) bool {
		n, err := decodeNode(v)
		if err != nil {
			scanErr = err
			return false
		}
		if n.ID != id {
			return true
		}
		parent, name, err := nodeKeyParts(k)
		found, path, scanErr = n, strings.TrimPrefix(parent+"/"+name, "/"), err
		return false
	})
	if err == nil {
		err = scanErr
	}
	if err == nil && found != nil {
		err = resolveLink(tx, account, share, "", found)
	}
	if err != nil {
		return nil, "", err
	}
	return found, path, nil
}

// SecurityDescriptor returns the stored permission of the entry at path
// (its own, else its parent's, as REST resolves it) as a parsed security
// descriptor; nil when none is stored.
func (fs *SMBFS) SecurityDescriptor(ctx context.Context, account, share, path string) (*sddl.Descriptor, error) {
	fp, err := smbPath(path)
	if err != nil {
		return nil, err
	}
	var d *sddl.Descriptor
	err = fs.store.View(ctx, func(tx store.Tx) error {
		n, ok, err := loadNode(tx, account, share, "", fp)
		if err != nil || !ok {
			if err == nil {
				err = ErrNotFound
			}
			return err
		}
		d, _, err = loadDescriptor(tx, account, share, n.SMB.PermKey)
		return err
	})
	if err != nil {
		return nil, err
	}
	return d, nil
}
