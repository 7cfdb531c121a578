package blobdata

import (
	"github.com/lazuli-storage/lazuli/internal/base/record"
	"github.com/lazuli-storage/lazuli/internal/rule/posixacl"
)

// btagPosix is the blob record field of a Data Lake path's access control
// (tags 11-15, 19-23 and 25-29 are left to other blob state).
const btagPosix = 24

// PosixState is the access control of a path of a hierarchical-namespace
// account, which the dfs endpoint reads and changes (Path - Create,
// Path - Update setAccessControl, Path - Get Properties
// getAccessControl): the owning user and group, the sticky bit, and the
// ACL, access entries followed, for a directory, by default entries, in
// posixacl's order. The permission bits are not stored apart: they are
// the ACL's Mode, as POSIX.1e keeps them.
//
// A blob written through the Blob endpoint has none stored (Empty); it
// reads as Access gives it.
type PosixState struct {
	Owner, Group string
	Sticky       bool
	ACL          posixacl.ACL
}

// Empty reports whether nothing is stored.
func (p PosixState) Empty() bool {
	return p.Owner == "" && p.Group == "" && !p.Sticky && len(p.ACL) == 0
}

// Mode is the permission bits the state shows: the ACL's, with the
// sticky bit.
func (p PosixState) Mode() posixacl.Mode {
	m := p.ACL.Mode()
	if p.Sticky {
		m |= posixacl.Sticky
	}
	return m
}

// Node is the state as posixacl's access check reads it.
func (p PosixState) Node() posixacl.Node {
	return posixacl.Node{Owner: p.Owner, Group: p.Group, ACL: p.ACL, Sticky: p.Sticky}
}

// Access is the blob's access control as the dfs endpoint shows it. A
// blob without a stored one was written with Shared Key, a SAS or the
// Blob endpoint, none of which carry an identity: $superuser owns it, and
// its bits are those Path - Create gives without x-ms-permissions and
// x-ms-umask (0666 for a file, 0777 for a directory, less the default
// umask 0027).
func (b *Blob) Access(directory bool) PosixState {
	if !b.Posix.Empty() {
		return b.Posix
	}
	acl, sticky := posixacl.NewPath{Directory: directory}.ACL(nil)
	return PosixState{Owner: posixacl.SuperuserID, Group: posixacl.SuperuserID, Sticky: sticky, ACL: acl}
}

// NewPosixState is the access control Path - Create gives a new path:
// its owners from the creator and the parent's owning group, its ACL from
// the parent's default ACL or the request's permissions and umask
// (posixacl.NewPath.ACL, posixacl.Owners). parent is the parent
// directory's state (the filesystem root's is RootPosixState).
func NewPosixState(parent PosixState, path posixacl.NewPath, creator posixacl.Principal) PosixState {
	acl, sticky := path.ACL(parent.ACL)
	owner, group := posixacl.Owners(creator, parent.Group, false)
	return PosixState{Owner: owner, Group: group, Sticky: sticky, ACL: acl}
}

// RootPosixState is a filesystem's root directory's access control, which
// no blob record holds: $superuser's, with the bits of a directory made
// without x-ms-permissions and x-ms-umask (rwxr-x---), and no default ACL.
func RootPosixState() PosixState { return (&Blob{}).Access(true) }

// RootAccess is the container's root directory's access control: what
// setAccessControl of the root stored, else RootPosixState.
func (c *Container) RootAccess() PosixState {
	if c == nil || c.RootPosix.Empty() {
		return RootPosixState()
	}
	return c.RootPosix
}

// Entry encoding: the tag in the low two bits, the default scope above.
const posixDefaultScope = 1 << 2

func (p PosixState) encode(e *record.Encoder) { p.encodeField(e, btagPosix) }

// encodeField writes a non-empty state as the record's field tag.
func (p PosixState) encodeField(e *record.Encoder, tag byte) {
	if p.Empty() {
		return
	}
	e.Field(tag, func(e *record.Encoder) {
		e.Str(p.Owner)
		e.Str(p.Group)
		e.Bool(p.Sticky)
		e.Uvarint(uint64(len(p.ACL)))
		for _, entry := range p.ACL {
			kind := byte(entry.Tag)
			if entry.Default {
				kind |= posixDefaultScope
			}
			e.Byte(kind)
			e.Str(entry.ID)
			e.Byte(byte(entry.Perm))
		}
	})
}

func decodePosix(d *record.Decoder) PosixState {
	p := PosixState{Owner: d.Str(), Group: d.Str(), Sticky: d.Bool()}
	n := d.Count()
	for i := 0; i < n && d.Err() == nil; i++ {
		kind := d.Byte()
		entry := posixacl.Entry{Default: kind&posixDefaultScope != 0, Tag: posixacl.Tag(kind & 3),
			ID: d.Str(), Perm: posixacl.Perm(d.Byte()) & posixacl.All}
		p.ACL = append(p.ACL, entry)
	}
	return p
}
