package posixacl

// NewPath is what Path - Create is told of the path it makes.
type NewPath struct {
	Directory bool
	// Permissions is x-ms-permissions, nil when the request has none.
	Permissions *Mode
	// Umask is x-ms-umask, nil when the request has none (DefaultUmask).
	Umask *Mode
}

// ACL is the new path's ACL (access entries, and for a directory default
// entries) and sticky bit, given its parent directory's ACL, per "Default
// permissions on new files and directories" of the ACL document:
//
//   - Without a default ACL on the parent, the path gets only permission
//     bits: x-ms-permissions, else 0666 for a file and 0777 for a
//     directory, with the umask's bits cleared ("the umask restricts the
//     permissions of the file or directory to be created", x-ms-umask). A
//     new directory then has no default ACL either.
//   - With one, the parent's default ACL is the child's access ACL, and a
//     child directory's default ACL too ("the default ACL on the parent
//     directory determines a child directory's default ACL and access ACL
//     [and] a child file's access ACL"); the umask "is effectively
//     ignored" (section "umask"). Permissions the request names still
//     bound the owner, group class and other entries, as a create mode
//     does under HDFS's default ACLs.
func (n NewPath) ACL(parent ACL) (ACL, bool) {
	requested := DefaultFileMode
	if n.Directory {
		requested = DefaultDirectoryMode
	}
	if n.Permissions != nil {
		requested = *n.Permissions
	}
	template := parent.Default()
	if len(template) == 0 {
		umask := DefaultUmask
		if n.Umask != nil {
			umask = *n.Umask
		}
		m := requested.Apply(umask)
		return FromMode(m), m.IsSticky()
	}
	access := make(ACL, len(template))
	for i, e := range template {
		e.Default = false
		access[i] = e
	}
	if n.Permissions != nil {
		access = bound(access, requested)
	}
	if n.Directory {
		access = append(access, template...)
	}
	return access, requested.IsSticky()
}

// bound clears from the owner, group class and other entries the rights
// m's matching classes lack.
func bound(access ACL, m Mode) ACL {
	current := access.Mode()
	limited := NewMode(current.Owner()&m.Owner(), current.Group()&m.Group(), current.Other()&m.Other(), false)
	return WithMode(access, limited)
}

// SuperuserID is the owner and owning group of what is created with
// Shared Key or a SAS, which carry no identity: "the owner and owning
// group are set to $superuser" (section "The super-user").
const SuperuserID = "$superuser"

// Owners is a new path's owner and owning group. The creator owns it ("The
// user who created the item is automatically the owning user"); the
// owning group is the parent's ("Case 2"), or for a container's root
// directory, which has no parent, the creator ("Case 1"). A creator
// without an identity makes both $superuser.
func Owners(creator Principal, parentGroup string, root bool) (owner, group string) {
	if creator.ObjectID == "" {
		return SuperuserID, SuperuserID
	}
	if root {
		return creator.ObjectID, creator.ObjectID
	}
	return creator.ObjectID, parentGroup
}
