package file

import (
	"bytes"
	"net/http"
	"strings"
	"time"

	"github.com/lazuli-storage/lazuli/internal/engine/store"
	"github.com/lazuli-storage/lazuli/internal/rule/azerr"
	"github.com/lazuli-storage/lazuli/internal/rule/etag"
	"github.com/lazuli-storage/lazuli/internal/rule/lease"
	"github.com/lazuli-storage/lazuli/internal/rule/metadata"
	"github.com/lazuli-storage/lazuli/internal/service/file/smbstate"
)

// renameRequest is a parsed Rename File or Rename Directory.
type renameRequest struct {
	source           filePath
	replace          bool
	ignoreReadOnly   bool
	sourceLease      string
	destinationLease string
	smb              smbRequest
	meta             metadata.Set
	metaSet          bool
	contentType      string
}

func (s *Service) parseRename(r *http.Request, t *target, dir bool) (renameRequest, error) {
	var req renameRequest
	raw := r.Header.Get("X-Ms-File-Rename-Source")
	if raw == "" {
		return req, azerr.MissingHeader("x-ms-file-rename-source")
	}
	src, err := s.resolveSource(r, "x-ms-file-rename-source", raw)
	if err != nil {
		return req, err
	}
	if src.file == nil || src.account != t.Account || src.file.Share != t.Share || src.file.Snapshot != "" {
		return req, azerr.Newf(azerr.InvalidHeaderValue, "The rename source must be in the same share.").
			With("HeaderName", "x-ms-file-rename-source").With("HeaderValue", raw)
	}
	req.source = src.file.Path
	if req.replace, err = boolHeader(r.Header, "x-ms-file-rename-replace-if-exists"); err != nil {
		return req, err
	}
	if req.ignoreReadOnly, err = boolHeader(r.Header, "x-ms-file-rename-ignore-readonly"); err != nil {
		return req, err
	}
	req.sourceLease = r.Header.Get("X-Ms-Source-Lease-Id")
	req.destinationLease = r.Header.Get("X-Ms-Destination-Lease-Id")
	if req.smb, err = parseSMBRequest(r.Header, dir); err != nil {
		return req, err
	}
	if req.meta, err = metadata.Parse(r.Header); err != nil {
		return req, err
	}
	req.metaSet = len(req.meta) > 0
	req.contentType = r.Header.Get("X-Ms-Content-Type")
	return req, nil
}

// rename serves Rename File and Rename Directory: the request URI is the
// new path, x-ms-file-rename-source the old one, in the same share. The
// entry keeps its id (and a file its ranges, keyed by id); a directory
// moves with everything below it.
func (s *Service) rename(w http.ResponseWriter, r *http.Request) error {
	t := targetOf(r)
	dir := r.URL.Query().Get("restype") == "directory"
	if err := readOnlySnapshot(t); err != nil {
		return err
	}
	if t.Path.isRoot() {
		return azerr.Newf(azerr.InvalidResourceName, "The root directory cannot be a rename destination.")
	}
	req, err := s.parseRename(r, t, dir)
	if err != nil {
		return err
	}
	if req.source.isRoot() {
		return azerr.Newf(azerr.InvalidHeaderValue, "The root directory cannot be renamed.").
			With("HeaderName", "x-ms-file-rename-source")
	}
	if dir && t.Path.within(req.source) && t.Path.key() != req.source.key() {
		return azerr.Newf(azerr.InvalidInput, "A directory cannot be moved into itself.")
	}
	now := s.now()
	var n *node
	err = s.store.Update(r.Context(), func(tx store.Tx) error {
		var err error
		n, err = s.renameIn(tx, t, req, dir, now)
		return err
	})
	if err != nil {
		return err
	}
	writeNodeWrite(w, n, http.StatusOK, nfsNone)
	return nil
}

func (s *Service) renameIn(tx store.Tx, t *target, req renameRequest, dir bool, now time.Time) (*node, error) {
	srcT := &target{Account: t.Account, Share: t.Share, Path: req.source, live: t.live}
	n, err := nodeFor(tx, srcT)
	if err != nil {
		return nil, err
	}
	if n.Dir != dir {
		return nil, azerr.New(azerr.ResourceTypeMismatch)
	}
	if !dir {
		if err := n.Lease.CheckWrite(req.sourceLease, now, lease.File); err != nil {
			return nil, err
		}
	}
	if err := smbstate.Check(smbstate.RenameSource, n.Opens); err != nil {
		return nil, err
	}
	parent, err := parentFor(tx, t)
	if err != nil {
		return nil, err
	}
	sameEntry := t.Path.key() == req.source.key()
	if !sameEntry {
		sameFile, err := s.clearDestination(tx, t, req, n, now)
		if err != nil {
			return nil, err
		}
		if sameFile {
			n.Links-- // the destination is one of the file's names already; the source name goes
		}
	}
	if err := tx.Delete(nodeKeyOf(t.Account, t.Share, "", req.source)); err != nil {
		return nil, err
	}
	if dir && !sameEntry {
		if err := moveSubtree(tx, t.Account, t.Share, req.source.key(), t.Path.key()); err != nil {
			return nil, err
		}
	}
	n.Name, n.ParentID = t.Path.name(), parent.ID
	n.ETag = etag.Next(now, n.ETag)
	req.smb.apply(&n.SMB, dir, false, now)
	if n.SMB.PermKey, err = req.smb.perm.onSet(tx, t.Account, t.Share, n.SMB.PermKey, parent.SMB.PermKey); err != nil {
		return nil, err
	}
	if req.metaSet {
		n.Metadata = req.meta
	}
	if req.contentType != "" && !dir {
		n.Props.Type = req.contentType
	}
	return n, saveNode(tx, t.Account, t.Share, "", t.Path, n)
}

// clearDestination makes room at the rename destination for n: an
// existing entry is 409 ResourceAlreadyExists unless replace-if-exists is
// set, and only a file can be replaced, subject to its lease, its
// read-only attribute and its open handles. A destination that is another
// name of n (a hard link) is left for the caller, which drops the source
// name (sameFile): rename(2) would keep both, but the client asked for the
// source name to go.
func (s *Service) clearDestination(tx store.Tx, t *target, req renameRequest, n *node, now time.Time) (sameFile bool, err error) {
	old, found, err := loadNode(tx, t.Account, t.Share, "", t.Path)
	if err != nil || !found {
		return false, err
	}
	if err := forgetDeadOpens(tx, t.live, old); err != nil {
		return false, err
	}
	switch {
	case !req.replace:
		return false, azerr.New(azerr.ResourceAlreadyExists)
	case old.Dir:
		return false, azerr.Newf(azerr.ResourceAlreadyExists, "The destination is a directory and cannot be replaced.")
	case !n.Dir && old.ID == n.ID:
		return true, nil
	case old.DeletePending:
		return false, azerr.New(azerr.DeletePending)
	case old.SMB.Attrs&attrReadOnly != 0 && !req.ignoreReadOnly:
		return false, azerr.New(azerr.ReadOnlyAttribute)
	}
	if err := old.Lease.CheckWrite(req.destinationLease, now, lease.File); err != nil {
		return false, err
	}
	if err := smbstate.Check(smbstate.ReplaceTarget, old.Opens); err != nil {
		return false, err
	}
	_, err = unlinkName(tx, t, nodeKeyOf(t.Account, t.Share, "", t.Path), old, now)
	return false, err
}

// moveSubtree rekeys everything below directory from (folded path) to
// below to.
func moveSubtree(tx store.Tx, account, share, from, to string) error {
	type rec struct {
		parent, name string
		key, value   []byte
	}
	var recs []rec
	var keyErr error
	collect := func(prefix []byte) error {
		return tx.Scan(prefix, store.PrefixEnd(prefix), store.ScanOptions{}, func(k, v []byte) bool {
			parent, name, err := nodeKeyParts(k)
			if err != nil {
				keyErr = err
				return false
			}
			recs = append(recs, rec{parent, name, bytes.Clone(k), bytes.Clone(v)})
			return true
		})
	}
	if err := collect(childrenPrefix(account, share, "", from)); err != nil {
		return err
	}
	if err := collect(descendantsPrefix(account, share, "", from)); err != nil {
		return err
	}
	if keyErr != nil {
		return keyErr
	}
	for _, rc := range recs {
		if err := tx.Delete(rc.key); err != nil {
			return err
		}
		parent := to + strings.TrimPrefix(rc.parent, from)
		if err := tx.Put(nodeKey(account, share, "", parent, rc.name), rc.value); err != nil {
			return err
		}
	}
	return nil
}
