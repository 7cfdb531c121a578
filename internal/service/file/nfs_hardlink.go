package file

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/lazuli-storage/lazuli/internal/engine/store"
	"github.com/lazuli-storage/lazuli/internal/frame/request"
	"github.com/lazuli-storage/lazuli/internal/rule/azerr"
	"github.com/lazuli-storage/lazuli/internal/rule/etag"
	"github.com/lazuli-storage/lazuli/internal/rule/lease"
)

// Hard links of NFS shares. Create Hard Link (PUT ?restype=hardlink with
// x-ms-type: file and x-ms-file-target-file) gives an existing regular file
// of the same share another name, as POSIX link(2) does: every name is the
// same file, with one id, one content and one set of properties, and a
// write, resize, property, metadata or lease change through any name is
// seen through all of them. x-ms-link-count says how many names the file
// has. Delete File removes one name (answering the names left); the
// content goes with the last one. Rename moves one name; renamed onto
// another name of the same file, the source name goes (rename(2) would keep
// both, but the client asked for the source to go). Create File and Copy
// File over a name replace the file every name shows, keeping its id. A
// link changes the file's change time and ETag, as link(2) and unlink(2)
// change its ctime.
//
// Storage. A file's ranges are keyed by its id already, so only its record
// needs sharing. Until its first hard link a file's record, at its name's
// key, holds all its state, as it always did. Create Hard Link moves that
// state to a link record keyed by the file's id (SpaceFileIndex, kind "l",
// under the share and snapshot, like the ranges) with the number of names,
// and leaves at each name's key a name record: the name, the file's id and
// the parent directory's id, marked as such. loadNode completes a name
// record from the link record and saveNode splits the two again (storeNode),
// so the operations that read, change and store a file through its path
// need not know about links; what scans node records completes name
// records after the scan (resolveLinks). A file keeps its link record when
// it is down to one name again: finding that name would take a scan of the
// share, and the record costs one more read.
//
// Snapshots copy link records with the rest of the share's index
// (copyShareContent), share deletes and moves take them with the share's
// key ranges, and dump copies them as it copies every record.
//
// Errors: an SMB share refuses hard links (400 InvalidHeaderValue, as it
// refuses symbolic links); a missing target is 404 ResourceNotFound, and a
// missing directory for the new name 404 ParentNotFound; a target that is a
// directory or a symbolic link is 409 ResourceTypeMismatch: the REST
// reference names no code for them, and that is what this service answers
// for an operation on the wrong kind of entry (Get Symbolic Link of a
// regular file, a file write addressed to a directory); a taken name is 409
// ResourceAlreadyExists. x-ms-lease-id is checked against the target's
// lease only while it has an active one: the SDK's TestCreateHardLinkNFSWithLease
// sends a share lease's ID for a target without a lease, and Azure links.
// The caller's authorization must cover the target as it covers the new
// name (authorizeLinkTarget).

// Node fields of hard links.
const (
	// ntagLinkName marks a name record of a file whose state is in its
	// link record (no payload).
	ntagLinkName = 32
	// ntagLinkCount is the number of names, in a link record.
	ntagLinkCount = 33
)

// kindLinks is the SpaceFileIndex kind element of link records.
const kindLinks = "l"

// linkKey is the key of the link record of file id.
func linkKey(account, share, snap string, id uint64) []byte {
	return store.NewKey(store.SpaceFileIndex).Str(account).Str(share).Str(snap).Str(kindLinks).Uint(id)
}

// errNoLinkRecord reports a name record whose link record is missing.
var errNoLinkRecord = errors.New("file name record without its link record")

// resolveLink completes n, a decoded node record, with its file's state
// when it is the name record of a file with hard links.
func resolveLink(tx store.Tx, account, share, snap string, n *node) error {
	if !n.linkName {
		return nil
	}
	v, err := tx.Get(linkKey(account, share, snap, n.ID))
	if errors.Is(err, store.ErrNotFound) {
		return fmt.Errorf("file %d (%q): %w", n.ID, n.Name, errNoLinkRecord)
	}
	if err != nil {
		return err
	}
	f, err := decodeNode(v)
	if err != nil {
		return err
	}
	f.Name, f.ParentID = n.Name, n.ParentID
	*n = *f
	return nil
}

// resolveLinks completes the name records among nodes decoded by a scan
// (reads are not made inside a scan).
func resolveLinks(tx store.Tx, account, share, snap string, nodes []*node) error {
	for _, n := range nodes {
		if err := resolveLink(tx, account, share, snap, n); err != nil {
			return err
		}
	}
	return nil
}

// storeNode stores n at key: its whole record, or, for a file with hard
// links, its name record there and its state in its link record.
func storeNode(tx store.Tx, key []byte, account, share, snap string, n *node) error {
	if n.Links == 0 {
		return tx.Put(key, n.encode())
	}
	if err := tx.Put(key, nameRecord(n)); err != nil {
		return err
	}
	return putLinkRecord(tx, account, share, snap, n)
}

// nameRecord is the record of one name of the file n with hard links.
func nameRecord(n *node) []byte {
	return (&node{Name: n.Name, ID: n.ID, ParentID: n.ParentID, linkName: true}).encode()
}

// putLinkRecord stores the state of the file n with hard links; the name
// and parent belong to each name's record.
func putLinkRecord(tx store.Tx, account, share, snap string, n *node) error {
	state := *n
	state.Name, state.ParentID = "", 0
	return tx.Put(linkKey(account, share, snap, n.ID), state.encode())
}

// unlinkName removes the name at key of the file n (as loaded through that
// name), as Delete File, a replacing rename and the last close of a
// delete-pending SMB open do. A file with other names loses this one and
// keeps its content; otherwise the file goes, with its ranges, and its bytes
// leave the share's usage. It returns the number of names left.
func unlinkName(tx store.Tx, t *target, key []byte, n *node, now time.Time) (uint32, error) {
	if err := tx.Delete(key); err != nil {
		return 0, err
	}
	if n.Links > 1 {
		n.Links--
		// A pending delete was this name's; the other names stay usable.
		n.DeletePending = false
		n.SMB.Changed = now // the file's change time, as unlink(2) moves it
		n.ETag = etag.Next(now, n.ETag)
		return n.Links, putLinkRecord(tx, t.Account, t.Share, t.Snapshot, n)
	}
	if n.Links == 1 {
		if err := tx.Delete(linkKey(t.Account, t.Share, t.Snapshot, n.ID)); err != nil {
			return 0, err
		}
	}
	if err := dropRanges(tx, t.Account, t.Share, t.Snapshot, n.ID, now); err != nil {
		return 0, err
	}
	return 0, adjustUsage(tx, t, -n.Size)
}

// linkCount is the number of names of file n.
func linkCount(n *node) uint32 {
	return max(n.Links, 1)
}

func (s *Service) createHardLink(w http.ResponseWriter, r *http.Request) error {
	t := targetOf(r)
	if err := readOnlySnapshot(t); err != nil {
		return err
	}
	if err := requireFileType(r.Header); err != nil {
		return err
	}
	if err := noLinkContent(r); err != nil {
		return err
	}
	src, err := s.parseLinkTarget(r, t)
	if err != nil {
		return err
	}
	if err := s.authorizeLinkTarget(r, t, src); err != nil {
		return err
	}
	now := s.now()
	leaseID := r.Header.Get(lease.HeaderID)
	var link *node
	err = s.store.Update(r.Context(), func(tx store.Tx) error {
		parent, err := parentFor(tx, t)
		if err != nil {
			return err
		}
		if err := nfsOnly(parent, "Hard links", "x-ms-file-target-file"); err != nil {
			return err
		}
		n, err := linkTarget(tx, t, src, leaseID, now)
		if err != nil {
			return err
		}
		if _, found, err := loadNode(tx, t.Account, t.Share, "", t.Path); err != nil {
			return err
		} else if found {
			return azerr.New(azerr.ResourceAlreadyExists)
		}
		n.Links = linkCount(n) + 1
		n.SMB.Changed = now // link(2) moves the file's change time
		n.ETag = etag.Next(now, n.ETag)
		// The target's own record becomes a name record (if it was not one
		// already) beside the link record.
		if err := saveNode(tx, t.Account, t.Share, "", src, n); err != nil {
			return err
		}
		l := *n
		l.Name, l.ParentID = t.Path.name(), parent.ID
		link = &l
		return tx.Put(nodeKeyOf(t.Account, t.Share, "", t.Path), nameRecord(link))
	})
	if err != nil {
		return err
	}
	writeLinkCreated(w, link, nfsOnRead)
	return nil
}

// noLinkContent refuses content on Create Hard Link: Content-Length and
// x-ms-content-length may be given, as 0 only.
func noLinkContent(r *http.Request) error {
	if r.ContentLength > 0 {
		return azerr.InvalidHeader("Content-Length", r.Header.Get("Content-Length"))
	}
	if raw := strings.TrimSpace(r.Header.Get("X-Ms-Content-Length")); raw != "" && raw != "0" {
		return azerr.InvalidHeader("x-ms-content-length", raw)
	}
	return nil
}

// parseLinkTarget reads x-ms-file-target-file: the target's path from the
// share's root ("/dir/file"), or the target's URL, which must name a file
// of the same live share (the REST reference allows both).
func (s *Service) parseLinkTarget(r *http.Request, t *target) (filePath, error) {
	const header = "x-ms-file-target-file"
	raw := r.Header.Get(header)
	if raw == "" {
		return filePath{}, azerr.MissingHeader(header)
	}
	if lower := strings.ToLower(raw); strings.HasPrefix(lower, "http://") || strings.HasPrefix(lower, "https://") {
		src, err := s.resolveSource(r, header, raw)
		if err != nil {
			return filePath{}, err
		}
		if src.file == nil || src.account != t.Account || src.file.Share != t.Share || src.file.Snapshot != "" {
			return filePath{}, azerr.Newf(azerr.InvalidHeaderValue, "The target file must be in the same share.").
				With("HeaderName", header).With("HeaderValue", raw)
		}
		return src.file.Path, nil
	}
	keepDots := strings.EqualFold(r.Header.Get("X-Ms-Allow-Trailing-Dot"), "true")
	return parsePath(strings.TrimPrefix(raw, "/"), keepDots)
}

// authorizeLinkTarget checks that the caller's authorization covers the
// target as it covers the new name: the new name reaches the target's
// content, so a SAS made for one file must not reach another file of the
// share through a link (the route checks the new name only). The
// permissions are the operation's own; Shared Key, Entra ID and a share
// SAS that may create the link pass as before.
func (s *Service) authorizeLinkTarget(r *http.Request, t *target, src filePath) error {
	info := request.Of(r)
	return info.Identity.Allow(info.Access, s.authTarget(r, &target{Account: t.Account, Share: t.Share, Path: src}))
}

// linkTarget loads the file a hard link names: a live regular file, not
// being deleted; x-ms-lease-id must match its lease while it has an active
// one and is not looked at otherwise.
func linkTarget(tx store.Tx, t *target, src filePath, leaseID string, now time.Time) (*node, error) {
	n, found, err := loadNode(tx, t.Account, t.Share, "", src)
	if err != nil {
		return nil, err
	}
	if !found {
		return nil, azerr.New(azerr.ResourceNotFound)
	}
	if err := forgetDeadOpens(tx, t.live, n); err != nil {
		return nil, err
	}
	switch {
	case n.DeletePending:
		return nil, azerr.New(azerr.DeletePending)
	case n.Dir:
		return nil, azerr.Newf(azerr.ResourceTypeMismatch, "The target of a hard link must be a file, not a directory.")
	case n.NFS != nil && n.NFS.LinkText != "":
		return nil, azerr.Newf(azerr.ResourceTypeMismatch, "The target of a hard link must be a regular file, not a symbolic link.")
	}
	if st := n.Lease.State(now); st == lease.Leased || st == lease.Breaking {
		if err := n.Lease.CheckWrite(leaseID, now, lease.File); err != nil {
			return nil, err
		}
	}
	return n, nil
}
