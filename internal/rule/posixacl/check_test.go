package posixacl

import "testing"

func TestAllowed(t *testing.T) {
	const owner, named, grp, named2 = "owner-oid", "named-oid", "owning-group", "named-group"
	node := func(acl string) Node {
		return Node{Owner: owner, Group: grp, ACL: mustACL(t, acl)}
	}
	masked := "user::r--,user:" + named + ":rwx,group::rwx,group:" + named2 + ":r-x,mask::r--,other::-w-"
	for _, c := range []struct {
		cite string
		p    Principal
		acl  string
		want Perm
		ok   bool
	}{
		{"the super-user has RWX to all files and folders", Principal{Superuser: true}, "user::---,group::---,other::---", All, true},
		{"the owning user gets the owner entry", Principal{ObjectID: owner}, masked, Read, true},
		{"the owner entry is not masked", Principal{ObjectID: owner}, "user::rwx,user:" + named + ":r--,group::---,mask::---,other::---", All, true},
		{"the owner entry decides, even when denying", Principal{ObjectID: owner}, masked, Write, false},
		{"owner before named user", Principal{ObjectID: owner}, "user::---,user:" + owner + ":rwx,group::---,mask::rwx,other::rwx", Read, false},
		{"a named user's entry within the mask", Principal{ObjectID: named}, masked, Read, true},
		{"the mask limits a named user", Principal{ObjectID: named}, masked, Write, false},
		{"a named user does not fall through to other", Principal{ObjectID: named}, "user::---,user:" + named + ":---,group::---,mask::rwx,other::rwx", Read, false},
		{"the owning group within the mask", Principal{ObjectID: "x", Groups: []string{grp}}, masked, Read, true},
		{"the mask limits the owning group", Principal{ObjectID: "x", Groups: []string{grp}}, masked, Execute, false},
		{"a named group within the mask", Principal{ObjectID: "x", Groups: []string{named2}}, "user::---,group::---,group:" + named2 + ":r-x,mask::rwx,other::---", Read | Execute, true},
		{"named groups together: each is tried until one grants", Principal{ObjectID: "x", Groups: []string{grp, named2}},
			"user::---,group::r--,group:" + named2 + ":-w-,mask::rwx,other::---", Write, true},
		{"no group grants: other is evaluated", Principal{ObjectID: "x", Groups: []string{grp}}, masked, Write, true},
		{"other's rights are not masked", Principal{ObjectID: "x"}, masked, Write, true},
		{"other decides for the rest", Principal{ObjectID: "x"}, masked, Read, false},
		{"no mask, no limit", Principal{ObjectID: "x", Groups: []string{grp}}, "user::---,group::rwx,other::---", All, true},
		{"an identity-less caller who is no super-user is other", Principal{}, "user::rwx,group::rwx,other::r--", Read, true},
	} {
		if got := c.p.Allowed(node(c.acl), c.want); got != c.ok {
			t.Errorf("%s: Allowed(%+v, %q, %s) = %v", c.cite, c.p, c.acl, c.want, got)
		}
	}
}
