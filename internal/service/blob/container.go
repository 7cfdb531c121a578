package blob

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/lazuli-storage/lazuli/internal/engine/store"
	"github.com/lazuli-storage/lazuli/internal/frame/request"
	"github.com/lazuli-storage/lazuli/internal/rule/azerr"
	"github.com/lazuli-storage/lazuli/internal/rule/cond"
	"github.com/lazuli-storage/lazuli/internal/rule/etag"
	"github.com/lazuli-storage/lazuli/internal/rule/lease"
	"github.com/lazuli-storage/lazuli/internal/rule/metadata"
	"github.com/lazuli-storage/lazuli/internal/service/blobdata"
)

// parsePublicAccess reads x-ms-blob-public-access: absent is private.
func parsePublicAccess(h http.Header) (byte, error) {
	raw := h.Get("X-Ms-Blob-Public-Access")
	switch strings.ToLower(raw) {
	case "":
		return blobdata.AccessPrivate, nil
	case "blob":
		return blobdata.AccessBlob, nil
	case "container":
		return blobdata.AccessContainer, nil
	}
	return 0, azerr.InvalidHeader("x-ms-blob-public-access", raw)
}

func publicAccessName(level byte) string {
	switch level {
	case blobdata.AccessBlob:
		return "blob"
	case blobdata.AccessContainer:
		return "container"
	}
	return ""
}

// containerConditions parses the request's conditional headers and rejects
// the ones the operation does not accept.
func containerConditions(r *http.Request, allowed cond.Allowed) (cond.Conditions, error) {
	c, err := cond.Parse(r.Header)
	if err != nil {
		return c, err
	}
	return c, c.Restrict(allowed)
}

// setContainerHeaders writes ETag and Last-Modified.
func setContainerHeaders(h http.Header, c *blobdata.Container) {
	h.Set("ETag", c.ETagString())
	h.Set("Last-Modified", httpTime(c.ETag.Time()))
}

// createContainer is Create Container.
func (s *Service) createContainer(w http.ResponseWriter, r *http.Request) error {
	t := targetOf(r)
	if err := validContainerName(t.Container); err != nil {
		return err
	}
	if _, err := containerConditions(r, 0); err != nil {
		return err
	}
	md, err := metadata.Parse(r.Header)
	if err != nil {
		return err
	}
	public, err := parsePublicAccess(r.Header)
	if err != nil {
		return err
	}
	scope, denyOverride, err := s.parseContainerScope(r.Header)
	if err != nil {
		return err
	}
	account := request.Of(r).Account
	var rec *blobdata.Container
	err = s.store.Update(r.Context(), func(tx store.Tx) error {
		old, found, err := blobdata.LoadContainer(tx, account, t.Container)
		switch {
		case err != nil:
			return err
		case found:
			return azerr.New(azerr.ContainerAlreadyExists)
		case old != nil:
			return azerr.New(azerr.ContainerBeingDeleted)
		}
		now := s.now()
		rec = &blobdata.Container{ETag: etag.Next(now, 0), Created: now, Public: public, Metadata: md,
			DefaultScope: scope, DenyScopeOverride: denyOverride}
		return blobdata.SaveContainer(tx, account, t.Container, rec)
	})
	if err != nil {
		return err
	}
	s.recentlyDeleted.Created(account, t.Container)
	setContainerHeaders(w.Header(), rec)
	return write(w, http.StatusCreated)
}

// viewContainer loads the target container for a read; a lease ID on the
// request must name the container's active lease.
func (s *Service) viewContainer(r *http.Request) (*blobdata.Container, error) {
	t := targetOf(r)
	if err := validContainerName(t.Container); err != nil {
		return nil, err
	}
	if _, err := containerConditions(r, 0); err != nil {
		return nil, err
	}
	var rec *blobdata.Container
	err := s.store.View(r.Context(), func(tx store.Tx) error {
		c, err := existingContainer(tx, r)
		if err != nil {
			return err
		}
		rec = c
		return c.Lease.CheckRead(leaseID(r), s.now(), lease.Container)
	})
	return rec, err
}

// existingContainer loads the target container: 404 ContainerNotFound
// when there is none.
func existingContainer(tx store.Tx, r *http.Request) (*blobdata.Container, error) {
	t := targetOf(r)
	c, found, err := blobdata.LoadContainer(tx, request.Of(r).Account, t.Container)
	if err != nil {
		return nil, err
	}
	if !found {
		return nil, containerNotFound()
	}
	return c, nil
}

// getContainerProperties is Get Container Properties.
func (s *Service) getContainerProperties(w http.ResponseWriter, r *http.Request) error {
	c, err := s.viewContainer(r)
	if err != nil {
		return err
	}
	h := w.Header()
	setContainerHeaders(h, c)
	c.Metadata.WriteHeaders(h)
	setLeaseHeaders(h, c.Lease, s.now())
	if c.Public != blobdata.AccessPrivate {
		h.Set("X-Ms-Blob-Public-Access", publicAccessName(c.Public))
	}
	h.Set("X-Ms-Has-Immutability-Policy", "false")
	h.Set("X-Ms-Has-Legal-Hold", "false")
	h.Set("X-Ms-Default-Encryption-Scope", containerScopeName(c))
	h.Set("X-Ms-Deny-Encryption-Scope-Override", strconv.FormatBool(c.DenyScopeOverride))
	vlw, err := s.immutableVersions(r)
	if err != nil {
		return err
	}
	h.Set("X-Ms-Immutable-Storage-With-Versioning-Enabled", boolText(vlw))
	return write(w, http.StatusOK)
}

// getContainerMetadata is Get Container Metadata.
func (s *Service) getContainerMetadata(w http.ResponseWriter, r *http.Request) error {
	c, err := s.viewContainer(r)
	if err != nil {
		return err
	}
	setContainerHeaders(w.Header(), c)
	c.Metadata.WriteHeaders(w.Header())
	return write(w, http.StatusOK)
}

// updateContainer runs change on the target container in one Update after
// the optional lease ID check and the conditions. change
// returns whether the container's ETag moves (lease operations keep it).
func (s *Service) updateContainer(r *http.Request, conds cond.Conditions, change func(*blobdata.Container) (bool, error)) (*blobdata.Container, error) {
	t := targetOf(r)
	account := request.Of(r).Account
	var rec *blobdata.Container
	err := s.store.Update(r.Context(), func(tx store.Tx) error {
		c, err := existingContainer(tx, r)
		if err != nil {
			return err
		}
		if err := conds.CheckWrite(c.Resource()); err != nil {
			return err
		}
		modified, err := change(c)
		if err != nil {
			return err
		}
		if modified {
			c.ETag = etag.Next(s.now(), c.ETag)
		}
		rec = c
		return blobdata.SaveContainer(tx, account, t.Container, c)
	})
	return rec, err
}

// setContainerMetadata is Set Container Metadata: it replaces all metadata
// and moves the ETag. Only If-Modified-Since is accepted.
func (s *Service) setContainerMetadata(w http.ResponseWriter, r *http.Request) error {
	if err := validContainerName(targetOf(r).Container); err != nil {
		return err
	}
	conds, err := containerConditions(r, cond.IfModifiedSince)
	if err != nil {
		return err
	}
	md, err := metadata.Parse(r.Header)
	if err != nil {
		return err
	}
	c, err := s.updateContainer(r, conds, func(c *blobdata.Container) (bool, error) {
		if err := c.Lease.CheckRead(leaseID(r), s.now(), lease.Container); err != nil {
			return false, err
		}
		c.Metadata = md
		return true, nil
	})
	if err != nil {
		return err
	}
	setContainerHeaders(w.Header(), c)
	return write(w, http.StatusOK)
}

// leaseContainer is Lease Container: the lease state machine of package
// lease; the container's ETag and Last-Modified stay as they were.
func (s *Service) leaseContainer(w http.ResponseWriter, r *http.Request) error {
	if err := validContainerName(targetOf(r).Container); err != nil {
		return err
	}
	conds, err := containerConditions(r, cond.IfModifiedSince|cond.IfUnmodifiedSince)
	if err != nil {
		return err
	}
	req, err := lease.ParseRequest(r.Header, lease.Container)
	if err != nil {
		return err
	}
	var res lease.Result
	c, err := s.updateContainer(r, conds, func(c *blobdata.Container) (bool, error) {
		next, result, err := lease.Apply(c.Lease, req, s.now(), lease.Container)
		c.Lease, res = next, result
		return false, err
	})
	if err != nil {
		return err
	}
	setContainerHeaders(w.Header(), c)
	setLeaseResult(w.Header(), res)
	return write(w, res.Status)
}
