package dfs_test

import (
	"encoding/json"
	"net/http"
	"slices"
	"testing"
)

// listingTree makes filesystem acl with d/f, d/sub/secret and the empty
// d/empty, all the super-user's, and lets userOID traverse the root and
// list d (r-x): d/sub and d/empty keep the default rwxr-x---, which
// gives userOID, neither their owner nor in their group, nothing.
func listingTree(e *aclEnv) {
	e.t.Helper()
	e.tree()
	e.must(http.StatusCreated, "", http.MethodPut, "acl/d/sub/secret", blockBlob, "x")
	e.must(http.StatusCreated, "", http.MethodPut, "acl/d/empty?resource=directory", nil, "")
	e.putACL("", "user::rwx,user:"+userOID+":--x,group::r-x,mask::r-x,other::---")
	e.putACL("d", "user::rwx,user:"+userOID+":r-x,group::r-x,mask::r-x,other::---")
}

// listedPaths is the names of a Path - List page userOID is answered,
// and its continuation.
func (e *aclEnv) listedPaths(query string) (names []string, next string) {
	e.t.Helper()
	resp := e.must(http.StatusOK, userOID, http.MethodGet, "acl?resource=filesystem&"+query, nil, "")
	var doc struct {
		Paths []struct{ Name string } `json:"paths"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&doc); err != nil {
		e.t.Fatalf("Path - List %s: %v", query, err)
	}
	for _, p := range doc.Paths {
		names = append(names, p.Name)
	}
	return names, resp.Header.Get("X-Ms-Continuation")
}

// A recursive listing answers the contents of every directory below the
// one it lists, so it needs what listing each of them needs ("Access
// control model in Azure Data Lake Storage", the table of operations:
// R-X on the directory listed): a principal that may list d but not
// d/sub is refused Path - List of d with recursive=true, and List Blobs
// of prefix d/ without a delimiter, with 403
// AuthorizationPermissionMismatch, while d's own children stay listable.
// An empty directory it may not list answers nothing of its own and
// refuses nothing.
func TestRecursiveListingNeedsEverySubdirectory(t *testing.T) {
	e := startACL(t, true, ownerOID)
	listingTree(e)
	e.denied(userOID, http.MethodGet, "acl?resource=filesystem&directory=d&recursive=true", nil, "")
	e.denied(userOID, http.MethodGet, "acl?restype=container&comp=list&prefix=d/", nil, "")
	e.denied(userOID, http.MethodGet, "acl?restype=container&comp=list&prefix=d/s", nil, "")
	// A delimiter other than / groups names across directories:
	// d/sub/secret is answered as the BlobPrefix d/sub/se.
	e.denied(userOID, http.MethodGet, "acl?restype=container&comp=list&prefix=d/&delimiter=e", nil, "")
	// A page that would end just before d/sub/secret names it in its
	// continuation.
	e.denied(userOID, http.MethodGet, "acl?resource=filesystem&directory=d&recursive=true&maxResults=3", nil, "")

	if names, _ := e.listedPaths("directory=d&recursive=false"); !slices.Equal(names, []string{"d/empty", "d/f", "d/sub"}) {
		t.Fatalf("non-recursive listing of d: %v", names)
	}
	e.must(http.StatusOK, userOID, http.MethodGet, "acl?restype=container&comp=list&prefix=d/&delimiter=/", nil, "")
	e.must(http.StatusOK, userOID, http.MethodGet, "acl?restype=container&comp=list&prefix=d/e", nil, "")

	e.putACL("d/sub", "user::rwx,user:"+userOID+":r-x,group::r-x,mask::r-x,other::---")
	want := []string{"d/empty", "d/f", "d/sub", "d/sub/secret"}
	if names, _ := e.listedPaths("directory=d&recursive=true"); !slices.Equal(names, want) {
		t.Fatalf("recursive listing of d: %v, want %v", names, want)
	}
	e.must(http.StatusOK, userOID, http.MethodGet, "acl?restype=container&comp=list&prefix=d/", nil, "")
	// Shared Key is the super-user, whom no ACL refuses.
	e.putACL("d/sub", "user::rwx,group::r-x,other::---")
	e.must(http.StatusOK, "", http.MethodGet, "acl?resource=filesystem&directory=d&recursive=true", nil, "")
	e.must(http.StatusOK, ownerOID, http.MethodGet, "acl?restype=container&comp=list&prefix=d/", nil, "")
}

// A continued page is checked as the first was: one that resumes inside
// a directory the principal may no longer list is refused, though the
// page that named it was answered.
func TestRecursiveListingContinuationRechecks(t *testing.T) {
	e := startACL(t, true, ownerOID)
	listingTree(e)
	e.putACL("d/sub", "user::rwx,user:"+userOID+":r-x,group::r-x,mask::r-x,other::---")
	names, next := e.listedPaths("directory=d&recursive=true&maxResults=3")
	if !slices.Equal(names, []string{"d/empty", "d/f", "d/sub"}) || next == "" {
		t.Fatalf("first page %v, continuation %q", names, next)
	}
	e.putACL("d/sub", "user::rwx,group::r-x,other::---")
	e.denied(userOID, http.MethodGet, "acl?resource=filesystem&directory=d&recursive=true&maxResults=3&continuation="+next, nil, "")
	e.putACL("d/sub", "user::rwx,user:"+userOID+":r-x,group::r-x,mask::r-x,other::---")
	if names, _ := e.listedPaths("directory=d&recursive=true&maxResults=3&continuation=" + next); !slices.Equal(names, []string{"d/sub/secret"}) {
		t.Fatalf("second page %v", names)
	}
}
