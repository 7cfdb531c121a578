package blobdata

import (
	"testing"

	"github.com/lazuli-storage/lazuli/internal/rule/posixacl"
)

// A blob without stored access control reads as $superuser's with the
// bits Path - Create gives under the default umask.
func TestAccessWithoutStoredState(t *testing.T) {
	b := &Blob{}
	for _, c := range []struct {
		dir  bool
		want string
	}{{false, "rw-r-----"}, {true, "rwxr-x---"}} {
		got := b.Access(c.dir)
		if got.Owner != posixacl.SuperuserID || got.Group != posixacl.SuperuserID || got.Mode().Symbolic(false) != c.want {
			t.Errorf("directory %v: %+v, mode %s; want $superuser and %s", c.dir, got, got.Mode().Symbolic(false), c.want)
		}
	}
}

// A new path takes its parent's default ACL and owning group, and its
// creator as owner.
func TestNewPosixStateInherits(t *testing.T) {
	parentACL, err := posixacl.ParseACL("user::rwx,group::r-x,other::---,default:user::rwx,default:user:u1:r-x,default:group::r-x,default:mask::r-x,default:other::---")
	if err != nil {
		t.Fatal(err)
	}
	parent := PosixState{Owner: "p", Group: "g", ACL: parentACL}
	got := NewPosixState(parent, posixacl.NewPath{}, posixacl.Principal{ObjectID: "me"})
	if got.Owner != "me" || got.Group != "g" || got.ACL.String() != "user::rwx,user:u1:r-x,group::r-x,mask::r-x,other::---" {
		t.Fatalf("file under a default ACL: %+v", got)
	}
	dir := NewPosixState(RootPosixState(), posixacl.NewPath{Directory: true}, posixacl.Principal{Superuser: true})
	if dir.Owner != posixacl.SuperuserID || dir.ACL.String() != "user::rwx,group::r-x,other::---" {
		t.Fatalf("directory under the root: %+v", dir)
	}
}

// A container's root access control reads back as stored, and a container
// stored without one reads as RootPosixState.
func TestContainerRootAccessRoundTrip(t *testing.T) {
	acl, err := posixacl.ParseACL("user::rwx,user:a1:--x,group::r-x,mask::r-x,other::--x,default:user::rwx,default:group::r-x,default:other::---")
	if err != nil {
		t.Fatal(err)
	}
	stored := &Container{RootPosix: PosixState{Owner: "o1", Group: "g1", Sticky: true, ACL: acl}}
	got, err := DecodeContainer(stored.encode())
	if err != nil {
		t.Fatal(err)
	}
	if r := got.RootAccess(); r.Owner != "o1" || r.Group != "g1" || !r.Sticky || r.ACL.String() != acl.String() {
		t.Errorf("root access read back as %+v", r)
	}
	plain, err := DecodeContainer((&Container{}).encode())
	if err != nil {
		t.Fatal(err)
	}
	if r := plain.RootAccess(); r.Owner != posixacl.SuperuserID || r.ACL.String() != RootPosixState().ACL.String() {
		t.Errorf("a container without one: %+v", r)
	}
}
