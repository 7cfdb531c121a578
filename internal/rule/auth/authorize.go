package auth

import (
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/lazuli-storage/lazuli/internal/rule/azerr"
)

// Authorize decides whether the caller may perform the operation described
// by a.
//
//   - Shared Key: always.
//   - Bearer: a principal with a data owner role (DataOwners) always; any
//     other only once the ACLs granted the operation (GrantByACL).
//   - Account SAS: the SAS time window, IP range and protocol, then its
//     services (ss), resource types (srt) and permissions (sp).
//   - Service SAS: the same window, IP and protocol checks (with st, se and
//     sp merged from the stored access policy si names), then its scope (sr,
//     or the queue or table it names) and permissions. Table partition and
//     row key bounds are left to the table service (SAS.TableRange).
//   - User delegation SAS: as a service SAS, then as Bearer for the
//     principals the ACLs check it as.
//   - Anonymous: only when the service set PublicRead. Otherwise blob reads
//     of a container or blob answer 404 ResourceNotFound, as Azure does so
//     that anonymous callers cannot probe which private containers exist;
//     every other anonymous request is 401 NoAuthenticationInformation.
func (id *Identity) Authorize(a Access) error {
	switch id.Kind {
	case SharedKey:
		return nil
	case Bearer:
		// A principal with a data owner role has the account owner's data
		// access; any other only what the ACLs grant (dataroles.go).
		return id.roleDenies()
	case AccountSAS, ServiceSAS, DelegationSAS:
		// Every kind of SAS.
		if a.KeyOnly {
			return azerr.New(azerr.AuthorizationFailure)
		}
	}
	switch id.Kind {
	case AccountSAS:
		return id.authorizeAccountSAS(a)
	case ServiceSAS:
		return id.authorizeServiceSAS(a)
	case DelegationSAS:
		if err := id.authorizeDelegationSAS(a); err != nil {
			return err
		}
		return id.roleDenies()
	}
	return authorizeAnonymous(a)
}

func authorizeAnonymous(a Access) error {
	if a.PublicRead && !a.KeyOnly {
		return nil
	}
	if a.Service == Blob && a.ResourceType != ResourceService && a.Perm != "" && strings.Trim(a.Perm, "rl") == "" {
		return azerr.New(azerr.ResourceNotFound)
	}
	return azerr.New(azerr.NoAuthenticationInformation)
}

func (id *Identity) authorizeAccountSAS(a Access) error {
	s := id.SAS
	if err := id.checkWindow(s.Start, s.Expiry); err != nil {
		return err
	}
	if err := id.checkNetwork(s); err != nil {
		return err
	}
	if strings.IndexByte(s.Services, a.Service.letter()) < 0 {
		return azerr.New(azerr.AuthorizationServiceMismatch)
	}
	if !grantsResourceType(s.ResourceTypes, a) {
		return azerr.New(azerr.AuthorizationResourceTypeMismatch)
	}
	return checkPermission(s.Permissions, a.Perm)
}

// grantsResourceType reports whether an account SAS's signed resource
// types (srt) cover the access: its own type, or any of s, c and o when
// the operation accepts every type.
func grantsResourceType(srt string, a Access) bool {
	if a.AnyResourceType {
		return strings.ContainsAny(srt, "sco")
	}
	return strings.IndexByte(srt, a.ResourceType.letter()) >= 0
}

func (id *Identity) authorizeServiceSAS(a Access) error {
	s := id.SAS
	start, expiry, perm, err := mergePolicy(s, a)
	if err != nil {
		return err
	}
	if err := id.checkWindow(start, expiry); err != nil {
		return err
	}
	if err := id.checkNetwork(s); err != nil {
		return err
	}
	if a.Service != id.service {
		return azerr.New(azerr.AuthorizationServiceMismatch)
	}
	if err := checkScope(s, a); err != nil {
		return err
	}
	if a.ServiceSASDenied {
		return azerr.New(azerr.AuthorizationFailure)
	}
	return checkPermission(perm, a.Perm)
}

// mergePolicy combines the SAS with the stored access policy it names: each
// of start, expiry and permissions must be given by exactly one of them.
func mergePolicy(s *SAS, a Access) (start, expiry time.Time, perm string, err error) {
	start, expiry, perm = s.Start, s.Expiry, s.Permissions
	if s.Identifier == "" {
		return start, expiry, perm, nil
	}
	var p *AccessPolicy
	if a.Policy != nil {
		if p, err = a.Policy(s.Identifier); err != nil {
			return start, expiry, perm, err
		}
	}
	if p == nil {
		return start, expiry, perm, authFailed(fmt.Sprintf("The signed identifier '%s' does not match any stored access policy.", s.Identifier))
	}
	// Azure answers 400 when a field is in both places.
	both := func(name, value string) error {
		return azerr.InvalidQuery(name, value, "The field is specified in both the shared access signature and the stored access policy '"+s.Identifier+"'.")
	}
	if p.Start != nil {
		if !start.IsZero() {
			return start, expiry, perm, both("st", s.start)
		}
		start = p.Start.UTC()
	}
	if p.Expiry != nil {
		if !expiry.IsZero() {
			return start, expiry, perm, both("se", s.expiry)
		}
		expiry = p.Expiry.UTC()
	}
	if p.Permission != "" {
		if perm != "" {
			return start, expiry, perm, both("sp", s.Permissions)
		}
		perm = p.Permission
	}
	if expiry.IsZero() {
		return start, expiry, perm, authFailed("se is mandatory. Cannot be empty")
	}
	if perm == "" {
		return start, expiry, perm, authFailed("sp is mandatory. Cannot be empty")
	}
	return start, expiry, perm, nil
}

// checkWindow checks the SAS validity period against the request time.
// A SAS without st starts at the request, so once expired it fails as a
// window that ends before it starts: the service answers "Signed expiry
// time [se] must be after signed start time [the request's time]", as the
// expired SAS of Microsoft Learn's exercise "Control access to Azure
// Storage with shared access signatures" shows.
func (id *Identity) checkWindow(start, expiry time.Time) error {
	if !start.IsZero() && !expiry.After(start) {
		return windowReversed(start, expiry)
	}
	if start.IsZero() && id.at.After(expiry) {
		return windowReversed(id.at, expiry)
	}
	if id.at.Before(start) || id.at.After(expiry) {
		return authFailed(fmt.Sprintf("Signature not valid in the specified time frame: Start [%s] - Expiry [%s] - Current [%s]",
			start.Format(http.TimeFormat), expiry.Format(http.TimeFormat), id.at.Format(http.TimeFormat)))
	}
	return nil
}

// windowReversed is the AuthenticationFailed of a SAS whose expiry is not
// after its start.
func windowReversed(start, expiry time.Time) error {
	return authFailed(fmt.Sprintf("Signed expiry time [%s] must be after signed start time [%s]",
		expiry.Format(http.TimeFormat), start.Format(http.TimeFormat)))
}

// checkNetwork checks the SAS source IP range and protocol.
func (id *Identity) checkNetwork(s *SAS) error {
	if !s.allowsIP(id.remote) {
		ip := "unknown"
		if id.remote.IsValid() {
			ip = id.remote.String()
		}
		return azerr.Newf(azerr.AuthorizationSourceIPMismatch,
			"This request is not authorized to perform this operation using this source IP %s.", ip)
	}
	if s.Protocol == "https" && !id.https {
		return azerr.New(azerr.AuthorizationProtocolMismatch)
	}
	return nil
}

// checkScope checks that the operation's target lies inside what a service
// SAS was signed for.
func checkScope(s *SAS, a Access) error {
	if a.ResourceType == ResourceService {
		return azerr.New(azerr.AuthorizationResourceTypeMismatch)
	}
	if !sameContainer(a.Service, s.SignedContainer, a.Container) {
		return azerr.New(azerr.AuthorizationFailure)
	}
	switch s.Resource {
	case "b", "bs", "bv", "f":
		if a.ResourceType != ResourceObject {
			return azerr.New(azerr.AuthorizationResourceTypeMismatch)
		}
		if a.Object != s.SignedObject && strings.ReplaceAll(a.Object, `\`, "/") != s.SignedObject {
			return azerr.New(azerr.AuthorizationFailure)
		}
	case "d":
		if a.ResourceType == ResourceObject && a.Object != s.SignedObject && !strings.HasPrefix(a.Object, s.SignedObject+"/") {
			return azerr.New(azerr.AuthorizationFailure)
		}
	}
	if a.Service == Table && a.ResourceType != ResourceObject {
		// A table SAS reaches the entities of its table, not the table.
		return azerr.New(azerr.AuthorizationResourceTypeMismatch)
	}
	return nil
}

// sameContainer compares container names; table names are case-insensitive.
func sameContainer(svc Service, signed, target string) bool {
	if svc == Table {
		return strings.EqualFold(signed, target)
	}
	return signed == target
}

// checkPermission grants when sp holds any of the letters the operation
// accepts.
func checkPermission(sp, need string) error {
	if need != "" && strings.ContainsAny(sp, need) {
		return nil
	}
	return azerr.New(azerr.AuthorizationPermissionMismatch)
}
