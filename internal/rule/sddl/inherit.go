package sddl

// ACE inheritance flags.
const (
	flagObjectInherit    = 0x01 // OI: files below inherit the ACE
	flagContainerInherit = 0x02 // CI: directories below inherit the ACE
	flagNoPropagate      = 0x04 // NP: only the immediate children inherit
	flagInheritOnly      = 0x08 // IO: the ACE grants nothing on this object
	flagInherited        = 0x10 // ID: the ACE was inherited

	inheritanceFlags = flagObjectInherit | flagContainerInherit | flagNoPropagate | flagInheritOnly
)

// The SIDs an inheritable ACE names to mean whoever creates the child.
var (
	creatorOwner = SID{Authority: 3, SubAuthorities: []uint32{0}}
	creatorGroup = SID{Authority: 3, SubAuthorities: []uint32{1}}
)

// Inherit is the descriptor a new file (container false) or directory
// (container true) gets when it is created with the explicit descriptor
// d under a parent whose descriptor is parent (nil for none), following
// Windows' automatic inheritance (CreatePrivateObjectSecurityEx with
// SEF_DACL_AUTO_INHERIT, the rules of "ACE Inheritance Rules"): the DACL
// keeps d's explicit ACEs, then gains the parent's inheritable ones
// marked inherited, and is flagged auto-inherited. A protected or NULL
// DACL inherits nothing. The SACL and everything else are d's.
func Inherit(d, parent *Descriptor, container bool) *Descriptor {
	out := *d
	out.DACL = ACL{Present: d.DACL.Present, Null: d.DACL.Null}
	if d.DACL.Null {
		return &out
	}
	for _, a := range d.DACL.ACEs {
		if a.Flags&flagInherited == 0 {
			out.DACL.ACEs = append(out.DACL.ACEs, a)
		}
	}
	if d.Control&controlDACLProtected == 0 && parent != nil && parent.DACL.Present && !parent.DACL.Null {
		for _, a := range parent.DACL.ACEs {
			out.DACL.ACEs = append(out.DACL.ACEs, inheritedACEs(a, d, container)...)
		}
	}
	out.DACL.Present = out.DACL.Present || len(out.DACL.ACEs) > 0
	out.Control |= controlDACLAutoInherited
	return &out
}

// inheritedACEs is what one ACE of a parent's DACL becomes on a new child
// whose own descriptor is d: nothing, an effective ACE, an inherit-only
// ACE passed on to the child's children, or both.
func inheritedACEs(a ACE, d *Descriptor, container bool) []ACE {
	f := a.Flags
	var effective, onward bool
	switch {
	case !container:
		effective = f&flagObjectInherit != 0
	case f&flagContainerInherit != 0:
		effective = true
		onward = f&flagNoPropagate == 0
	case f&flagObjectInherit != 0:
		// An object-inherit ACE passes through a directory to the files
		// below it without applying to the directory itself.
		onward = f&flagNoPropagate == 0
	}
	var out []ACE
	creator := a.SID.equal(creatorOwner) || a.SID.equal(creatorGroup)
	if effective {
		e := a
		e.Flags = f&^inheritanceFlags | flagInherited
		if creator {
			e.SID = creatorSID(a.SID, d)
		} else if onward {
			// One ACE both applies here and passes on.
			e.Flags |= f & (flagObjectInherit | flagContainerInherit)
			onward = false
		}
		out = append(out, e)
	}
	if onward {
		o := a
		o.Flags = f | flagInheritOnly | flagInherited
		out = append(out, o)
	}
	return out
}

// creatorSID is the SID that replaces CREATOR OWNER or CREATOR GROUP in
// the ACE a child inherits: the child's owner or group.
func creatorSID(s SID, d *Descriptor) SID {
	if s.equal(creatorOwner) && d.Owner != nil {
		return *d.Owner
	}
	if s.equal(creatorGroup) && d.Group != nil {
		return *d.Group
	}
	return s
}

func (s SID) equal(o SID) bool {
	if s.Authority != o.Authority || len(s.SubAuthorities) != len(o.SubAuthorities) {
		return false
	}
	for i, v := range s.SubAuthorities {
		if o.SubAuthorities[i] != v {
			return false
		}
	}
	return true
}
