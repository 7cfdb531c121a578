package posixacl

import (
	"net/http"
	"strings"
	"testing"
)

func TestSet(t *testing.T) {
	for _, c := range []struct {
		cite, in string
		dir      bool
		want     string
	}{
		{"x-ms-acl replaces the ACL (SDKs' recorded set tests)", "user::rwx,group::r-x,other::rwx", false,
			"user::rwx,group::r-x,other::rwx"},
		{"a mask given is kept (Azure CLI's recorded set)", "user::rwx,group::r--,other::---,mask::rwx", true,
			"user::rwx,group::r--,mask::rwx,other::---"},
		{"named entries without a mask get the group class's union", "user::rwx,user:" + oid + ":r--,group::--x,other::---", false,
			"user::rwx,user:" + oid + ":r--,group::--x,mask::r-x,other::---"},
		{"a partial default ACL gets the base entries from the access ACL", "user::rwx,group::r-x,other::---,default:user:" + oid + ":rwx", true,
			"user::rwx,group::r-x,other::---,default:user::rwx,default:user:" + oid + ":rwx,default:group::r-x,default:mask::rwx,default:other::---"},
		{"files do not have default ACLs", "user::rw-,group::r--,other::---,default:user::rwx,default:group::r-x,default:other::---", false,
			"user::rw-,group::r--,other::---"},
	} {
		got, err := Set(mustACL(t, c.in), c.dir)
		if err != nil || got.String() != c.want {
			t.Errorf("%s: Set(%q) = %q, %v; want %q", c.cite, c.in, got, err, c.want)
		}
	}
}

func TestSetRefusesIncompleteACL(t *testing.T) {
	// An ACL holds the owner, owning group and other entries (x-ms-acl:
	// "user" grants rights to the owner, "group" to the owning group,
	// "other" to all users not found in any other entry) and at most 32
	// entries per scope (ACL entry limits).
	var many []string
	for i := range MaxEntries - 3 {
		many = append(many, "user:u"+strings.Repeat("x", i)+":r--")
	}
	for _, in := range []string{
		"user::rwx,group::r-x",
		"user::rwx,other::---",
		"group::r-x,other::---",
		"user:" + oid + ":rwx",
		"user::rwx,group::r-x,other::---," + strings.Join(many, ","),
	} {
		_, err := Set(mustACL(t, in), true)
		wantCode(t, err, http.StatusBadRequest, CodeInvalidAccessControlList)
	}
	// 32 entries, mask included, is the most there may be.
	if _, err := Set(mustACL(t, "user::rwx,group::r-x,other::---,"+strings.Join(many[1:], ",")), true); err != nil {
		t.Fatalf("32 entries: %v", err)
	}
}

func TestModify(t *testing.T) {
	base := "user::rwx,group::r-x,other::rwx"
	for _, c := range []struct {
		cite, existing, spec, want string
	}{
		{"the Go SDK's recorded TestFileUpdateAccessControl reads back the spec", base, "user::rwx,group::r--,other::r--",
			"user::rwx,group::r--,other::r--"},
		{"a named entry is added and the mask recalculated", base, "user:" + oid + ":rw-",
			"user::rwx,user:" + oid + ":rw-,group::r-x,mask::rwx,other::rwx"},
		{"an existing named entry takes the new rights; the mask follows", "user::rwx,user:" + oid + ":rwx,group::r--,mask::rwx,other::---", "user:" + oid + ":r--",
			"user::rwx,user:" + oid + ":r--,group::r--,mask::r--,other::---"},
		{"a mask the change names is kept", "user::rwx,user:" + oid + ":rwx,group::r--,mask::rwx,other::---", "user:" + oid + ":r--,mask::--x",
			"user::rwx,user:" + oid + ":r--,group::r--,mask::--x,other::---"},
		{"a scope the change does not touch keeps its mask", "user::rwx,group::r--,mask::---,other::---", "default:user::rwx",
			"user::rwx,group::r--,mask::---,other::---,default:user::rwx,default:group::r--,default:other::---"},
	} {
		got, err := Modify(mustACL(t, c.existing), mustACL(t, c.spec), true)
		if err != nil || got.String() != c.want {
			t.Errorf("%s: Modify(%q, %q) = %q, %v; want %q", c.cite, c.existing, c.spec, got, err, c.want)
		}
	}
}

func TestRemove(t *testing.T) {
	removeAll := "mask,default:user,default:group,user:" + oid + ",group:" + oid + ",default:user:" + oid + ",default:group:" + oid
	named := "user::rwx,user:" + oid + ":rwx,group::r--,group:" + oid + ":r-x,mask::rwx,other::---"
	for _, c := range []struct {
		cite, existing, remove string
		dir                    bool
		want                   string
	}{
		{"the SDKs' recorded remove on a new file succeeds", "user::rw-,group::r--,other::---", removeAll, false,
			"user::rw-,group::r--,other::---"},
		{"removing every named entry and the mask leaves the base", named, removeAll, true,
			"user::rwx,group::r--,other::---"},
		{"the mask of what stays is recalculated", named, "group:" + oid, true,
			"user::rwx,user:" + oid + ":rwx,group::r--,mask::rwx,other::---"},
		{"a default ACL loses its entries", named + ",default:user::rwx,default:group::r--,default:other::---",
			"default:user,default:group,default:other", true, named},
	} {
		keys, err := ParseRemoveList(c.remove)
		if err != nil {
			t.Fatal(err)
		}
		got, err := Remove(mustACL(t, c.existing), keys, c.dir)
		if err != nil || got.String() != c.want {
			t.Errorf("%s: Remove(%q, %q) = %q, %v; want %q", c.cite, c.existing, c.remove, got, err, c.want)
		}
	}
}

func TestRemoveRefuses(t *testing.T) {
	named := "user::rwx,user:" + oid + ":rwx,group::r--,mask::rwx,other::---"
	for _, c := range []struct{ cite, remove string }{
		{"the owner's entry is required", "user"},
		{"the owning group's entry is required", "group"},
		{"other's entry is required", "other"},
		{"a mask cannot go while named entries stay", "mask"},
	} {
		keys, err := ParseRemoveList(c.remove)
		if err != nil {
			t.Fatal(err)
		}
		_, err = Remove(mustACL(t, named), keys, true)
		wantCode(t, err, http.StatusBadRequest, CodeInvalidAccessControlList)
	}
}

func TestWithMode(t *testing.T) {
	// The group bits of x-ms-permissions are the group class: the mask
	// when the ACL has one (section "The mask"), else the owning group.
	if got := WithMode(FromMode(0o750), 0o604).String(); got != "user::rw-,group::---,other::r--" {
		t.Errorf("WithMode without mask = %q", got)
	}
	named := mustACL(t, "user::rwx,user:"+oid+":rwx,group::r-x,mask::rwx,other::---")
	if got := WithMode(named, 0o740).String(); got != "user::rwx,user:"+oid+":rwx,group::r-x,mask::r--,other::---" {
		t.Errorf("WithMode with mask = %q", got)
	}
}
