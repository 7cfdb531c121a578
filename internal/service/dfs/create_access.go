package dfs

import (
	"net/http"

	"github.com/lazuli-storage/lazuli/internal/engine/store"
	"github.com/lazuli-storage/lazuli/internal/frame/request"
	"github.com/lazuli-storage/lazuli/internal/rule/posixacl"
	"github.com/lazuli-storage/lazuli/internal/service/blob"
	"github.com/lazuli-storage/lazuli/internal/service/blobdata"
)

// createAccess is the access control a Path - Create request gives the
// path it makes on an account with a hierarchical namespace: read and
// checked before anything is created (400 InvalidPermission,
// InvaldAccessControlList, InvalidHeaderValue), stored once Put Blob has
// made the path and before its answer goes out (hold, finish).
type createAccess struct {
	s       *Service
	r       *http.Request
	path    posixacl.NewPath
	change  accessChange
	creator posixacl.Principal
	held    *heldAnswer
}

// accessOnCreate reads x-ms-permissions, x-ms-umask, x-ms-owner,
// x-ms-group and x-ms-acl of a Path - Create request. On a flat account
// it asks nothing: paths there have no ACLs.
func (s *Service) accessOnCreate(r *http.Request, dir bool) (*createAccess, error) {
	a := &createAccess{s: s, r: r, path: posixacl.NewPath{Directory: dir}, creator: blob.Creator(r)}
	if !s.hnsAccount(r) {
		return a, nil
	}
	h := r.Header
	if v := h.Get(headerPermissions); v != "" {
		m, err := posixacl.ParsePermissions(v)
		if err != nil {
			return nil, err
		}
		a.path.Permissions = &m
	}
	if v := h.Get(headerUmask); v != "" {
		m, err := posixacl.ParseUmask(v)
		if err != nil {
			return nil, err
		}
		a.path.Umask = &m
	}
	var err error
	if a.change, err = parseAccessChange(h, false); err != nil {
		return nil, err
	}
	if a.change.acl != nil {
		if a.change.acl, err = posixacl.Set(a.change.acl, dir); err != nil {
			return nil, err
		}
	}
	return a, nil
}

// hold returns the writer Put Blob answers on, which keeps the answer's
// status back until finish.
func (a *createAccess) hold(w http.ResponseWriter) http.ResponseWriter {
	a.held = &heldAnswer{ResponseWriter: w}
	return a.held
}

// finish stores the new path's access control once Put Blob (whose
// error is createErr) has created it, then lets the answer go: the
// creator owns the path, which takes its parent directory's owning group
// and default ACL, or the requested bits less the umask
// (blobdata.NewPosixState), then what x-ms-owner, x-ms-group and x-ms-acl
// say. The ETag Put Blob answered stays the path's.
func (a *createAccess) finish(createErr error) error {
	if createErr != nil || !a.s.hnsAccount(a.r) || a.held.status >= 300 {
		return a.held.release(createErr)
	}
	t, account := targetOf(a.r), request.Of(a.r).Account
	err := a.s.store.Update(a.r.Context(), func(tx store.Tx) error {
		b, err := pathForWrite(tx, account, t.Filesystem, t.Path, a.s.now())
		if err != nil || b == nil {
			return err
		}
		parent, err := blobdata.ParentAccess(tx, account, t.Filesystem, t.Path, a.s.now())
		if err != nil {
			return err
		}
		state, err := a.change.apply(blobdata.NewPosixState(parent, a.path, a.creator), a.path.Directory)
		if err != nil {
			return err
		}
		b.Posix = state
		return blobdata.SaveBlob(tx, account, t.Filesystem, t.Path, b)
	})
	return a.held.release(err)
}

// heldAnswer is a ResponseWriter whose status waits for release; a body
// write lets it go at once.
type heldAnswer struct {
	http.ResponseWriter
	status int
	sent   bool
}

func (h *heldAnswer) WriteHeader(code int) {
	if h.status == 0 {
		h.status = code
	}
}

func (h *heldAnswer) Write(b []byte) (int, error) {
	if h.status == 0 {
		h.status = http.StatusOK
	}
	h.send()
	return h.ResponseWriter.Write(b)
}

// release sends the held status unless err says the request failed, in
// which case the caller renders err.
func (h *heldAnswer) release(err error) error {
	if err == nil && h.status != 0 {
		h.send()
	}
	return err
}

func (h *heldAnswer) send() {
	if !h.sent {
		h.sent = true
		h.ResponseWriter.WriteHeader(h.status)
	}
}
