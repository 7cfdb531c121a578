package file

import (
	"math"
	"net/http"
	"strings"
	"time"

	"github.com/lazuli-storage/lazuli/internal/base/guid"
	"github.com/lazuli-storage/lazuli/internal/engine/extent"
	"github.com/lazuli-storage/lazuli/internal/engine/store"
	"github.com/lazuli-storage/lazuli/internal/rule/abortcopy"
	"github.com/lazuli-storage/lazuli/internal/rule/auth"
	"github.com/lazuli-storage/lazuli/internal/rule/azerr"
	"github.com/lazuli-storage/lazuli/internal/rule/etag"
	"github.com/lazuli-storage/lazuli/internal/rule/lease"
	"github.com/lazuli-storage/lazuli/internal/rule/metadata"
	"github.com/lazuli-storage/lazuli/internal/service/file/ranges"
	"github.com/lazuli-storage/lazuli/internal/service/file/smbstate"
)

// Copy File runs to completion inside the request: a file source is copied
// by reference (the destination's range records point at the source's
// extents, each taking a reference), a blob source is read once from this
// server's Blob service into one extent. Either way x-ms-copy-status is
// "success" and Abort Copy File finds nothing pending.

// copyRequest is the destination side of a Copy File.
type copyRequest struct {
	// authorizeReplace checks, in the copy's transaction, that the caller
	// may replace the existing destination.
	authorizeReplace func(tx store.Tx) error
	meta             metadata.Set
	metaSet          bool
	smb              smbRequest
	attrsFromSrc     bool
	timesFromSrc     [3]bool // creation, last write, change
	permFromSource   bool
	ignoreReadOnly   bool
	// setArchive is x-ms-file-copy-set-archive: the copy gets the Archive
	// attribute whatever else it has (TestFileStartCopySetArchiveAttributeTrue).
	setArchive bool
	nfsModes   nfsCopyModes
	leaseID    string
}

func parseCopyRequest(h http.Header) (copyRequest, error) {
	var req copyRequest
	var err error
	if req.meta, err = metadata.Parse(h); err != nil {
		return req, err
	}
	req.metaSet = len(req.meta) > 0
	// "source" values take the source's property; strip them before the
	// common SMB parser sees them.
	h = h.Clone()
	for i, name := range []string{"x-ms-file-creation-time", "x-ms-file-last-write-time", "x-ms-file-change-time"} {
		if strings.EqualFold(h.Get(name), "source") {
			req.timesFromSrc[i] = true
			h.Del(name)
		}
	}
	if strings.EqualFold(h.Get("X-Ms-File-Attributes"), "source") {
		req.attrsFromSrc = true
		h.Del("X-Ms-File-Attributes")
	}
	switch mode := strings.ToLower(h.Get("X-Ms-File-Permission-Copy-Mode")); mode {
	case "":
	case "override":
		// Override needs the permission to set (the SDK's recorded
		// TestNegativeFileStartCopyOverrideMode).
		if h.Get("X-Ms-File-Permission") == "" && h.Get("X-Ms-File-Permission-Key") == "" {
			return req, azerr.MissingHeader("x-ms-file-permission")
		}
	case "source":
		req.permFromSource = true
	default:
		return req, azerr.InvalidHeader("x-ms-file-permission-copy-mode", mode)
	}
	if req.smb, err = parseSMBRequest(h, false); err != nil {
		return req, err
	}
	if req.ignoreReadOnly, err = boolHeader(h, "x-ms-file-copy-ignore-readonly"); err != nil {
		return req, err
	}
	if req.setArchive, err = boolHeader(h, "x-ms-file-copy-set-archive"); err != nil {
		return req, err
	}
	if req.nfsModes, err = parseNFSCopyModes(h); err != nil {
		return req, err
	}
	req.leaseID = h.Get(lease.HeaderID)
	return req, nil
}

func (s *Service) copyFile(w http.ResponseWriter, r *http.Request) error {
	t := targetOf(r)
	if err := readOnlySnapshot(t); err != nil {
		return err
	}
	raw := r.Header.Get("X-Ms-Copy-Source")
	src, err := s.resolveSource(r, "x-ms-copy-source", raw)
	if err != nil {
		return err
	}
	req, err := parseCopyRequest(r.Header)
	if err != nil {
		return err
	}
	var fromBlob *blobContent
	if src.service == auth.Blob {
		if fromBlob, err = s.readBlob(r, src, nil); err != nil {
			return err
		}
	} else if err := s.authorizeSource(r, src); err != nil {
		return err
	}
	// Replacing an existing file needs more than creating one (Need.Replace).
	req.authorizeReplace = func(tx store.Tx) error { return s.authorizeOverwrite(tx, r, t) }
	now := s.now()
	copyID := guid.New()
	var n *node
	err = s.store.Update(r.Context(), func(tx store.Tx) error {
		var err error
		n, err = s.copyIn(tx, t, src, fromBlob, req, now)
		if err != nil {
			return err
		}
		n.Copy = copyState{ID: copyID, Source: raw, Status: "success", Copied: n.Size, Total: n.Size, Completed: now}
		return saveNode(tx, t.Account, t.Share, "", t.Path, n)
	})
	if err != nil {
		return err
	}
	h := w.Header()
	setETag(h, n.ETag)
	h.Set("X-Ms-Copy-Id", copyID)
	h.Set("X-Ms-Copy-Status", "success")
	w.WriteHeader(http.StatusAccepted)
	return nil
}

// copyIn creates or replaces the destination file with the source's
// content and properties; the caller stores it.
func (s *Service) copyIn(tx store.Tx, t *target, src sourceRef, fromBlob *blobContent, req copyRequest, now time.Time) (*node, error) {
	parent, err := parentFor(tx, t)
	if err != nil {
		return nil, err
	}
	n := &node{Name: t.Path.name(), ParentID: parent.ID}
	var srcNode *node
	var segs []ranges.Segment
	if fromBlob != nil {
		n.Size, n.Props, n.Metadata = fromBlob.size, fromBlob.props, fromBlob.meta
		if fromBlob.extent != "" {
			segs = []ranges.Segment{{Start: 0, Length: fromBlob.size, Extent: fromBlob.extent}}
		}
	} else {
		// A missing source file is the copy's own 404 ResourceNotFound
		// (the SDK's recorded TestFileStartCopySourceNonExistent).
		if srcNode, err = fileFor(tx, src.file, false); err != nil {
			return nil, err
		}
		if src.file.Snapshot == "" {
			if err := smbstate.Check(smbstate.CopySource, srcNode.Opens); err != nil {
				return nil, err
			}
		}
		n.Size, n.Props, n.Metadata = srcNode.Size, srcNode.Props, srcNode.Metadata
		if segs, err = segmentsIn(tx, src.account, src.file.Share, src.file.Snapshot, srcNode.ID, 0, math.MaxInt64); err != nil {
			return nil, err
		}
	}
	// Take the new references before the old content goes: a file copied
	// onto itself must not see its extents freed in between.
	for _, sg := range segs {
		if err := extent.Ref(tx, sg.Extent); err != nil {
			return nil, err
		}
	}
	old, err := s.copyTarget(tx, t, req, now)
	if err != nil {
		return nil, err
	}
	delta := n.Size
	n.ID = newFileID()
	if old != nil {
		n.ID, n.ETag, n.Lease = old.ID, old.ETag, old.Lease.AfterWrite(now)
		n.Links = old.Links // the same file: every name sees the copy
		delta -= old.Size
		if err := dropRanges(tx, t.Account, t.Share, "", old.ID, now); err != nil {
			return nil, err
		}
	}
	if err := adjustUsage(tx, t, delta); err != nil {
		return nil, err
	}
	for _, sg := range segs {
		if err := tx.Put(rangeKey(t.Account, t.Share, "", n.ID, sg.Start), encodeSegment(sg)); err != nil {
			return nil, err
		}
	}
	if req.metaSet {
		n.Metadata = req.meta
	}
	n.ETag = etag.Next(now, n.ETag)
	if err := req.applySMB(tx, t, n, src, srcNode, parent, now); err != nil {
		return nil, err
	}
	if err := req.applyNFS(n, srcNode, parent); err != nil {
		return nil, err
	}
	return n, nil
}

// copyTarget checks the file a copy replaces, if any: its lease, its
// read-only attribute and its open handles.
func (s *Service) copyTarget(tx store.Tx, t *target, req copyRequest, now time.Time) (*node, error) {
	old, err := s.replaceable(tx, t, req.leaseID, req.ignoreReadOnly, now)
	if err != nil || old == nil {
		return old, err
	}
	if req.authorizeReplace != nil {
		if err := req.authorizeReplace(tx); err != nil {
			return nil, err
		}
	}
	return old, nil
}

// applySMB sets the destination's SMB properties: what the request gives,
// the source's where it says "source", the defaults of a new file
// otherwise.
func (req copyRequest) applySMB(tx store.Tx, t *target, n *node, src sourceRef, srcNode, parent *node, now time.Time) error {
	req.smb.apply(&n.SMB, false, true, now)
	if srcNode != nil {
		if req.attrsFromSrc {
			n.SMB.Attrs = srcNode.SMB.Attrs
		}
		if req.setArchive {
			n.SMB.Attrs |= attrArchive
		}
		for i, dst := range []*time.Time{&n.SMB.Created, &n.SMB.Written, &n.SMB.Changed} {
			if req.timesFromSrc[i] {
				*dst = []time.Time{srcNode.SMB.Created, srcNode.SMB.Written, srcNode.SMB.Changed}[i]
			}
		}
	}
	if req.permFromSource && srcNode != nil && srcNode.SMB.PermKey != "" {
		// The source's permission lives in the source's share.
		d, found, err := loadDescriptor(tx, src.account, src.file.Share, srcNode.SMB.PermKey)
		if err != nil {
			return err
		}
		if found {
			n.SMB.PermKey, err = storeDescriptor(tx, t.Account, t.Share, d)
			return err
		}
	}
	var err error
	n.SMB.PermKey, err = req.smb.perm.onCreate(tx, t.Account, t.Share, parent.SMB.PermKey, false)
	return err
}

// sourceError turns a missing copy source into the copy-source error the
// service reports.
func sourceError(err error) error {
	e, ok := azerr.As(err)
	if !ok || e.Status != http.StatusNotFound {
		return err
	}
	out := azerr.Newf(azerr.CannotVerifyCopySource, "The specified copy source does not exist.").WithStatus(http.StatusNotFound)
	out.Header = http.Header{"X-Ms-Copy-Source-Status-Code": {"404"}, "X-Ms-Copy-Source-Error-Code": {e.Code}}
	return out
}

func (s *Service) abortCopy(w http.ResponseWriter, r *http.Request) error {
	t := targetOf(r)
	if err := readOnlySnapshot(t); err != nil {
		return err
	}
	id, err := abortcopy.Parse(r)
	if err != nil {
		return err
	}
	now := s.now()
	return s.store.View(r.Context(), func(tx store.Tx) error {
		n, err := fileFor(tx, t, true)
		if err != nil {
			return err
		}
		if err := n.Lease.CheckWrite(r.Header.Get(lease.HeaderID), now, lease.File); err != nil {
			return err
		}
		if n.Copy.ID != "" && !strings.EqualFold(n.Copy.ID, id) {
			return azerr.New(azerr.CopyIdMismatch)
		}
		// Copies finish inside their request, so none is ever pending.
		return azerr.New(azerr.NoPendingCopyOperation)
	})
}
