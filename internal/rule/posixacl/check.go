package posixacl

import "slices"

// Principal is who asks: an Azure AD object ID with the groups it is a
// member of, or a super-user, which "has RWX permissions to all files and
// folders", can change any path's permissions, owner and owning group. A
// Shared Key or SAS caller has no ObjectID and, for what the ACLs decide,
// is a super-user (Access control model, "Shared Key and Shared Access
// Signature (SAS) authorization").
type Principal struct {
	ObjectID  string
	Groups    []string
	Superuser bool
}

// Node is one path component as the access check sees it.
type Node struct {
	Owner, Group string
	ACL          ACL
	Sticky       bool
}

// is reports whether id names this principal.
func (p Principal) is(id string) bool { return p.ObjectID != "" && id == p.ObjectID }

// memberOf reports whether the principal is in the group id.
func (p Principal) memberOf(id string) bool { return id != "" && slices.Contains(p.Groups, id) }

// owns reports whether the principal is n's owning user.
func (p Principal) owns(n Node) bool { return p.is(n.Owner) }

// Allowed is the access check of the ACL document ("How permissions are
// evaluated"): the super-user is allowed; the owning user gets the owner
// entry's rights, the mask not applied; a named user its entry's rights
// within the mask; a member of the owning group or of named groups is
// allowed when one of those entries, within the mask, grants all of want,
// and otherwise falls through to other, as do all the rest. The mask
// "limits access for named users, the owning group, and named groups"
// (section "The mask"), so other's rights are taken as they are; the
// document's pseudocode also masks other, which its text does not say and
// POSIX.1e does not do.
func (p Principal) Allowed(n Node, want Perm) bool {
	if p.Superuser {
		return true
	}
	access := n.ACL.Access()
	if p.owns(n) {
		owner, _ := access.find(Key{Tag: TagUser})
		return owner.Perm.Has(want)
	}
	mask := All
	if m, ok := access.find(Key{Tag: TagMask}); ok {
		mask = m.Perm
	}
	for _, e := range access {
		if e.Tag == TagUser && p.is(e.ID) {
			return (e.Perm & mask).Has(want)
		}
	}
	for _, e := range access {
		if e.Tag == TagGroup && p.inGroupEntry(n, e) && (e.Perm & mask).Has(want) {
			return true
		}
	}
	other, _ := access.find(Key{Tag: TagOther})
	return other.Perm.Has(want)
}

// inGroupEntry reports whether a group entry, the owning group's or a
// named group's, applies to the principal.
func (p Principal) inGroupEntry(n Node, e Entry) bool {
	if e.ID == "" {
		return p.memberOf(n.Group)
	}
	return p.memberOf(e.ID)
}

// mayRemoveChild is the sticky bit's rule: in a directory with the sticky
// bit, "a child item can only be deleted or renamed by the child item's
// owning user, the directory's owner, or the Superuser" (section "The
// sticky bit").
func (p Principal) mayRemoveChild(dir, child Node) bool {
	return !dir.Sticky || p.Superuser || p.owns(child) || p.owns(dir)
}

// mayChangeMode: the owning user can "change the permissions of a file
// that is owned"; the super-user can change any (sections "The owning
// user", "The super-user"). The owning group cannot.
func (p Principal) mayChangeMode(n Node) bool { return p.Superuser || p.owns(n) }

// mayChangeGroup: the owning group can be changed by a super-user, or by
// the owning user "if the owning user is also a member of the target
// group" (section "Changing the owning group").
func (p Principal) mayChangeGroup(n Node, group string) bool {
	return p.Superuser || p.owns(n) && p.memberOf(group)
}
