package auth

import (
	"net/netip"
	"time"
)

// Service names one of the storage services.
type Service string

// The storage services.
const (
	Blob  Service = "blob"
	Queue Service = "queue"
	Table Service = "table"
	File  Service = "file"
)

// letter is the service's letter in an account SAS's ss field.
func (s Service) letter() byte {
	switch s {
	case Blob:
		return 'b'
	case Queue:
		return 'q'
	case Table:
		return 't'
	case File:
		return 'f'
	}
	return 0
}

// Kind is how a request authenticated.
type Kind int

// The ways a request can authenticate.
const (
	Anonymous     Kind = iota
	SharedKey          // Shared Key or Shared Key Lite Authorization header
	AccountSAS         // account shared access signature (ss, srt)
	ServiceSAS         // service shared access signature (sr, or a queue/table SAS)
	Bearer             // OAuth access token (Authorization: Bearer), see bearer.go
	DelegationSAS      // user delegation SAS (skoid, sktid), see delegationsas.go
)

func (k Kind) String() string {
	switch k {
	case Anonymous:
		return "anonymous"
	case SharedKey:
		return "sharedkey"
	case AccountSAS:
		return "accountsas"
	case ServiceSAS:
		return "servicesas"
	case Bearer:
		return "bearer"
	case DelegationSAS:
		return "delegationsas"
	}
	return "unknown"
}

// Identity is the authenticated caller of one request.
type Identity struct {
	Kind    Kind
	Account string
	// SAS holds the signature-verified SAS query parameters when Kind is
	// AccountSAS or ServiceSAS.
	SAS *SAS
	// Principal is who a Bearer token or a user delegation SAS speaks for.
	Principal *Principal

	// aclSubjects and aclGranted are the role decision (dataroles.go).
	aclSubjects []Principal
	aclGranted  bool

	// What Authorize needs to know about the request, captured when it was
	// authenticated.
	service Service
	at      time.Time
	remote  netip.Addr // invalid when RemoteAddr was not an IP
	https   bool
}

// ResourceType is the level of the resource an operation addresses.
type ResourceType int

// Resource levels (named Resource* because Service names the services), matching an account SAS's srt letters s, c and o.
const (
	ResourceService   ResourceType = iota // the account's service endpoint (list containers, service properties)
	ResourceContainer                     // a container, queue, table or share
	ResourceObject                        // a blob, message, entity, file or directory
)

func (t ResourceType) letter() byte {
	switch t {
	case ResourceService:
		return 's'
	case ResourceContainer:
		return 'c'
	case ResourceObject:
		return 'o'
	}
	return 0
}

// Access is one authorization question: Identity.Allow builds it from what
// a route row declares (Need) and what the request addresses (Target).
type Access struct {
	Service      Service
	ResourceType ResourceType
	// Perm lists the SAS permission letters any one of which grants the
	// operation (e.g. "w", or "cw" for a Put Blob that may create). An empty
	// Perm is granted by no SAS.
	Perm string
	// Container is the container, queue, table or share name; Object the
	// blob name or file path. Both as the service parsed them (decoded).
	Container, Object string
	// KeyOnly marks operations only the account key may perform (the
	// ACLs of containers, queues, tables and shares: "only the account
	// owner may call this operation"); every SAS is refused.
	KeyOnly bool
	// AnyResourceType lets an account SAS of any resource type (srt)
	// perform the operation.
	AnyResourceType bool
	// ServiceSASDenied marks operations a service SAS can never perform
	// whatever its permissions (create, delete or list containers, queues and
	// tables; set ACLs; container leases). Account SAS is unaffected.
	ServiceSASDenied bool
	// Policy looks up a stored access policy by signed identifier (si) on
	// the target container, queue, table or share. It returns (nil, nil) when
	// there is no such policy. A nil Policy means none exist.
	Policy func(id string) (*AccessPolicy, error)
	// PublicRead is set when an anonymous caller may perform the operation
	// (a read on a container with public access).
	PublicRead bool
}

// AccessPolicy is a stored access policy (signed identifier) of a container,
// queue, table or share. Nil fields are unset.
type AccessPolicy struct {
	Start, Expiry *time.Time
	Permission    string
}
