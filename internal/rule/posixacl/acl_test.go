package posixacl

import (
	"net/http"
	"slices"
	"testing"

	"github.com/lazuli-storage/lazuli/internal/rule/azerr"
)

const oid = "ec3595d6-2c17-4696-8caa-7e139758d24a"

func mustACL(t *testing.T, s string) ACL {
	t.Helper()
	a, err := ParseACL(s)
	if err != nil {
		t.Fatalf("ParseACL(%q): %v", s, err)
	}
	return a
}

func TestParseACL(t *testing.T) {
	// Path - Update, x-ms-acl: "[scope:][type]:[id]:[permissions]".
	got := mustACL(t, "user::rwx,user:"+oid+":r-x,group::r--,default:other::---,mask::rw-")
	want := ACL{
		{Tag: TagUser, Perm: All},
		{Tag: TagUser, ID: oid, Perm: Read | Execute},
		{Tag: TagGroup, Perm: Read},
		{Default: true, Tag: TagOther},
		{Tag: TagMask, Perm: Read | Write},
	}
	if !slices.Equal(got, want) {
		t.Fatalf("ParseACL = %v, want %v", got, want)
	}
}

func TestParseACLRefusesMalformed(t *testing.T) {
	// The .NET SDK's recorded SetAccessControlAsync_Error sends "asdf" and
	// reads 400 InvaldAccessControlList "The access control list value is
	// invalid.".
	for _, in := range []string{
		"asdf", "", ",", "user::rwx,", "user:rwx", "user::rwxr", "user::rwz", "user::RWX",
		"users::rwx", "User::rwx", "default::rwx", "default:user:rwx", "scope:user::rwx",
		"mask:" + oid + ":rwx", "other:" + oid + ":---", "user::rwx,user::r--",
		"user:a:b:rwx", "default:default:user::rwx",
	} {
		_, err := ParseACL(in)
		wantCode(t, err, http.StatusBadRequest, CodeInvalidAccessControlList)
		if e, _ := azerr.As(err); e.Message != "The access control list value is invalid." {
			t.Errorf("ParseACL(%q) message %q", in, e.Message)
		}
	}
}

func TestParseRemoveList(t *testing.T) {
	// The SDKs' recorded remove tests send exactly this list.
	got, err := ParseRemoveList("mask,default:user,default:group,user:" + oid + ",group:" + oid +
		",default:user:" + oid + ",default:group:" + oid)
	if err != nil {
		t.Fatal(err)
	}
	want := []Key{
		{Tag: TagMask}, {Default: true, Tag: TagUser}, {Default: true, Tag: TagGroup},
		{Tag: TagUser, ID: oid}, {Tag: TagGroup, ID: oid},
		{Default: true, Tag: TagUser, ID: oid}, {Default: true, Tag: TagGroup, ID: oid},
	}
	if !slices.Equal(got, want) {
		t.Fatalf("ParseRemoveList = %v, want %v", got, want)
	}
	for _, in := range []string{"", "user::rwx", "user:" + oid + ":r-x", "mask:" + oid, "nobody", "default", "mask,mask"} {
		_, err := ParseRemoveList(in)
		wantCode(t, err, http.StatusBadRequest, CodeInvalidAccessControlList)
	}
}

func TestACLStringOrder(t *testing.T) {
	// Azure CLI's recorded test sets "user::rwx,group::r--,other::---,mask::rwx"
	// and reads back "user::rwx,group::r--,mask::rwx,other::---".
	got, err := Set(mustACL(t, "user::rwx,group::r--,other::---,mask::rwx"), true)
	if err != nil {
		t.Fatal(err)
	}
	if s := got.String(); s != "user::rwx,group::r--,mask::rwx,other::---" {
		t.Fatalf("String = %q", s)
	}
	if k := (Key{Default: true, Tag: TagUser}).String(); k != "default:user" {
		t.Fatalf("Key.String = %q", k)
	}
}

func TestACLModeAndExtended(t *testing.T) {
	// The mode's group bits stand for the mask when there is one (section
	// "The mask": the mask limits the owning group and named entries).
	plain := FromMode(0o750)
	if plain.Mode() != 0o750 || plain.Extended() {
		t.Fatalf("FromMode(0750) = %v: mode %o extended %v", plain, plain.Mode(), plain.Extended())
	}
	named := mustACL(t, "user::rwx,user:"+oid+":rwx,group::r-x,mask::r--,other::---")
	if named.Mode() != 0o740 || !named.Extended() {
		t.Fatalf("mode %o extended %v", named.Mode(), named.Extended())
	}
	if s := named.Mode().Symbolic(named.Extended()); s != "rwxr-----+" {
		t.Fatalf("Symbolic = %q", s)
	}
}
