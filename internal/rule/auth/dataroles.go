package auth

import (
	"errors"
	"strings"

	"github.com/lazuli-storage/lazuli/internal/rule/azerr"
)

// DataOwners are the principals that hold a data owner role (Storage
// Blob Data Owner) on every account (--dataOwners). "Access control model
// in Azure Data Lake Storage" ("How permissions are evaluated"): role
// assignments are evaluated first, and a principal a role grants the
// operation is never checked against the ACLs; one without a role
// assignment is allowed only what the POSIX ACLs of a hierarchical
// namespace allow, and nothing on a flat account. The zero value holds
// every principal, as Azurite's --oauth basic treats every token.
type DataOwners struct {
	ids map[string]bool // nil: every principal
}

// ParseDataOwners reads --dataOwners: comma-separated object ids, or *
// for every principal.
func ParseDataOwners(v string) (DataOwners, error) {
	v = strings.TrimSpace(v)
	if v == "*" {
		return DataOwners{}, nil
	}
	o := DataOwners{ids: map[string]bool{}}
	for _, id := range strings.Split(v, ",") {
		id = strings.TrimSpace(id)
		if id == "*" {
			return DataOwners{}, errors.New("* stands alone: every principal, or a list of object ids")
		}
		if id != "" {
			o.ids[strings.ToLower(id)] = true
		}
	}
	if len(o.ids) == 0 {
		return DataOwners{}, errors.New("no object id given (* for every principal)")
	}
	return o, nil
}

// Holds reports whether the principal with object id oid holds the role.
func (o DataOwners) Holds(oid string) bool {
	return o.ids == nil || o.ids[strings.ToLower(oid)]
}

// aclSubjects are the principals whose ACL rights an identity's data
// operations need: none for a super-user (Shared Key, account and service
// SAS: "Shared Key and SAS authorization" of the access control model) or
// a role holder. A user delegation SAS carries its key owner's rights, so
// a key owner without the role is checked; its suoid is checked as well
// ("Azure Storage performs a POSIX ACL check against the object ID before
// authorizing the operation", Create a user delegation SAS); saoid is
// "authorized by the owner of the user delegation key" with "no
// additional permission check", and scid is only logged.
func (o DataOwners) aclSubjects(id *Identity) []Principal {
	var subjects []Principal
	switch {
	case id.Kind == Bearer && id.Principal != nil:
		if !o.Holds(id.Principal.ObjectID) {
			subjects = append(subjects, *id.Principal)
		}
	case id.Kind == DelegationSAS && id.SAS != nil && id.SAS.Delegation != nil:
		d := id.SAS.Delegation
		if !o.Holds(d.Key.ObjectID) {
			subjects = append(subjects, Principal{ObjectID: d.Key.ObjectID, TenantID: d.Key.TenantID})
		}
		if d.UnauthorizedObjectID != "" {
			subjects = append(subjects, Principal{ObjectID: d.UnauthorizedObjectID})
		}
	}
	return subjects
}

// ACLSubjects are the principals the POSIX ACLs must allow this caller's
// operation on a path for, none when the caller is a super-user to them.
func (id *Identity) ACLSubjects() []Principal { return id.aclSubjects }

// GrantByACL records that the ACLs of the path the request addresses
// allow its operation to every one of ACLSubjects: the only way a caller
// that has subjects passes Authorize.
func (id *Identity) GrantByACL() { id.aclGranted = true }

// roleDenies is 403 AuthorizationPermissionMismatch for a caller the ACLs
// must allow and have not: no role assignment grants it the operation.
func (id *Identity) roleDenies() error {
	if len(id.aclSubjects) > 0 && !id.aclGranted {
		return azerr.New(azerr.AuthorizationPermissionMismatch)
	}
	return nil
}
