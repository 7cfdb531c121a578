package dfs

import (
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/lazuli-storage/lazuli/internal/engine/store"
	"github.com/lazuli-storage/lazuli/internal/frame/request"
	"github.com/lazuli-storage/lazuli/internal/rule/azerr"
	"github.com/lazuli-storage/lazuli/internal/rule/cond"
	"github.com/lazuli-storage/lazuli/internal/rule/lease"
	"github.com/lazuli-storage/lazuli/internal/service/blobdata"
)

// Rename headers ("Path - Create": x-ms-rename-source names the source as
// /{filesystem}/{path}, optionally with ?{sas}).
const (
	renameSourceHeader = "x-ms-rename-source"
	sourceLeaseHeader  = "x-ms-source-lease-id"
)

// renameSource is the parsed x-ms-rename-source.
type renameSource struct {
	Filesystem, Path string
}

// parseRenameSource reads x-ms-rename-source. The path may be
// percent-encoded (the Python and .NET SDKs quote it; Go's sends it as
// is) and, on a path-style URL, start with the account, as the SDKs take
// it from the source URL's path. Anything but /filesystem/path is 400
// InvalidSourceUri.
func parseRenameSource(r *http.Request) (renameSource, error) {
	raw := r.Header.Get(renameSourceHeader)
	p, _, _ := strings.Cut(raw, "?")
	if strings.Contains(p, "%") {
		unescaped, err := url.PathUnescape(p)
		if err != nil {
			return renameSource{}, azerr.New(azerr.InvalidSourceUri)
		}
		p = unescaped
	}
	p = strings.TrimPrefix(p, "/")
	if info := request.Of(r); info.PathStyle {
		if account, rest, ok := strings.Cut(p, "/"); ok && account == info.Account {
			p = rest
		}
	}
	fs, name, _ := strings.Cut(p, "/")
	name = strings.Trim(name, "/")
	if fs == "" || name == "" {
		return renameSource{}, azerr.New(azerr.InvalidSourceUri)
	}
	return renameSource{Filesystem: fs, Path: name}, nil
}

// renameArgs are a rename's parsed request.
type renameArgs struct {
	src                  renameSource
	conds, srcConds      cond.Conditions
	leaseID, sourceLease string
}

func parseRename(r *http.Request) (renameArgs, error) {
	var a renameArgs
	var err error
	switch mode := r.URL.Query().Get("mode"); strings.ToLower(mode) {
	case "", "legacy", "posix":
	default:
		return a, azerr.InvalidQuery("mode", mode, "")
	}
	if a.src, err = parseRenameSource(r); err != nil {
		return a, err
	}
	if a.conds, err = cond.Parse(r.Header); err != nil {
		return a, err
	}
	if a.srcConds, err = cond.ParseSource(r.Header); err != nil {
		return a, err
	}
	a.leaseID, a.sourceLease = leaseID(r), r.Header.Get(sourceLeaseHeader)
	return a, nil
}

// renamePath is Path - Create with x-ms-rename-source (mode=legacy or
// posix): the source path, a directory with everything under it, moves
// to the request's path in one transaction (blobdata.Move), only on an
// account with a hierarchical namespace. The source conditions and lease
// are checked against the source (412 SourceConditionNotMet), the
// others against the destination; the source must exist (404
// SourcePathNotFound), the destination's parent too (404
// RenameDestinationParentPathNotFound), and a directory cannot move into
// itself (400 InvalidRenameSourcePath). A destination that exists is
// replaced, as Delete would remove it, unless it is a directory with
// paths in it (409 DirectoryNotEmpty) or of the other resource type (409
// InvalidSourceOrDestinationResourceType).
func (s *Service) renamePath(w http.ResponseWriter, r *http.Request) error {
	if err := s.onlyHNS(r); err != nil {
		return err
	}
	a, err := parseRename(r)
	if err != nil {
		return err
	}
	// Moving takes m on the source as well as on the destination (the
	// row's declaration): a SAS for one path moves nothing out of another.
	if err := s.authorizeRenameSource(r, a.src); err != nil {
		return err
	}
	info := request.Of(r)
	t := targetOf(r)
	var moved *blobdata.Blob
	err = s.store.Update(r.Context(), func(tx store.Tx) error {
		var err error
		moved, err = s.rename(tx, info.Account, a, t)
		return err
	})
	if err != nil {
		return err
	}
	h := w.Header()
	h.Set("ETag", moved.ETagString())
	h.Set("Last-Modified", httpTime(moved.LastModified()))
	h.Set("Content-Length", "0")
	w.WriteHeader(http.StatusCreated)
	return nil
}

// rename runs the checks and the move in tx and returns the moved path.
func (s *Service) rename(tx store.Tx, account string, a renameArgs, t target) (*blobdata.Blob, error) {
	now := s.now()
	if err := existingFilesystem(tx, account, t.Filesystem); err != nil {
		return nil, err
	}
	if a.src.Filesystem != t.Filesystem {
		if err := existingFilesystem(tx, account, a.src.Filesystem); err != nil {
			return nil, err
		}
	}
	src, err := pathForWrite(tx, account, a.src.Filesystem, a.src.Path, now)
	if err != nil {
		return nil, err
	}
	if src == nil {
		return nil, azerr.New(azerr.SourcePathNotFound)
	}
	if err := a.srcConds.CheckSource(resourceOf(src)); err != nil {
		return nil, err
	}
	if err := src.Lease.CheckWrite(a.sourceLease, now, lease.Blob); err != nil {
		return nil, err
	}
	dir := src.IsDirectory()
	sameFS := a.src.Filesystem == t.Filesystem
	if sameFS && (t.Path == a.src.Path || dir && strings.HasPrefix(t.Path, a.src.Path+"/")) {
		return nil, azerr.New(azerr.InvalidRenameSourcePath)
	}
	if err := destinationParent(tx, account, t, now); err != nil {
		return nil, err
	}
	if err := s.clearDestination(tx, account, a, t, dir, now); err != nil {
		return nil, err
	}
	m := blobdata.Move{Account: account, FromContainer: a.src.Filesystem, From: a.src.Path,
		ToContainer: t.Filesystem, To: t.Path, Tree: dir, Now: now}
	if _, err := m.Run(tx); err != nil {
		return nil, err
	}
	return src, nil
}

// destinationParent fails with 404 RenameDestinationParentPathNotFound
// unless the destination's parent directory exists.
func destinationParent(tx store.Tx, account string, t target, now time.Time) error {
	parents := blobdata.Parents(t.Path)
	if len(parents) == 0 {
		return nil
	}
	p, err := pathForWrite(tx, account, t.Filesystem, parents[len(parents)-1], now)
	if err != nil {
		return err
	}
	if p == nil || !p.IsDirectory() {
		return azerr.New(azerr.RenameDestinationParentPathNotFound)
	}
	return nil
}

// clearDestination checks the destination conditions and lease and
// removes what the destination holds, which the move replaces: a path of
// the source's resource type (a directory only when empty), deleted as
// Path - Delete deletes it, or a placeholder's uncommitted blocks.
func (s *Service) clearDestination(tx store.Tx, account string, a renameArgs, t target, dir bool, now time.Time) error {
	old, _, err := blobdata.LoadBlob(tx, account, t.Filesystem, t.Path)
	if err != nil {
		return err
	}
	dst, err := pathForWrite(tx, account, t.Filesystem, t.Path, now)
	if err != nil {
		return err
	}
	if err := a.conds.CheckWrite(resourceOf(dst)); err != nil {
		return err
	}
	refs := blobdata.RefDelta{}
	switch {
	case dst == nil && old != nil && old.Committed:
		// It had expired and pathForWrite removed it.
		return (lease.Lease{}).CheckWrite(a.leaseID, now, lease.Blob)
	case dst == nil && old != nil:
		if err := (lease.Lease{}).CheckWrite(a.leaseID, now, lease.Blob); err != nil {
			return err
		}
		if err := blobdata.RemoveBlob(tx, account, t.Filesystem, t.Path, old, refs); err != nil {
			return err
		}
		return refs.Apply(tx, now)
	case dst == nil:
		return (lease.Lease{}).CheckWrite(a.leaseID, now, lease.Blob)
	case dst.IsDirectory() != dir:
		return azerr.New(azerr.InvalidSourceOrDestinationResource)
	}
	if dir {
		if err := refuseNonEmpty(tx, account, t); err != nil {
			return err
		}
	}
	pol, err := blobdata.LoadPolicy(tx, account, s.versioningDefault)
	if err != nil {
		return err
	}
	del := blobdata.TreeDeletion{Account: account, Container: t.Filesystem, Dir: t.Path, Now: now, Policy: pol,
		Refs: refs, Limit: 1, LeaseID: a.leaseID}
	if _, _, err := del.Run(tx, ""); err != nil {
		return err
	}
	return refs.Apply(tx, now)
}
