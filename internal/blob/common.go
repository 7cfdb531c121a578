package blob

import (
	"context"
	"net/http"
	"strconv"
	"time"

	"github.com/lazuli-storage/lazuli/internal/accesspolicy"
	"github.com/lazuli-storage/lazuli/internal/auth"
	"github.com/lazuli-storage/lazuli/internal/azerr"
	"github.com/lazuli-storage/lazuli/internal/lease"
	"github.com/lazuli-storage/lazuli/internal/request"
)

func withTarget(r *http.Request, t target) *http.Request {
	return r.WithContext(context.WithValue(r.Context(), ctxTarget{}, t))
}

// targetOf returns the container and blob Handle parsed.
func targetOf(r *http.Request) target {
	t, _ := r.Context().Value(ctxTarget{}).(target)
	return t
}

func (s *Service) now() time.Time { return s.clock.Now() }

// access describes what an operation needs for authorization.
type access struct {
	level  auth.ResourceType
	perm   string
	public bool // an anonymous caller may do this on a public container
	// publicLevel is the least public access level that allows it.
	publicLevel byte
	// serviceSASDenied: no service SAS may do this.
	serviceSASDenied bool
	// keyOnly: only the account key may do this (container ACLs).
	keyOnly bool
	// overwrite is the access a write that created needs instead when its
	// target already exists: the create permission (c) writes new blobs
	// only, replacing one needs write (w).
	overwrite *access
}

// Access levels of the operations.
var (
	readBlob   = access{level: auth.ResourceObject, perm: "r", public: true, publicLevel: accessBlob}
	writeBlob  = access{level: auth.ResourceObject, perm: "w"}
	createBlob = access{level: auth.ResourceObject, perm: "cw", overwrite: &writeBlob}
	deleteBlob = access{level: auth.ResourceObject, perm: "d"}
	// The delete permission also lets a SAS break a lease (version
	// 2017-07-29 on); acquiring, renewing, changing and releasing one need
	// write.
	leaseBlob       = access{level: auth.ResourceObject, perm: "w"}
	breakBlobLease  = access{level: auth.ResourceObject, perm: "wd"}
	readContainer   = access{level: auth.ResourceContainer, perm: "r", public: true, publicLevel: accessContainer}
	listContainer   = access{level: auth.ResourceContainer, perm: "l", public: true, publicLevel: accessContainer}
	writeContainer  = access{level: auth.ResourceContainer, perm: "w", serviceSASDenied: true}
	createContainer = access{level: auth.ResourceContainer, perm: "cw", serviceSASDenied: true}
	deleteContainer = access{level: auth.ResourceContainer, perm: "d", serviceSASDenied: true}
	leaseContainer  = access{level: auth.ResourceContainer, perm: "w", serviceSASDenied: true}
	breakContainer  = access{level: auth.ResourceContainer, perm: "wd", serviceSASDenied: true}
	// Container ACLs are the account owner's: no SAS of any kind.
	ownerContainer = access{level: auth.ResourceContainer, perm: "r", keyOnly: true}
)

// authorize checks the caller may perform an operation of kind a on t,
// given the container record when it exists (for its stored access
// policies and public access level).
func authorize(r *http.Request, t target, a access, c *containerRecord) error {
	id := request.Of(r).Identity
	if id == nil {
		return azerr.New(azerr.NoAuthenticationInformation)
	}
	acc := auth.Access{Service: auth.Blob, ResourceType: a.level, Perm: a.perm,
		Container: t.Container, Object: t.Blob, ServiceSASDenied: a.serviceSASDenied, KeyOnly: a.keyOnly}
	if c != nil {
		acc.Policy = c.policy
		acc.PublicRead = a.public && !c.Deleting && c.Public >= a.publicLevel
	}
	return id.Authorize(acc)
}

// leaseAccess is the access a lease action needs: break also takes the
// delete permission, every other action write.
func leaseAccess(action string, onContainer bool) access {
	switch {
	case onContainer && action == lease.Break:
		return breakContainer
	case onContainer:
		return leaseContainer
	case action == lease.Break:
		return breakBlobLease
	}
	return leaseBlob
}

// policy looks up a stored access policy for service SAS.
func (c *containerRecord) policy(id string) (*auth.AccessPolicy, error) {
	return accesspolicy.Find(containerPolicies(c.ACL), id), nil
}

// httpTime renders an instant as an HTTP date.
func httpTime(t time.Time) string { return t.UTC().Format(http.TimeFormat) }

// setLeaseHeaders writes x-ms-lease-status, -state and -duration.
func setLeaseHeaders(h http.Header, l lease.Lease, now time.Time) {
	h.Set("X-Ms-Lease-Status", l.Status(now))
	h.Set("X-Ms-Lease-State", string(l.State(now)))
	if d := l.DurationType(now); d != "" {
		h.Set("X-Ms-Lease-Duration", d)
	}
}

// setLeaseResult writes the headers of a successful lease operation.
func setLeaseResult(h http.Header, res lease.Result) {
	if res.LeaseID != "" {
		h.Set(lease.HeaderID, res.LeaseID)
	}
	if res.LeaseTime != nil {
		h.Set("X-Ms-Lease-Time", strconv.Itoa(*res.LeaseTime))
	}
}

// leaseID returns the request's x-ms-lease-id as sent.
func leaseID(r *http.Request) string { return r.Header.Get(lease.HeaderID) }

// containerNotFound is 404 ContainerNotFound.
func containerNotFound() error { return azerr.New(azerr.ContainerNotFound) }

// blobNotFound is 404 BlobNotFound.
func blobNotFound() error { return azerr.New(azerr.BlobNotFound) }

// notImplemented answers an operation Lazuli does not implement yet.
func notImplemented(op string) func(http.ResponseWriter, *http.Request) error {
	return func(http.ResponseWriter, *http.Request) error {
		return azerr.Newf(azerr.NotImplemented, "%s is not implemented by Lazuli yet.", op)
	}
}

// contentLength returns the request's declared body length. Azure requires
// Content-Length on every PUT that carries a body (411
// MissingContentLengthHeader) and refuses bodies past max (413
// RequestBodyTooLarge) before reading them.
func contentLength(r *http.Request, max int64) (int64, error) {
	if r.ContentLength < 0 || (r.ContentLength == 0 && r.Header.Get("Content-Length") == "") {
		return 0, azerr.New(azerr.MissingContentLengthHeader)
	}
	if r.ContentLength > max {
		return 0, azerr.New(azerr.RequestBodyTooLarge).With("MaxLimit", strconv.FormatInt(max, 10))
	}
	return r.ContentLength, nil
}

// write finishes a response with a status and no body.
func write(w http.ResponseWriter, status int) error {
	w.Header().Set("Content-Length", "0")
	w.WriteHeader(status)
	return nil
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
