package auth

import "github.com/lazuli-storage/lazuli/internal/rule/azerr"

// Need is what one operation asks of its caller. Each row of a service's
// route table declares one (route.Rule.Access); one authorizer applies it
// (Identity.Allow), so that no handler chooses a permission by hand. The
// letters follow Azure's "Create an account SAS" and "Create a service SAS"
// reference pages, operation by operation.
type Need struct {
	// Resource is the resource type an account SAS must sign (srt).
	Resource ResourceType
	// Perm lists the SAS permission letters any one of which grants the
	// operation; "" is granted by no SAS.
	Perm string
	// AlsoPerm, when set, is a second set of letters one of which must be
	// granted too: an upsert of a table entity needs add and update.
	AlsoPerm string
	// Replace, when set, is what the operation needs instead of Perm when
	// it finds existing data and replaces it: create (c) writes new blobs
	// and files only, replacing one needs write (w). Only the operation
	// knows, inside its transaction, so it asks AllowReplace there.
	Replace string
	// Public is the least public access level of a container at which an
	// anonymous caller may perform the operation (Blob only).
	Public PublicLevel
	// ServiceSASDenied: no service SAS may perform it, whatever its
	// permissions (create, delete, list or set properties of containers,
	// queues, tables and shares); an account SAS may.
	ServiceSASDenied bool
	// KeyOnly: only the account key may (the ACLs of containers, queues,
	// tables and shares); every SAS is 403 AuthorizationFailure.
	KeyOnly bool
	// BearerOnly: only an OAuth token may (Get User Delegation Key); Shared
	// Key and SAS are 403 AuthenticationFailed.
	BearerOnly bool
	// Parts marks a request that carries operations authorized one by one
	// as their own rows declare (a table batch): the request itself needs
	// only a caller who is not anonymous.
	Parts bool
	// AnonymousForbidden answers an anonymous caller 403
	// AuthorizationFailure instead of 401 (a table batch is refused whole).
	AnonymousForbidden bool
	// AnyResourceType: an account SAS of any resource type (srt) grants
	// it, not only Resource's (the envelope of a blob batch, whose
	// sub-requests are authorized one by one).
	AnyResourceType bool
	// AccountPerm, when set, is what an account SAS needs in place of
	// Perm, AlsoPerm and Replace: one of the letters of each string. The
	// letters of "Create an account SAS" are not those of "Create a
	// service SAS" everywhere: an account SAS has no m, e or o, and its p
	// is Process (queue messages), not Data Lake's Permissions.
	AccountPerm []string
}

// PublicLevel is a container's public access level, in the order of what
// it opens to anonymous callers.
type PublicLevel int

// Public access levels: none, the blobs (x-ms-blob-public-access: blob), the
// container too (container).
const (
	PublicNone PublicLevel = iota
	PublicBlob
	PublicContainer
)

// AnyPermission is every permission letter: operations any SAS of the
// right service and resource type may call (Get Account Information, the
// envelope of a blob batch, whose sub-requests are authorized one by one).
const AnyPermission = "racwdxyltfmeopiu"

// OnService is the need of a service-level operation (srt=s) granted by
// any of the letters perm.
func OnService(perm string) *Need { return &Need{Resource: ResourceService, Perm: perm} }

// OnContainer is the need of a container, queue, table or share operation
// (srt=c) granted by any of the letters perm.
func OnContainer(perm string) *Need { return &Need{Resource: ResourceContainer, Perm: perm} }

// OnObject is the need of a blob, message, entity, directory or file
// operation (srt=o) granted by any of the letters perm.
func OnObject(perm string) *Need { return &Need{Resource: ResourceObject, Perm: perm} }

// AccountKeyOnly is the need of an operation only the account key may call
// on a resource of type rt.
func AccountKeyOnly(rt ResourceType) *Need { return &Need{Resource: rt, KeyOnly: true} }

// OAuthOnly is the need of an operation only an OAuth token may call.
func OAuthOnly() *Need { return &Need{Resource: ResourceService, BearerOnly: true} }

// NoServiceSAS returns a copy of n that no service SAS is granted.
func (n *Need) NoServiceSAS() *Need { c := *n; c.ServiceSASDenied = true; return &c }

// PublicFrom returns a copy of n that anonymous callers are granted on a
// container whose public access level is at least l.
func (n *Need) PublicFrom(l PublicLevel) *Need { c := *n; c.Public = l; return &c }

// Replacing returns a copy of n that needs perm instead when it replaces
// existing data.
func (n *Need) Replacing(perm string) *Need { c := *n; c.Replace = perm; return &c }

// And returns a copy of n that needs one of the letters perm as well.
func (n *Need) And(perm string) *Need { c := *n; c.AlsoPerm = perm; return &c }

// OnlyAccountKey returns a copy of n that no SAS of any kind is granted.
func (n *Need) OnlyAccountKey() *Need { c := *n; c.KeyOnly = true; return &c }

// OfAnyResourceType returns a copy of n that an account SAS of any
// resource type is granted.
func (n *Need) OfAnyResourceType() *Need { c := *n; c.AnyResourceType = true; return &c }

// ForAccountSAS returns a copy of n that an account SAS is granted only
// with one of the letters of each of perms, whatever Perm, AlsoPerm and
// Replace ask of the other kinds of SAS.
func (n *Need) ForAccountSAS(perms ...string) *Need {
	c := *n
	c.AccountPerm = perms
	return &c
}

// ForbidAnonymous returns a copy of n that answers anonymous callers 403.
func (n *Need) ForbidAnonymous() *Need { c := *n; c.AnonymousForbidden = true; return &c }

// PartsAuthorized is the need of a request whose operations are authorized
// one by one, each as its own row declares.
func PartsAuthorized() *Need { return &Need{Resource: ResourceObject, Parts: true} }

// allowEnvelope decides a request whose parts are authorized one by one:
// any authenticated caller, but a SAS only inside its time window (when it
// carries one itself; a stored policy's is checked per part) and from its
// addresses and protocol.
func (id *Identity) allowEnvelope() error {
	switch id.Kind {
	case Anonymous:
		return azerr.New(azerr.NoAuthenticationInformation)
	case AccountSAS, ServiceSAS, DelegationSAS:
		if id.SAS.Identifier == "" {
			if err := id.checkWindow(id.SAS.Start, id.SAS.Expiry); err != nil {
				return err
			}
		}
		return id.checkNetwork(id.SAS)
	}
	return nil
}

// Target is what a request addresses, as its service resolved it, with
// lazy lookups of what only some callers need.
type Target struct {
	Service Service
	// Container is the container, queue, table or share name; Object the
	// blob name, entity or file path. Both decoded.
	Container, Object string
	// Policy looks up a stored access policy of the container (nil: none
	// exist); asked only for a service SAS naming one (si).
	Policy func(id string) (*AccessPolicy, error)
	// Public reports the container's public access level; asked only for
	// an anonymous caller of an operation a public container opens.
	Public func() (PublicLevel, error)
}

// Allow decides whether the caller may perform an operation needing n on
// t: the one authorizer every route row's declaration goes through.
func (id *Identity) Allow(n *Need, t Target) error {
	if n == nil {
		return azerr.Newf(azerr.InternalError, "The operation declares no authorization.")
	}
	return id.allow(n, n.Perm, t)
}

// AllowReplace decides whether the caller may replace existing data with
// an operation needing n: Replace when the operation declares one, n
// otherwise (its permissions already cover replacing).
func (id *Identity) AllowReplace(n *Need, t Target) error {
	if n == nil {
		return azerr.Newf(azerr.InternalError, "The operation declares no authorization.")
	}
	if n.Replace == "" {
		return id.allow(n, n.Perm, t)
	}
	return id.allow(n, n.Replace, t)
}

func (id *Identity) allow(n *Need, perm string, t Target) error {
	if id == nil {
		return azerr.New(azerr.NoAuthenticationInformation)
	}
	if n.BearerOnly && id.Kind != Bearer {
		return authFailed("Only authentication scheme Bearer is supported")
	}
	if n.AnonymousForbidden && id.Kind == Anonymous {
		return azerr.New(azerr.AuthorizationFailure)
	}
	if n.Parts {
		return id.allowEnvelope()
	}
	a := Access{Service: t.Service, ResourceType: n.Resource, Perm: perm, Container: t.Container, Object: t.Object,
		KeyOnly: n.KeyOnly, ServiceSASDenied: n.ServiceSASDenied, Policy: t.Policy, AnyResourceType: n.AnyResourceType}
	if id.Kind == Anonymous && n.Public != PublicNone && t.Public != nil {
		level, err := t.Public()
		if err != nil {
			return err
		}
		a.PublicRead = level >= n.Public
	}
	for _, letters := range id.lettersNeeded(n, perm) {
		a.Perm = letters
		if err := id.Authorize(a); err != nil {
			return err
		}
	}
	return nil
}

// lettersNeeded are the sets of SAS letters the caller must hold one of
// each of, for an operation needing n that asks perm (Perm or Replace).
func (id *Identity) lettersNeeded(n *Need, perm string) []string {
	if id.Kind == AccountSAS && n.AccountPerm != nil {
		return n.AccountPerm
	}
	if n.AlsoPerm != "" && perm == n.Perm {
		return []string{perm, n.AlsoPerm}
	}
	return []string{perm}
}
