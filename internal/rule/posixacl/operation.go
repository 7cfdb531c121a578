package posixacl

import "github.com/lazuli-storage/lazuli/internal/rule/azerr"

// Operation is a dfs operation whose ACL checks Needs lists.
type Operation int

// The operations of the ACL document's permissions table and of the
// sections on owners, plus the reads of a path's status and ACL.
const (
	ReadFile Operation = iota
	WriteFile
	CreatePath
	DeletePath
	DeleteRecursive
	ListDirectory
	RenamePath
	GetStatus
	GetAccessControl
	SetAccessControl
	SetOwner
	SetGroup
)

// Component names the path components a check is made on.
type Component int

// Ancestors are the directories from the container's root down to the
// path's parent, the last of them the Parent; Self is the path; Subtree
// the directories below Self. The Destination components are a rename's
// target's.
const (
	Ancestors Component = iota
	Parent
	Self
	Subtree
	DestinationAncestors
	DestinationParent
)

// Requirement is one check: the principal needs Perm on every node of On.
type Requirement struct {
	On   Component
	Perm Perm
}

// Needs is everything an operation asks of the principal.
type Needs struct {
	Checks []Requirement
	// StickyParent: where the parent has the sticky bit, only the path's
	// owner, the parent's owner or a super-user may remove the path.
	StickyParent bool
	// OwnerOrSuperuser: only the path's owner or a super-user.
	OwnerOrSuperuser bool
	// SuperuserOnly: "Only super-users can change the owning user".
	SuperuserOnly bool
	// GroupChange: a super-user, or the owner when a member of the group.
	GroupChange bool
}

// traverse is the execute right every directory on the way needs ("to
// grant a security principal read or write access to a file, you'll need
// to give [it] Execute permissions to the root folder of the container,
// and to each folder in the hierarchy of folders that lead to the file").
var traverse = Requirement{Ancestors, Execute}

// needs is the ACL document's table "Common scenarios related to ACL
// permissions" (the rows without role assignments), its FAQ "Which
// permissions are required to recursively delete a directory and its
// contents?", its sections on the sticky bit and the owners; the reads of
// status and ACL ask only traversal, as in HDFS, which the document
// points to for the model.
var needs = map[Operation]Needs{
	ReadFile:         {Checks: []Requirement{traverse, {Self, Read}}},
	WriteFile:        {Checks: []Requirement{traverse, {Self, Read | Write}}},
	CreatePath:       {Checks: []Requirement{traverse, {Parent, Write | Execute}}},
	DeletePath:       {Checks: []Requirement{traverse, {Parent, Write | Execute}}, StickyParent: true},
	DeleteRecursive:  {Checks: []Requirement{traverse, {Parent, Write | Execute}, {Self, All}, {Subtree, All}}, StickyParent: true},
	ListDirectory:    {Checks: []Requirement{traverse, {Self, Read | Execute}}},
	RenamePath:       {Checks: []Requirement{traverse, {Parent, Write | Execute}, {DestinationAncestors, Execute}, {DestinationParent, Write | Execute}}, StickyParent: true},
	GetStatus:        {Checks: []Requirement{traverse}},
	GetAccessControl: {Checks: []Requirement{traverse}},
	SetAccessControl: {Checks: []Requirement{traverse}, OwnerOrSuperuser: true},
	SetOwner:         {Checks: []Requirement{traverse}, SuperuserOnly: true},
	SetGroup:         {Checks: []Requirement{traverse}, GroupChange: true},
}

// Needs lists what op asks of the principal; false for an operation the
// table does not know.
func (op Operation) Needs() (Needs, bool) {
	n, ok := needs[op]
	return n, ok
}

// Target is a path as Authorize sees it.
type Target struct {
	// Ancestors run from the container's root to the parent; empty for
	// the root itself.
	Ancestors []Node
	// Self is nil when the path does not exist (yet).
	Self *Node
	// Subtree holds the directories below Self, for DeleteRecursive.
	Subtree []Node
}

// Request is an operation on a path, with a rename's destination and a
// group change's new group.
type Request struct {
	Op          Operation
	Path        Target
	Destination Target
	NewGroup    string
}

// Authorize decides r for p: nil when every check of r.Op's Needs passes,
// else 403 AuthorizationPermissionMismatch. A check on a parent the path
// does not have (the root directory's) fails for all but a super-user, as
// does an operation Needs does not know.
func Authorize(p Principal, r Request) error {
	if p.Superuser {
		return nil
	}
	need, known := r.Op.Needs()
	if !known {
		return denied()
	}
	for _, c := range need.Checks {
		nodes, ok := r.components(c.On)
		if !ok {
			return denied()
		}
		for _, n := range nodes {
			if !p.Allowed(n, c.Perm) {
				return denied()
			}
		}
	}
	if !p.ownerRulesAllow(need, r) {
		return denied()
	}
	return nil
}

// ownerRulesAllow checks the rules of need that turn on who owns what.
func (p Principal) ownerRulesAllow(need Needs, r Request) bool {
	self := r.Path.Self
	switch {
	case need.SuperuserOnly:
		return false
	case self == nil:
		return !need.OwnerOrSuperuser && !need.GroupChange
	case need.OwnerOrSuperuser && !p.mayChangeMode(*self):
		return false
	case need.GroupChange && !p.mayChangeGroup(*self, r.NewGroup):
		return false
	case need.StickyParent:
		return p.stickyAllows(r.Path) && p.stickyAllows(r.Destination)
	}
	return true
}

// stickyAllows applies the sticky bit of t's parent to removing t's node
// (a rename's destination is removed when it is replaced).
func (p Principal) stickyAllows(t Target) bool {
	if t.Self == nil || len(t.Ancestors) == 0 {
		return true
	}
	return p.mayRemoveChild(t.Ancestors[len(t.Ancestors)-1], *t.Self)
}

// components returns the nodes c names, and false when the request has
// no such component (a parent of the root, a missing path).
func (r Request) components(c Component) ([]Node, bool) {
	switch c {
	case Ancestors:
		return r.Path.Ancestors, true
	case Parent:
		return lastOf(r.Path.Ancestors)
	case Self:
		if r.Path.Self == nil {
			return nil, false
		}
		return []Node{*r.Path.Self}, true
	case Subtree:
		return r.Path.Subtree, true
	case DestinationAncestors:
		return r.Destination.Ancestors, true
	default:
		return lastOf(r.Destination.Ancestors)
	}
}

func lastOf(nodes []Node) ([]Node, bool) {
	if len(nodes) == 0 {
		return nil, false
	}
	return nodes[len(nodes)-1:], true
}

// denied is the answer to a principal the ACLs do not allow: 403
// AuthorizationPermissionMismatch, "This request is not authorized to
// perform this operation using this permission.", the code and message
// of the dfs endpoint's Forbidden answers to ACL denials (as Azure Data
// Factory's ADLS Gen2 errors quote them).
func denied() *azerr.Error { return azerr.New(azerr.AuthorizationPermissionMismatch) }
