package dfs_test

import (
	"net/http"
	"testing"
)

// ownerOf is the owner and owning group of path in filesystem acl, as
// getAccessControl answers them to the account key.
func (e *aclEnv) ownerOf(path string) (owner, group string) {
	e.t.Helper()
	resp := e.must(http.StatusOK, "", http.MethodHead, "acl/"+path+"?action=getAccessControl", nil, "")
	return resp.Header.Get("X-Ms-Owner"), resp.Header.Get("X-Ms-Group")
}

// grantUser gives userOID traverse on the root and every right on d, as
// a named entry within the mask.
func (e *aclEnv) grantUser() {
	e.t.Helper()
	for path, acl := range map[string]string{
		"":  "user::rwx,user:" + userOID + ":--x,group::r-x,mask::r-x,other::---",
		"d": "user::rwx,user:" + userOID + ":rwx,group::r-x,mask::rwx,other::---",
	} {
		e.putACL(path, acl)
	}
}

// A blob the Blob API creates on an account with a hierarchical namespace
// is its creator's, as a path Path - Create makes is ("Access control
// model in Azure Data Lake Storage", "The owning user"): an OAuth caller
// owns what its Put Blob, Put Block List and Copy Blob write and the
// directories they create above it, each taking its parent's owning
// group, and may then change its bits; with Shared Key the owner is
// $superuser.
func TestBlobWritesOwnedByTheirCreator(t *testing.T) {
	e := startACL(t, true, ownerOID)
	e.tree()
	e.grantUser()
	e.must(http.StatusCreated, userOID, http.MethodPut, "acl/d/put", blockBlob, "x")
	e.must(http.StatusCreated, userOID, http.MethodPut, "acl/d/list?comp=block&blockid=YmxvY2sx", nil, "x")
	e.must(http.StatusCreated, userOID, http.MethodPut, "acl/d/list?comp=blocklist", nil, "<BlockList><Latest>YmxvY2sx</Latest></BlockList>")
	e.must(http.StatusCreated, userOID, http.MethodPut, "acl/d/log", http.Header{"X-Ms-Blob-Type": {"AppendBlob"}}, "")
	e.must(http.StatusAccepted, userOID, http.MethodPut, "acl/d/copy", http.Header{"X-Ms-Copy-Source": {e.url + "acl/d/list"}}, "")
	e.must(http.StatusCreated, userOID, http.MethodPut, "acl/d/sub/deep/put", blockBlob, "x")
	for _, path := range []string{"d/put", "d/list", "d/log", "d/copy", "d/sub", "d/sub/deep", "d/sub/deep/put"} {
		if owner, group := e.ownerOf(path); owner != userOID || group != "$superuser" {
			t.Errorf("%s is owned by %q, group %q; want %q, $superuser", path, owner, group, userOID)
		}
	}
	e.must(http.StatusOK, userOID, http.MethodPatch, "acl/d/put?action=setAccessControl", http.Header{"X-Ms-Permissions": {"rw-------"}}, "")

	e.must(http.StatusCreated, "", http.MethodPut, "acl/d/keyed", blockBlob, "x")
	if owner, _ := e.ownerOf("d/keyed"); owner != "$superuser" {
		t.Errorf("a blob the account key writes is owned by %q", owner)
	}
}

// The Blob writes to an existing blob need what a write to the file needs
// through the Data Lake API, not a role: execute on every directory on
// the way and read and write on the file itself ("Common scenarios
// related to ACL permissions"). A caller that may only read the file is
// refused each of them, with 403 AuthorizationPermissionMismatch.
func TestBlobWritesNeedWriteOnTheFile(t *testing.T) {
	e := startACL(t, true, ownerOID)
	e.tree()
	e.grantUser()
	e.must(http.StatusCreated, "", http.MethodPut, "acl/d/log", http.Header{"X-Ms-Blob-Type": {"AppendBlob"}}, "")
	writes := []struct {
		path   string
		header http.Header
		body   string
		want   int
	}{
		{"acl/d/f?comp=metadata", http.Header{"X-Ms-Meta-A": {"b"}}, "", http.StatusOK},
		{"acl/d/f?comp=properties", http.Header{"X-Ms-Blob-Content-Type": {"text/plain"}}, "", http.StatusOK},
		{"acl/d/f?comp=block&blockid=YmxvY2sx", nil, "x", http.StatusCreated},
		{"acl/d/log?comp=appendblock", nil, "x", http.StatusCreated},
		{"acl/d/f?comp=snapshot", nil, "", http.StatusCreated},
		{"acl/d/f?comp=tier", http.Header{"X-Ms-Access-Tier": {"Cool"}}, "", http.StatusOK},
		{"acl/d/f?comp=lease", http.Header{"X-Ms-Lease-Action": {"acquire"}, "X-Ms-Lease-Duration": {"15"}}, "", http.StatusCreated},
	}
	readOnly := "user::rw-,user:" + userOID + ":r--,group::r--,mask::rw-,other::---"
	readWrite := "user::rw-,user:" + userOID + ":rw-,group::r--,mask::rw-,other::---"
	for _, path := range []string{"d/f", "d/log"} {
		e.putACL(path, readOnly)
	}
	for _, w := range writes {
		e.denied(userOID, http.MethodPut, w.path, w.header, w.body)
	}
	for _, path := range []string{"d/f", "d/log"} {
		e.putACL(path, readWrite)
	}
	for _, w := range writes {
		e.must(w.want, userOID, http.MethodPut, w.path, w.header, w.body)
	}
}

// A copy whose source the caller's own token reads (a blob of its account,
// no SAS, no x-ms-copy-source-authorization) reads it as Get Blob does: a
// caller the ACLs let create the destination but not read the source is
// refused with 403 AuthorizationPermissionMismatch, and copies once it may
// read it. A source URL with a SAS is that SAS's to authorize.
func TestBlobCopyNeedsReadOnItsSource(t *testing.T) {
	e := startACL(t, true, ownerOID)
	e.tree()
	e.grantUser()
	source := http.Header{"X-Ms-Copy-Source": {e.url + "acl/d/f"}}
	syncSource := http.Header{"X-Ms-Copy-Source": {e.url + "acl/d/f"}, "X-Ms-Requires-Sync": {"true"}}
	fromURL := http.Header{"X-Ms-Copy-Source": {e.url + "acl/d/f"}, "X-Ms-Blob-Type": {"BlockBlob"}}
	e.putACL("d/f", "user::rw-,group::r--,other::---")
	e.denied(userOID, http.MethodPut, "acl/d/copy", source, "")
	e.denied(userOID, http.MethodPut, "acl/d/synccopy", syncSource, "")
	e.denied(userOID, http.MethodPut, "acl/d/fromurl", fromURL, "")

	e.putACL("d/f", "user::rw-,user:"+userOID+":r--,group::r--,mask::r--,other::---")
	e.must(http.StatusAccepted, userOID, http.MethodPut, "acl/d/copy", source, "")
	e.must(http.StatusAccepted, userOID, http.MethodPut, "acl/d/synccopy", syncSource, "")
	e.must(http.StatusCreated, userOID, http.MethodPut, "acl/d/fromurl", fromURL, "")
}

// Get Blob Metadata, Get Block List and Query Blob Contents read a
// file's content or metadata, as Get Blob does: a principal the ACLs
// decide needs read on the file and execute on the way, not a role.
func TestBlobReadsNeedReadOnTheFile(t *testing.T) {
	e := startACL(t, true, ownerOID)
	e.tree()
	e.putACL("", "user::rwx,user:"+userOID+":--x,group::r-x,mask::r-x,other::---")
	e.putACL("d", "user::rwx,user:"+userOID+":--x,group::r-x,mask::r-x,other::---")
	query := `<?xml version="1.0" encoding="UTF-8"?><QueryRequest><QueryType>SQL</QueryType>` +
		`<Expression>SELECT * FROM BlobStorage</Expression></QueryRequest>`
	reads := []struct{ method, path, body string }{
		{http.MethodGet, "acl/d/f?comp=metadata", ""},
		{http.MethodHead, "acl/d/f?comp=metadata", ""},
		{http.MethodGet, "acl/d/f?comp=blocklist&blocklisttype=all", ""},
		{http.MethodPost, "acl/d/f?comp=query", query},
	}
	e.putACL("d/f", "user::rw-,user:"+userOID+":-wx,group::r--,mask::rwx,other::---")
	for _, r := range reads {
		e.denied(userOID, r.method, r.path, nil, r.body)
	}
	e.putACL("d/f", "user::rw-,user:"+userOID+":r--,group::r--,mask::r--,other::---")
	for _, r := range reads {
		e.must(http.StatusOK, userOID, r.method, r.path, nil, r.body)
	}
	// Execute on the way is still needed.
	e.putACL("d", "user::rwx,user:"+userOID+":r--,group::r-x,mask::r-x,other::---")
	for _, r := range reads {
		e.denied(userOID, r.method, r.path, nil, r.body)
	}
}
