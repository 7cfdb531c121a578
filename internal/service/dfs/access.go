package dfs

import (
	"net/http"
	"time"

	"github.com/lazuli-storage/lazuli/internal/engine/store"
	"github.com/lazuli-storage/lazuli/internal/frame/request"
	"github.com/lazuli-storage/lazuli/internal/rule/azerr"
	"github.com/lazuli-storage/lazuli/internal/rule/cond"
	"github.com/lazuli-storage/lazuli/internal/rule/lease"
	"github.com/lazuli-storage/lazuli/internal/rule/posixacl"
	"github.com/lazuli-storage/lazuli/internal/service/blobdata"
)

// Request headers of a path's access control (Path - Create, Path -
// Update setAccessControl, Path - Get Properties getAccessControl).
const (
	headerOwner       = "x-ms-owner"
	headerGroup       = "x-ms-group"
	headerPermissions = "x-ms-permissions"
	headerACL         = "x-ms-acl"
	headerUmask       = "x-ms-umask"
)

// accessChange is what setAccessControl asks: a new owner or owning
// group, and permission bits or a whole ACL ("x-ms-permissions ... is
// mutually exclusive with x-ms-acl", Path - Update).
type accessChange struct {
	owner, group string
	mode         *posixacl.Mode
	acl          posixacl.ACL
}

// parseAccessChange reads x-ms-owner, x-ms-group, x-ms-acl and, when
// withPermissions, x-ms-permissions (Path - Create reads its own, which
// the umask restricts); x-ms-acl beside x-ms-permissions is 400
// InvalidHeaderValue.
func parseAccessChange(h http.Header, withPermissions bool) (accessChange, error) {
	c := accessChange{owner: h.Get(headerOwner), group: h.Get(headerGroup)}
	if v := h.Get(headerPermissions); v != "" && withPermissions {
		m, err := posixacl.ParsePermissions(v)
		if err != nil {
			return c, err
		}
		c.mode = &m
	}
	if v := h.Get(headerACL); v != "" {
		if h.Get(headerPermissions) != "" {
			return c, azerr.InvalidHeader(headerACL, v)
		}
		acl, err := posixacl.ParseACL(v)
		if err != nil {
			return c, err
		}
		c.acl = acl
	}
	return c, nil
}

// apply makes the change to a path's state: the ACL replaces the whole
// ACL (posixacl.Set), the bits go where posixacl.WithMode puts them.
func (c accessChange) apply(state blobdata.PosixState, dir bool) (blobdata.PosixState, error) {
	if c.owner != "" {
		state.Owner = c.owner
	}
	if c.group != "" {
		state.Group = c.group
	}
	if c.mode != nil {
		state.ACL = posixacl.WithMode(state.ACL, *c.mode)
		state.Sticky = c.mode.IsSticky()
	}
	if c.acl != nil {
		acl, err := posixacl.Set(c.acl, dir)
		if err != nil {
			return state, err
		}
		state.ACL = acl
	}
	return state, nil
}

// setAccessControl is Path - Update action=setAccessControl: the owner,
// owning group, permissions or ACL of a file or directory, under its
// lease and the conditional headers; the path gets a new ETag. Paths of a
// flat account have no ACLs (400 HierarchicalNamespaceNotEnabled), nor
// does getAccessControl or setAccessControlRecursive read or change any
// there.
func (s *Service) setAccessControl(w http.ResponseWriter, r *http.Request) error {
	if err := s.onlyHNS(r); err != nil {
		return err
	}
	change, err := parseAccessChange(r.Header, true)
	if err != nil {
		return err
	}
	b, err := s.updatePath(r, func(_ store.Tx, b *blobdata.Blob, now time.Time) error {
		if err := b.Lease.CheckWrite(leaseID(r), now, lease.Blob); err != nil {
			return err
		}
		dir := b.IsDirectory()
		state, err := change.apply(b.Access(dir), dir)
		if err != nil {
			return err
		}
		b.Posix = state
		touch(b, now)
		return nil
	})
	if err != nil {
		return err
	}
	w.Header().Set("Content-Length", "0")
	return answerChange(w, b, http.StatusOK)
}

// getAccessControl is Path - Get Properties action=getAccessControl: the
// path's x-ms-owner, x-ms-group, x-ms-permissions and x-ms-acl
// (writeAccess). ?upn=true asks for user principal names instead of
// object IDs, which are the names Bearer tokens told (upn.go).
func (s *Service) getAccessControl(w http.ResponseWriter, r *http.Request) error {
	if err := s.onlyHNS(r); err != nil {
		return err
	}
	upn, err := queryBool(r, "upn")
	if err != nil {
		return err
	}
	conds, err := cond.Parse(r.Header)
	if err != nil {
		return err
	}
	b, err := s.viewPath(r)
	if err != nil {
		return err
	}
	now := s.now()
	if err := b.Lease.CheckRead(leaseID(r), now, lease.Blob); err != nil {
		return err
	}
	if err := conds.CheckRead(resourceOf(b), request.Of(r).Version); err != nil {
		return err
	}
	access, err := s.accessAsAsked(r, upn, b.Access(b.IsDirectory()))
	if err != nil {
		return err
	}
	writeAccess(w.Header(), access)
	w.Header().Set("Content-Length", "0")
	return answerChange(w, b, http.StatusOK)
}

// getRootAccessControl is getAccessControl of a filesystem's root
// directory (the filesystem URL, or with a trailing slash), which no blob
// record holds: what setRootAccessControl stored on the filesystem, else
// $superuser's rwxr-x--- without a default ACL (blobdata.RootPosixState),
// under the filesystem's ETag.
func (s *Service) getRootAccessControl(w http.ResponseWriter, r *http.Request) error {
	if err := s.onlyHNS(r); err != nil {
		return err
	}
	upn, err := queryBool(r, "upn")
	if err != nil {
		return err
	}
	var c *blobdata.Container
	err = s.store.View(r.Context(), func(tx store.Tx) error {
		var err error
		c, err = loadFilesystem(tx, request.Of(r).Account, targetOf(r).Filesystem)
		return err
	})
	if err != nil {
		return err
	}
	access, err := s.accessAsAsked(r, upn, c.RootAccess())
	if err != nil {
		return err
	}
	writeAccess(w.Header(), access)
	return answerRoot(w, c)
}

// setRootAccessControl is setAccessControl of a filesystem's root
// directory: the root, which "can be assigned ACLs" as any directory
// ("Access control lists (ACLs) in Azure Data Lake Storage"), keeps its
// state on the filesystem's record; the conditional headers are checked
// against the filesystem's ETag, which the change leaves as it is.
func (s *Service) setRootAccessControl(w http.ResponseWriter, r *http.Request) error {
	if err := s.onlyHNS(r); err != nil {
		return err
	}
	change, err := parseAccessChange(r.Header, true)
	if err != nil {
		return err
	}
	conds, err := cond.Parse(r.Header)
	if err != nil {
		return err
	}
	account, name := request.Of(r).Account, targetOf(r).Filesystem
	var c *blobdata.Container
	err = s.store.Update(r.Context(), func(tx store.Tx) error {
		if c, err = loadFilesystem(tx, account, name); err != nil {
			return err
		}
		if err := conds.CheckWrite(c.Resource()); err != nil {
			return err
		}
		if c.RootPosix, err = change.apply(c.RootAccess(), true); err != nil {
			return err
		}
		return blobdata.SaveContainer(tx, account, name, c)
	})
	if err != nil {
		return err
	}
	return answerRoot(w, c)
}

// loadFilesystem reads a filesystem's record: 404 FilesystemNotFound when
// there is none.
func loadFilesystem(tx store.Tx, account, name string) (*blobdata.Container, error) {
	c, found, err := blobdata.LoadContainer(tx, account, name)
	if err == nil && !found {
		err = azerr.New(azerr.FilesystemNotFound)
	}
	return c, err
}

// answerRoot answers an access control operation of a filesystem's root
// under the filesystem's ETag.
func answerRoot(w http.ResponseWriter, c *blobdata.Container) error {
	h := w.Header()
	h.Set("ETag", c.ETagString())
	h.Set("Last-Modified", httpTime(c.ETag.Time()))
	h.Set("Content-Length", "0")
	w.WriteHeader(http.StatusOK)
	return nil
}

// writeAccess writes a path's access control as getAccessControl
// answers it: x-ms-permissions symbolic, with '+' when the ACL has more
// than the three base entries.
func writeAccess(h http.Header, state blobdata.PosixState) {
	h.Set(headerOwner, state.Owner)
	h.Set(headerGroup, state.Group)
	h.Set(headerPermissions, state.Mode().Symbolic(state.ACL.Extended()))
	h.Set(headerACL, state.ACL.String())
}
