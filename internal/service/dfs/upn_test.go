package dfs_test

import (
	"encoding/json"
	"io"
	"net/http"
	"sort"
	"strings"
	"testing"
)

// Principals of the upn tests beside ownerOID and userOID: one no token
// with a upn claim has named, and a group.
const (
	strangerOID = "0c000000-0000-4000-8000-00000000000c"
	groupOID    = "0d000000-0000-4000-8000-00000000000d"
)

// upnACL names userOID, strangerOID and groupOID in d's access and
// default ACLs.
const upnACL = "user::rwx,user:" + userOID + ":r-x,user:" + strangerOID + ":r--,group::r-x,group:" + groupOID + ":r-x," +
	"mask::r-x,other::---,default:user::rwx,default:user:" + userOID + ":rwx,default:group::r-x,default:mask::rwx,default:other::---"

// upnTree makes filesystem acl and directory d as ownerOID, whose token
// names it ann@contoso.example, gives d upnACL and lets userOID's token,
// naming it bo@contoso.example, make one request.
func upnTree(e *aclEnv) {
	e.t.Helper()
	e.upns[ownerOID], e.upns[userOID] = "ann@contoso.example", "bo@contoso.example"
	e.must(http.StatusCreated, ownerOID, http.MethodPut, "acl?resource=filesystem", nil, "")
	e.must(http.StatusCreated, ownerOID, http.MethodPut, "acl/d?resource=directory", nil, "")
	e.putACL("d", upnACL)
	e.do(userOID, http.MethodHead, "acl/d?action=getStatus", nil, "")
}

// accessOf is getAccessControl of path in filesystem acl, with query
// added, as the account key reads it: x-ms-owner, x-ms-group and the
// entries of x-ms-acl, sorted.
func (e *aclEnv) accessOf(path, query string) (owner, group string, acl []string) {
	e.t.Helper()
	resp := e.must(http.StatusOK, "", http.MethodHead, "acl/"+path+"?action=getAccessControl"+query, nil, "")
	acl = strings.Split(resp.Header.Get("X-Ms-Acl"), ",")
	sort.Strings(acl)
	return resp.Header.Get("X-Ms-Owner"), resp.Header.Get("X-Ms-Group"), acl
}

// listedOwners is each path's owner as Path - List of filesystem acl,
// with query added, lists it.
func (e *aclEnv) listedOwners(query string) map[string]string {
	e.t.Helper()
	resp := e.do("", http.MethodGet, "acl?resource=filesystem&recursive=true"+query, nil, "")
	body, _ := io.ReadAll(resp.Body)
	var doc struct {
		Paths []struct{ Name, Owner string } `json:"paths"`
	}
	if err := json.Unmarshal(body, &doc); resp.StatusCode != http.StatusOK || err != nil {
		e.t.Fatalf("Path - List%s: %d %s %v", query, resp.StatusCode, body, err)
	}
	owners := map[string]string{}
	for _, p := range doc.Paths {
		owners[p.Name] = p.Owner
	}
	return owners
}

// wantAccess asserts getAccessControl of d with query answers owner and
// the owning group $superuser (a group, never translated), and an ACL
// whose named users are user and strangerOID and whose group is groupOID.
func wantAccess(t *testing.T, e *aclEnv, query, owner, user string) {
	t.Helper()
	gotOwner, gotGroup, acl := e.accessOf("d", query)
	want := []string{"default:group::r-x", "default:mask::rwx", "default:other::---", "default:user::rwx",
		"default:user:" + user + ":rwx", "group::r-x", "group:" + groupOID + ":r-x", "mask::r-x", "other::---",
		"user::rwx", "user:" + strangerOID + ":r--", "user:" + user + ":r-x"}
	sort.Strings(want)
	if gotOwner != owner || gotGroup != "$superuser" || strings.Join(acl, ",") != strings.Join(want, ",") {
		t.Errorf("getAccessControl%s: owner %q group %q acl %v, want %q, $superuser, %v", query, gotOwner, gotGroup, acl, owner, want)
	}
}

// TestUPNTranslatesKnownUsers: with upn=true getAccessControl, Path - Get
// Properties and Path - List answer a user's object ID by the name its
// token gave, in the owner and every named user entry, access and
// default; an ID no token named, the owning group and group entries stay
// IDs; upn=false and no upn answer IDs; a token with a new name for its
// object renames it.
func TestUPNTranslatesKnownUsers(t *testing.T) {
	e := startACL(t, true, ownerOID)
	upnTree(e)

	wantAccess(t, e, "&upn=true", "ann@contoso.example", "bo@contoso.example")
	wantAccess(t, e, "&upn=false", ownerOID, userOID)
	wantAccess(t, e, "", ownerOID, userOID)
	if got := e.listedOwners("&upn=true")["d"]; got != "ann@contoso.example" {
		t.Errorf("Path - List upn=true lists owner %q, want ann@contoso.example", got)
	}
	if got := e.listedOwners("&upn=false")["d"]; got != ownerOID {
		t.Errorf("Path - List upn=false lists owner %q, want %s", got, ownerOID)
	}
	if resp := e.do("", http.MethodHead, "acl/d?upn=true", nil, ""); resp.Header.Get("X-Ms-Owner") != "ann@contoso.example" {
		t.Errorf("Path - Get Properties upn=true: owner %q, want ann@contoso.example", resp.Header.Get("X-Ms-Owner"))
	}

	root := http.Header{"X-Ms-Owner": {userOID}}
	e.must(http.StatusOK, "", http.MethodPatch, "acl/?action=setAccessControl", root, "")
	if resp := e.do("", http.MethodHead, "acl/?action=getAccessControl&upn=true", nil, ""); resp.Header.Get("X-Ms-Owner") != "bo@contoso.example" {
		t.Errorf("getAccessControl of the root upn=true: owner %q, want bo@contoso.example", resp.Header.Get("X-Ms-Owner"))
	}

	e.upns[ownerOID] = "ann.b@contoso.example"
	e.do(ownerOID, http.MethodHead, "acl/d?action=getStatus", nil, "")
	if owner, _, _ := e.accessOf("d", "&upn=true"); owner != "ann.b@contoso.example" {
		t.Errorf("after a token with a new name: owner %q, want ann.b@contoso.example", owner)
	}
}

// TestUPNRefusesANonBoolean: upn is true or false, 400 otherwise.
func TestUPNRefusesANonBoolean(t *testing.T) {
	e := startACL(t, true, ownerOID)
	upnTree(e)
	for _, path := range []string{"acl/d?action=getAccessControl&upn=maybe", "acl?resource=filesystem&recursive=true&upn=maybe"} {
		method := http.MethodHead
		if strings.Contains(path, "resource=") {
			method = http.MethodGet
		}
		if got, code := e.send("", method, path, nil, ""); got != http.StatusBadRequest {
			t.Errorf("%s %s: %d %s, want 400", method, path, got, code)
		}
	}
}

// TestUPNSurvivesRestart: the names tokens gave are the store's, so a
// restarted server (which remembers nothing in memory) answers them.
func TestUPNSurvivesRestart(t *testing.T) {
	e := startACLOn(t, true, ownerOID, false)
	upnTree(e)
	e.in.Restart(t)
	e.connect()
	wantAccess(t, e, "&upn=true", "ann@contoso.example", "bo@contoso.example")
	if got := e.listedOwners("&upn=true")["d"]; got != "ann@contoso.example" {
		t.Errorf("Path - List upn=true after a restart lists owner %q, want ann@contoso.example", got)
	}
}
