package blob

import (
	"net/http"

	"github.com/lazuli-storage/lazuli/internal/frame/accesspolicy"
	"github.com/lazuli-storage/lazuli/internal/rule/cond"
	"github.com/lazuli-storage/lazuli/internal/rule/lease"
	"github.com/lazuli-storage/lazuli/internal/service/blobdata"
)

// getContainerACL is Get Container ACL: the stored access policies and the
// public access level.
func (s *Service) getContainerACL(w http.ResponseWriter, r *http.Request) error {
	c, err := s.viewContainer(r)
	if err != nil {
		return err
	}
	h := w.Header()
	setContainerHeaders(h, c)
	if c.Public != blobdata.AccessPrivate {
		h.Set("X-Ms-Blob-Public-Access", publicAccessName(c.Public))
	}
	x := newXMLWriter()
	accesspolicy.Write(x, c.ACL)
	return x.Send(w, http.StatusOK)
}

// setContainerACL is Set Container ACL: it replaces the stored access
// policies (an empty body clears them) and the public access level (absent
// means private), and moves the ETag.
func (s *Service) setContainerACL(w http.ResponseWriter, r *http.Request) error {
	if err := validContainerName(targetOf(r).Container); err != nil {
		return err
	}
	conds, err := containerConditions(r, cond.IfModifiedSince|cond.IfUnmodifiedSince)
	if err != nil {
		return err
	}
	public, err := parsePublicAccess(r.Header)
	if err != nil {
		return err
	}
	policies, err := accesspolicy.Read(r, accesspolicy.ContainerLetters)
	if err != nil {
		return err
	}
	c, err := s.updateContainer(r, conds, func(c *blobdata.Container) (bool, error) {
		if err := c.Lease.CheckRead(leaseID(r), s.now(), lease.Container); err != nil {
			return false, err
		}
		c.ACL, c.Public = policies, public
		return true, nil
	})
	if err != nil {
		return err
	}
	setContainerHeaders(w.Header(), c)
	return write(w, http.StatusOK)
}
