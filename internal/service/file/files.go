package file

import (
	"bytes"
	"encoding/base64"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/lazuli-storage/lazuli/internal/engine/extent"
	"github.com/lazuli-storage/lazuli/internal/frame/request"
	"github.com/lazuli-storage/lazuli/internal/rule/structured"
	"github.com/lazuli-storage/lazuli/internal/service/file/ranges"

	"github.com/lazuli-storage/lazuli/internal/engine/store"
	"github.com/lazuli-storage/lazuli/internal/rule/azerr"
	"github.com/lazuli-storage/lazuli/internal/rule/contentprops"
	"github.com/lazuli-storage/lazuli/internal/rule/etag"
	"github.com/lazuli-storage/lazuli/internal/rule/lease"
	"github.com/lazuli-storage/lazuli/internal/rule/metadata"
	"github.com/lazuli-storage/lazuli/internal/service/file/smbstate"
)

// maxFileSize is the largest file Azure Files holds: 4 TiB.
const maxFileSize = 4 << 40

// parseSize reads a file size header (x-ms-content-length): 0 to 4 TiB.
// A negative number is 400 OutOfRangeInput (the SDK's recorded
// TestFileResizeInvalidSizeNegative); anything else outside the range, or
// not a number, is 400 InvalidHeaderValue.
func parseSize(h http.Header, name string) (int64, bool, error) {
	raw := strings.TrimSpace(h.Get(name))
	if raw == "" {
		return 0, false, nil
	}
	n, err := strconv.ParseInt(raw, 10, 64)
	switch {
	case err == nil && n < 0:
		return 0, false, azerr.New(azerr.OutOfRangeInput).With("HeaderName", name).With("HeaderValue", raw)
	case err != nil || n > maxFileSize:
		return 0, false, azerr.InvalidHeader(name, raw)
	}
	return n, true, nil
}

// parseContentProps reads the x-ms-content-* and x-ms-cache-control
// headers of Create File and Set File Properties.
func parseContentProps(h http.Header) (contentprops.Props, error) {
	p := contentprops.Props{
		Type:         h.Get("X-Ms-Content-Type"),
		Encoding:     h.Get("X-Ms-Content-Encoding"),
		Language:     h.Get("X-Ms-Content-Language"),
		Disposition:  h.Get("X-Ms-Content-Disposition"),
		CacheControl: h.Get("X-Ms-Cache-Control"),
	}
	var err error
	p.MD5, err = contentprops.ParseMD5Property(h, "x-ms-content-md5")
	return p, err
}

func (s *Service) createFile(w http.ResponseWriter, r *http.Request) error {
	t := targetOf(r)
	if err := readOnlySnapshot(t); err != nil {
		return err
	}
	if err := requireFileType(r.Header); err != nil {
		return err
	}
	size, set, err := parseSize(r.Header, "x-ms-content-length")
	if err != nil {
		return err
	}
	if !set {
		return azerr.MissingHeader("x-ms-content-length")
	}
	props, err := parseContentProps(r.Header)
	if err != nil {
		return err
	}
	if props.Type == "" {
		props.Type = contentprops.DefaultType // "The default type is application/octet-stream."
	}
	meta, err := metadata.Parse(r.Header)
	if err != nil {
		return err
	}
	smb, err := parseSMBRequest(r.Header, false)
	if err != nil {
		return err
	}
	content, err := s.receiveCreateContent(r, size)
	if err != nil {
		return err
	}
	now := s.now()
	leaseID := r.Header.Get(lease.HeaderID)
	var n *node
	err = s.store.Update(r.Context(), func(tx store.Tx) error {
		parent, err := parentFor(tx, t)
		if err != nil {
			return err
		}
		n = &node{Name: t.Path.name(), ID: newFileID(), ParentID: parent.ID, Size: size, Props: props, Metadata: meta}
		old, err := s.replaceable(tx, t, leaseID, false, now)
		if err != nil {
			return err
		}
		delta := size
		if old != nil {
			if err := s.authorizeOverwrite(tx, r, t); err != nil {
				return err
			}
			n.ID, n.ETag, n.Lease = old.ID, old.ETag, old.Lease.AfterWrite(now)
			n.Opens = old.Opens // SMB handles stay open on the replaced file
			n.Links = old.Links // the same file: every name sees it replaced
			delta -= old.Size
			if err := dropRanges(tx, t.Account, t.Share, "", old.ID, now); err != nil {
				return err
			}
		}
		if err := adjustUsage(tx, t, delta); err != nil {
			return err
		}
		n.ETag = etag.Next(now, n.ETag)
		if err := smb.create(tx, t, n, parent, now); err != nil {
			return err
		}
		if err := saveNode(tx, t.Account, t.Share, "", t.Path, n); err != nil {
			return err
		}
		if content == nil {
			return nil
		}
		return writeSegments(tx, t, n.ID, 0, size, []ranges.Segment{{Length: size, Extent: content.ID}}, now)
	})
	if err != nil {
		return err
	}
	if content != nil {
		w.Header().Set("Content-MD5", base64.StdEncoding.EncodeToString(content.MD5[:]))
		structured.EchoUpload(w.Header(), r.Header)
	}
	writeNodeWrite(w, n, http.StatusCreated, nfsOnCreate)
	return nil
}

// requireFileType checks the x-ms-type: file that Create File and Create
// Hard Link take.
func requireFileType(h http.Header) error {
	switch typ := h.Get("X-Ms-Type"); {
	case typ == "":
		return azerr.MissingHeader("x-ms-type")
	case !strings.EqualFold(typ, "file"):
		return azerr.InvalidHeader("x-ms-type", typ)
	}
	return nil
}

// receiveCreateContent reads the content a Create File may carry (newer
// versions let the SDKs create a small file and write it in one request):
// exactly x-ms-content-length bytes, at most 4 MiB, checked against
// Content-MD5, into an extent. It returns nil when the request has no body.
func (s *Service) receiveCreateContent(r *http.Request, size int64) (*extent.Info, error) {
	if _, err := structured.AcceptUpload(r); err != nil {
		return nil, err
	}
	if r.ContentLength <= 0 {
		return nil, nil
	}
	if r.ContentLength != size {
		return nil, azerr.Newf(azerr.InvalidHeaderValue, "A Create File body must be as long as x-ms-content-length.").
			With("HeaderName", "Content-Length").With("HeaderValue", strconv.FormatInt(r.ContentLength, 10))
	}
	if size > maxPutRange {
		return nil, azerr.Newf(azerr.RequestBodyTooLarge, "Create File takes at most 4 MiB of content.")
	}
	wantMD5, err := contentMD5(r.Header)
	if err != nil {
		return nil, err
	}
	info, err := s.extents.Write(r.Context(), request.MarkReads(r.Body), size)
	if request.ShortBody(err) {
		return nil, azerr.Newf(azerr.InvalidInput, "The body is shorter than its Content-Length.")
	}
	if err != nil {
		return nil, request.BodyError(err)
	}
	if info.Size != size {
		return nil, azerr.Newf(azerr.InvalidInput, "The body is shorter than its Content-Length.")
	}
	if wantMD5 != nil && !bytes.Equal(wantMD5, info.MD5[:]) {
		return nil, azerr.New(azerr.Md5Mismatch)
	}
	return &info, nil
}

// replaceable returns the file Create File would replace (nil when there
// is none), after the checks a replace must pass: the lease, open SMB
// handles, and a directory in the way. A lease ID for a missing file is
// 412, as for any write to a resource without a lease.
func (s *Service) replaceable(tx store.Tx, t *target, leaseID string, ignoreReadOnly bool, now time.Time) (*node, error) {
	old, found, err := loadNode(tx, t.Account, t.Share, "", t.Path)
	if err != nil {
		return nil, err
	}
	if !found {
		return nil, lease.Lease{}.CheckWrite(leaseID, now, lease.File)
	}
	if err := forgetDeadOpens(tx, t.live, old); err != nil {
		return nil, err
	}
	switch {
	case old.Dir:
		return nil, azerr.New(azerr.ResourceTypeMismatch)
	case old.DeletePending:
		return nil, azerr.New(azerr.DeletePending)
	}
	if err := old.Lease.CheckWrite(leaseID, now, lease.File); err != nil {
		return nil, err
	}
	if err := smbstate.CheckReadOnly(smbstate.CreateFile, old.SMB.Attrs&attrReadOnly != 0 && !ignoreReadOnly); err != nil {
		return nil, err
	}
	return old, smbstate.Check(smbstate.CreateFile, old.Opens)
}

// adjustUsage moves the share's usage by delta bytes; growth past the
// quota is 413 ShareSizeLimitReached.
func adjustUsage(tx store.Tx, t *target, delta int64) error {
	if delta == 0 {
		return nil
	}
	sh, err := shareFor(tx, &target{Account: t.Account, Share: t.Share})
	if err != nil {
		return err
	}
	if delta > 0 && sh.Usage+delta > sh.Quota*gib {
		return azerr.New(azerr.ShareSizeLimitReached)
	}
	sh.Usage = max(sh.Usage+delta, 0)
	return saveShare(tx, t.Account, t.Share, "", sh)
}

// updateFile runs a write to the live file at t: the lease must allow it
// (x-ms-lease-id), no SMB open may refuse op, change edits the record,
// which then gets a new ETag and forgets an expired or broken lease.
func (s *Service) updateFile(r *http.Request, t *target, op smbstate.Op, change func(tx store.Tx, n *node, now time.Time) error) (*node, error) {
	now := s.now()
	leaseID := r.Header.Get(lease.HeaderID)
	var n *node
	err := s.store.Update(r.Context(), func(tx store.Tx) error {
		var err error
		if n, err = fileFor(tx, t, true); err != nil {
			return err
		}
		if err := n.Lease.CheckWrite(leaseID, now, lease.File); err != nil {
			return err
		}
		if err := smbstate.Check(op, n.Opens); err != nil {
			return err
		}
		if err := smbstate.CheckReadOnly(op, n.SMB.Attrs&attrReadOnly != 0); err != nil {
			return err
		}
		if err := change(tx, n, now); err != nil {
			return err
		}
		n.ETag = etag.Next(now, n.ETag)
		n.Lease = n.Lease.AfterWrite(now)
		return saveNode(tx, t.Account, t.Share, "", t.Path, n)
	})
	return n, err
}

func (s *Service) setFileProperties(w http.ResponseWriter, r *http.Request) error {
	t := targetOf(r)
	if err := readOnlySnapshot(t); err != nil {
		return err
	}
	size, resize, err := parseSize(r.Header, "x-ms-content-length")
	if err != nil {
		return err
	}
	props, err := parseContentProps(r.Header)
	if err != nil {
		return err
	}
	smb, err := parseSMBRequest(r.Header, false)
	if err != nil {
		return err
	}
	n, err := s.updateFile(r, t, smbstate.SetFileProperties, func(tx store.Tx, n *node, now time.Time) error {
		if resize && size != n.Size {
			if err := adjustUsage(tx, t, size-n.Size); err != nil {
				return err
			}
			if size < n.Size {
				if err := truncate(tx, t.Account, t.Share, "", n.ID, size, now); err != nil {
					return err
				}
			}
			n.Size = size
		}
		n.Props = props
		return smb.set(tx, t, n, now)
	})
	if err != nil {
		return err
	}
	writeNodeWrite(w, n, http.StatusOK, nfsOnSet)
	return nil
}

func (s *Service) setFileMetadata(w http.ResponseWriter, r *http.Request) error {
	t := targetOf(r)
	if err := readOnlySnapshot(t); err != nil {
		return err
	}
	meta, err := metadata.Parse(r.Header)
	if err != nil {
		return err
	}
	n, err := s.updateFile(r, t, smbstate.SetFileMetadata, func(_ store.Tx, n *node, _ time.Time) error {
		n.Metadata = meta
		return nil
	})
	if err != nil {
		return err
	}
	writeMetadataSet(w, n)
	return nil
}

func (s *Service) getFileMetadata(w http.ResponseWriter, r *http.Request) error {
	t := targetOf(r)
	now := s.now()
	var n *node
	err := s.store.View(r.Context(), func(tx store.Tx) error {
		var err error
		if n, err = fileFor(tx, t, false); err != nil {
			return err
		}
		return n.Lease.CheckRead(r.Header.Get(lease.HeaderID), now, lease.File)
	})
	if err != nil {
		return err
	}
	h := w.Header()
	setETag(h, n.ETag)
	n.Metadata.WriteHeaders(h)
	w.WriteHeader(http.StatusOK)
	return nil
}

func (s *Service) deleteFile(w http.ResponseWriter, r *http.Request) error {
	t := targetOf(r)
	if err := readOnlySnapshot(t); err != nil {
		return err
	}
	now := s.now()
	leaseID := r.Header.Get(lease.HeaderID)
	var nfs bool
	var left uint32
	err := s.store.Update(r.Context(), func(tx store.Tx) error {
		n, err := fileFor(tx, t, true)
		if err != nil {
			return err
		}
		if err := n.Lease.CheckWrite(leaseID, now, lease.File); err != nil {
			return err
		}
		if err := smbstate.Check(smbstate.DeleteFile, n.Opens); err != nil {
			return err
		}
		nfs = n.NFS != nil
		left, err = unlinkName(tx, t, nodeKeyOf(t.Account, t.Share, "", t.Path), n, now)
		return err
	})
	if err != nil {
		return err
	}
	if nfs {
		// The file's names left (0 when it went), as the service answers
		// on NFS shares.
		w.Header().Set("X-Ms-Link-Count", strconv.FormatUint(uint64(left), 10))
	}
	w.WriteHeader(http.StatusAccepted)
	return nil
}
