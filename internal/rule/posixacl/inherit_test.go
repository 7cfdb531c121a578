package posixacl

import "testing"

// mode is m as an optional request header.
func mode(m Mode) *Mode { return &m }

func TestNewPathWithoutParentDefaultACL(t *testing.T) {
	parent := FromMode(0o750)
	for _, c := range []struct {
		cite       string
		n          NewPath
		want       string
		wantSticky bool
	}{
		{"a file starts from 0666 and the default umask 0027", NewPath{}, "user::rw-,group::r--,other::---", false},
		{"a directory starts from 0777 and the default umask 0027", NewPath{Directory: true}, "user::rwx,group::r-x,other::---", false},
		{".NET SDK recorded CreateAsync_PermissionAndUmask (file): 0777, 0057 → rwx-w----",
			NewPath{Permissions: mode(0o777), Umask: mode(0o057)}, "user::rwx,group::-w-,other::---", false},
		{".NET SDK recorded CreateAsync_PermissionAndUmask (directory)",
			NewPath{Directory: true, Permissions: mode(0o777), Umask: mode(0o057)}, "user::rwx,group::-w-,other::---", false},
		{"umask 0000 keeps the permissions, sticky bit included", NewPath{Directory: true, Permissions: mode(0o1777), Umask: mode(0)},
			"user::rwx,group::rwx,other::rwx", true},
	} {
		acl, sticky := c.n.ACL(parent)
		if acl.String() != c.want || sticky != c.wantSticky {
			t.Errorf("%s: ACL = %q sticky %v; want %q sticky %v", c.cite, acl, sticky, c.want, c.wantSticky)
		}
	}
}

func TestNewPathFromParentDefaultACL(t *testing.T) {
	// "the default ACL on the parent directory determines: a child
	// directory's default ACL and access ACL; a child file's access ACL
	// (files do not have a default ACL)"; "If a default ACL is defined on
	// the parent directory, the umask is effectively ignored".
	parent := mustACL(t, "user::rwx,group::r-x,other::---,"+
		"default:user::rwx,default:user:"+oid+":rwx,default:group::r-x,default:mask::rwx,default:other::r-x")
	inherited := "user::rwx,user:" + oid + ":rwx,group::r-x,mask::rwx,other::r-x"
	defaults := "default:user::rwx,default:user:" + oid + ":rwx,default:group::r-x,default:mask::rwx,default:other::r-x"
	for _, c := range []struct {
		cite string
		n    NewPath
		want string
	}{
		{"a file's access ACL is the parent's default ACL", NewPath{}, inherited},
		{"the umask is ignored", NewPath{Umask: mode(0o777)}, inherited},
		{"a directory gets it as access and default ACL", NewPath{Directory: true}, inherited + "," + defaults},
		{"permissions named bound the owner, the group class (mask) and other", NewPath{Permissions: mode(0o640)},
			"user::rw-,user:" + oid + ":rwx,group::r-x,mask::r--,other::---"},
	} {
		acl, _ := c.n.ACL(parent)
		if acl.String() != c.want {
			t.Errorf("%s: ACL = %q, want %q", c.cite, acl, c.want)
		}
	}
}

func TestOwners(t *testing.T) {
	user := Principal{ObjectID: oid, Groups: []string{"g1"}}
	for _, c := range []struct {
		cite         string
		creator      Principal
		root         bool
		owner, group string
	}{
		{"the creator owns; the owning group is the parent's (Case 2)", user, false, oid, "parent-group"},
		{"a root created with OAuth: owner and group are the creator (Case 1)", user, true, oid, oid},
		{"Shared Key or SAS: owner and owning group are $superuser", Principal{Superuser: true}, false, SuperuserID, SuperuserID},
		{"Shared Key or SAS root", Principal{Superuser: true}, true, SuperuserID, SuperuserID},
	} {
		owner, group := Owners(c.creator, "parent-group", c.root)
		if owner != c.owner || group != c.group {
			t.Errorf("%s: Owners = %q, %q; want %q, %q", c.cite, owner, group, c.owner, c.group)
		}
	}
}
