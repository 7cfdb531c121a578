package posixacl

import (
	"net/http"
	"testing"

	"github.com/lazuli-storage/lazuli/internal/rule/azerr"
)

const who, someoneElse = "principal-oid", "someone-else"

// granting is a node owned by someone else whose ACL gives the principal,
// as a named user, exactly the short form perm.
func granting(t *testing.T, perm string) Node {
	return Node{Owner: someoneElse, Group: "g", ACL: mustACL(t, "user::rwx,user:"+who+":"+perm+",group::---,mask::rwx,other::---")}
}

// tableRow is one row of "Common scenarios related to ACL permissions":
// the short forms on /, Oregon/, Portland/ and Data.txt ("" where the row
// has no column), and the request whose path is the row's object.
type tableRow struct {
	name  string
	op    Operation
	cells []string
	// self is the index of the object's column; ancestors are those before.
	self   int
	exists bool
}

var permissionsTable = []tableRow{
	{"Read Data.txt", ReadFile, []string{"--x", "--x", "--x", "r--"}, 3, true},
	{"Append to Data.txt", WriteFile, []string{"--x", "--x", "--x", "rw-"}, 3, true},
	{"Delete Data.txt", DeletePath, []string{"--x", "--x", "-wx", "---"}, 3, true},
	{"Create Data.txt", CreatePath, []string{"--x", "--x", "-wx", "---"}, 3, false},
	{"List /", ListDirectory, []string{"r-x"}, 0, true},
	{"List /Oregon/", ListDirectory, []string{"--x", "r-x"}, 1, true},
	{"List /Oregon/Portland/", ListDirectory, []string{"--x", "--x", "r-x"}, 2, true},
}

func (row tableRow) request(t *testing.T, cells []string) Request {
	var path Target
	for i, c := range cells {
		n := granting(t, c)
		if i < row.self {
			path.Ancestors = append(path.Ancestors, n)
		} else if row.exists {
			path.Self = &n
		}
	}
	return Request{Op: row.op, Path: path}
}

func TestAuthorizeFollowsThePermissionsTable(t *testing.T) {
	p := Principal{ObjectID: who}
	for _, row := range permissionsTable {
		if err := Authorize(p, row.request(t, row.cells)); err != nil {
			t.Errorf("%s with %v: %v", row.name, row.cells, err)
		}
		// Each right of the table is needed: without it the service
		// answers 403 AuthorizationPermissionMismatch.
		for i, cell := range row.cells {
			for j := range 3 {
				if cell[j] == '-' {
					continue
				}
				cells := append([]string(nil), row.cells...)
				cells[i] = cell[:j] + "-" + cell[j+1:]
				err := Authorize(p, row.request(t, cells))
				wantCode(t, err, http.StatusForbidden, azerr.AuthorizationPermissionMismatch)
			}
		}
	}
}

func TestAuthorizeStickyBit(t *testing.T) {
	// "if the sticky bit is enabled on a directory, a child item can only
	// be deleted or renamed by the child item's owning user, the
	// directory's owner, or the Superuser".
	request := func(op Operation, fileOwner, dirOwner string) Request {
		dir := granting(t, "-wx")
		dir.Owner, dir.Sticky = dirOwner, true
		file := Node{Owner: fileOwner, ACL: FromMode(0)}
		r := Request{Op: op, Path: Target{Ancestors: []Node{granting(t, "--x"), dir}, Self: &file}}
		if op == RenamePath {
			r.Destination = Target{Ancestors: []Node{granting(t, "--x"), granting(t, "-wx")}}
		}
		return r
	}
	for _, op := range []Operation{DeletePath, RenamePath} {
		for _, c := range []struct {
			cite              string
			p                 Principal
			fileOwner, dirOwn string
			ok                bool
		}{
			{"another user", Principal{ObjectID: who}, someoneElse, someoneElse, false},
			{"the child's owner", Principal{ObjectID: who}, who, someoneElse, true},
			{"the directory's owner", Principal{ObjectID: who}, someoneElse, who, true},
			{"the super-user", Principal{Superuser: true}, someoneElse, someoneElse, true},
		} {
			err := Authorize(c.p, request(op, c.fileOwner, c.dirOwn))
			if (err == nil) != c.ok {
				t.Errorf("op %d, %s: %v", op, c.cite, err)
			}
		}
	}
}

func TestAuthorizeRenameNeedsBothParents(t *testing.T) {
	p := Principal{ObjectID: who}
	file := Node{Owner: who, ACL: FromMode(0)}
	rename := func(destParent string, destExisting *Node) Request {
		return Request{Op: RenamePath,
			Path:        Target{Ancestors: []Node{granting(t, "--x"), granting(t, "-wx")}, Self: &file},
			Destination: Target{Ancestors: []Node{granting(t, "--x"), granting(t, destParent)}, Self: destExisting}}
	}
	if err := Authorize(p, rename("-wx", nil)); err != nil {
		t.Fatalf("WX on both parents: %v", err)
	}
	wantCode(t, Authorize(p, rename("--x", nil)), http.StatusForbidden, azerr.AuthorizationPermissionMismatch)
	// Replacing a destination in a sticky directory is removing it.
	stickyDest := rename("-wx", &Node{Owner: someoneElse, ACL: FromMode(0)})
	stickyDest.Destination.Ancestors[1].Sticky = true
	wantCode(t, Authorize(p, stickyDest), http.StatusForbidden, azerr.AuthorizationPermissionMismatch)
}

func TestAuthorizeRecursiveDelete(t *testing.T) {
	// FAQ: "The parent directory must have Write + Execute permissions.
	// The directory to be deleted, and every directory within it, requires
	// Read + Write + Execute permissions."
	p := Principal{ObjectID: who}
	dir := granting(t, "rwx")
	r := Request{Op: DeleteRecursive, Path: Target{
		Ancestors: []Node{granting(t, "-wx")}, Self: &dir,
		Subtree: []Node{granting(t, "rwx"), granting(t, "rwx")},
	}}
	if err := Authorize(p, r); err != nil {
		t.Fatalf("RWX everywhere: %v", err)
	}
	r.Path.Subtree[1] = granting(t, "-wx")
	wantCode(t, Authorize(p, r), http.StatusForbidden, azerr.AuthorizationPermissionMismatch)
	// "the root directory "/" can never be deleted": it has no parent.
	root := granting(t, "rwx")
	wantCode(t, Authorize(p, Request{Op: DeleteRecursive, Path: Target{Self: &root}}), http.StatusForbidden, azerr.AuthorizationPermissionMismatch)
}

func TestAuthorizeOwnerRules(t *testing.T) {
	member := Principal{ObjectID: who, Groups: []string{"finance"}}
	owned := Node{Owner: who, Group: "g", ACL: FromMode(0)}
	theirs := Node{Owner: someoneElse, Group: "finance", ACL: mustACL(t, "user::rwx,user:"+who+":rwx,group::rwx,mask::rwx,other::rwx")}
	ancestors := []Node{granting(t, "--x")}
	for _, c := range []struct {
		cite     string
		p        Principal
		op       Operation
		self     Node
		newGroup string
		ok       bool
	}{
		{"the owning user can change the permissions of a file it owns", member, SetAccessControl, owned, "", true},
		{"rights on the file do not let a non-owner change its ACL", member, SetAccessControl, theirs, "", false},
		{"the owning group cannot change the ACLs", Principal{ObjectID: "x", Groups: []string{"finance"}}, SetAccessControl, theirs, "", false},
		{"the super-user can change any ACL", Principal{Superuser: true}, SetAccessControl, theirs, "", true},
		{"only super-users can change the owning user", member, SetOwner, owned, "", false},
		{"the super-user can change the owner", Principal{Superuser: true}, SetOwner, theirs, "", true},
		{"the owner may change the group to one it is a member of", member, SetGroup, owned, "finance", true},
		{"the owner may not change it to one it is not in", member, SetGroup, owned, "sales", false},
		{"a non-owner may not change the group", member, SetGroup, theirs, "finance", false},
		{"reading the ACL needs only traversal", member, GetAccessControl, Node{Owner: someoneElse, ACL: FromMode(0)}, "", true},
		{"reading status needs only traversal", member, GetStatus, Node{Owner: someoneElse, ACL: FromMode(0)}, "", true},
	} {
		self := c.self
		err := Authorize(c.p, Request{Op: c.op, Path: Target{Ancestors: ancestors, Self: &self}, NewGroup: c.newGroup})
		if (err == nil) != c.ok {
			t.Errorf("%s: %v", c.cite, err)
		}
	}
	// An operation the table does not know is refused.
	wantCode(t, Authorize(member, Request{Op: Operation(-1)}), http.StatusForbidden, azerr.AuthorizationPermissionMismatch)
	// Traversal is needed for these too.
	self := owned
	err := Authorize(member, Request{Op: SetAccessControl, Path: Target{Ancestors: []Node{granting(t, "rw-")}, Self: &self}})
	wantCode(t, err, http.StatusForbidden, azerr.AuthorizationPermissionMismatch)
}
