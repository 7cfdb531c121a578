package dfs_test

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/lazuli-storage/lazuli/internal/check/lazulitest"
	"github.com/lazuli-storage/lazuli/internal/rule/auth"
	"github.com/lazuli-storage/lazuli/internal/run/config"
)

// The object ids of the ACL tests: the one principal --dataOwners names,
// and one without a role.
const (
	ownerOID = "0a000000-0000-4000-8000-00000000000a"
	userOID  = "0b000000-0000-4000-8000-00000000000b"
)

// aclEnv is a server over HTTPS accepting Bearer tokens, whose callers
// are the account key ("") or a principal's token.
type aclEnv struct {
	t         *testing.T
	in        *lazulitest.Instance
	pool      *x509.CertPool
	url, port string
	client    *http.Client
	// groups are the group claims of each principal's tokens, upns their
	// upn claims.
	groups map[string][]string
	upns   map[string]string
}

// productionURL is the server's URL in the form the SDKs take the account
// from (https://account.blob.core.windows.net).
func (e *aclEnv) productionURL() string {
	return "https://" + lazulitest.Account + ".blob.core.windows.net:" + e.port + "/"
}

// startACL runs the server with the dev account hierarchical when hns,
// and --dataOwners when owners is not "" (absent otherwise).
func startACL(t *testing.T, hns bool, owners string) *aclEnv {
	t.Helper()
	return startACLOn(t, hns, owners, true)
}

// startACLOn is startACL on the memory engines when inMemory, else on a
// data directory that Restart keeps.
func startACLOn(t *testing.T, hns bool, owners string, inMemory bool) *aclEnv {
	t.Helper()
	certPath, keyPath, pool := selfSignedFiles(t)
	in := lazulitest.Start(t, lazulitest.Options{InMemory: inMemory, Services: []string{"blob"}, Configure: func(c *config.Config) {
		c.Cert, c.Key, c.OAuth = certPath, keyPath, &auth.OAuth{}
		if owners != "" {
			o, err := auth.ParseDataOwners(owners)
			if err != nil {
				t.Fatal(err)
			}
			c.OAuth.DataOwners = o
		}
		if hns {
			c.HNSAccounts = []string{lazulitest.Account}
		}
	}})
	e := &aclEnv{t: t, in: in, pool: pool, groups: map[string][]string{}, upns: map[string]string{}}
	e.connect()
	return e
}

// connect points the client at the server's current port (a Restart
// gives new ones).
func (e *aclEnv) connect() {
	e.t.Helper()
	u, err := url.Parse(e.in.BlobURL)
	if err != nil {
		e.t.Fatal(err)
	}
	// Every host name reaches the server, so that a production-style URL
	// names the account as the SDKs read it from the host.
	dial := func(ctx context.Context, network, _ string) (net.Conn, error) {
		return (&net.Dialer{}).DialContext(ctx, network, u.Host)
	}
	e.url, e.port = strings.TrimSuffix(e.in.BlobURL, "/")+"/", u.Port()
	e.client = &http.Client{Transport: &http.Transport{
		DialContext: dial, TLSClientConfig: &tls.Config{RootCAs: e.pool, ServerName: "127.0.0.1"}}}
}

// send makes a request as oid ("" for the account key) and returns its
// status and error code.
func (e *aclEnv) send(oid, method, path string, header http.Header, body string) (int, string) {
	e.t.Helper()
	resp := e.do(oid, method, path, header, body)
	return resp.StatusCode, resp.Header.Get("x-ms-error-code")
}

// do makes a request as oid ("" for the account key) and returns its
// answer, the body read into memory.
func (e *aclEnv) do(oid, method, path string, header http.Header, body string) *http.Response {
	e.t.Helper()
	req, err := http.NewRequest(method, e.url+path, bytes.NewReader([]byte(body)))
	if err != nil {
		e.t.Fatal(err)
	}
	for k, v := range header {
		req.Header[k] = v
	}
	req.Header.Set("x-ms-version", "2025-01-05")
	req.Header.Set("x-ms-date", time.Now().UTC().Format(http.TimeFormat))
	if oid == "" {
		auth.SignSharedKey(req, auth.Blob, lazulitest.Account, lazulitest.KeyBytes())
	} else {
		req.Header.Set("Authorization", "Bearer "+e.token(oid))
	}
	resp, err := e.client.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		e.t.Fatal(err)
	}
	resp.Body = io.NopCloser(bytes.NewReader(b))
	return resp
}

// token is a token of oid with its groups and upn claims.
func (e *aclEnv) token(oid string) string {
	extra := map[string]any{}
	if g := e.groups[oid]; len(g) > 0 {
		extra["groups"] = g
	}
	if upn := e.upns[oid]; upn != "" {
		extra["upn"] = upn
	}
	return tokenWith(e.t, oid, extra)
}

// must asserts a request's status and returns its answer.
func (e *aclEnv) must(want int, oid, method, path string, header http.Header, body string) *http.Response {
	e.t.Helper()
	resp := e.do(oid, method, path, header, body)
	if resp.StatusCode != want {
		e.t.Fatalf("%s %s as %q: %d %s, want %d", method, path, oid, resp.StatusCode, resp.Header.Get("x-ms-error-code"), want)
	}
	return resp
}

// denied asserts a request is 403 AuthorizationPermissionMismatch.
func (e *aclEnv) denied(oid, method, path string, header http.Header, body string) {
	e.t.Helper()
	if got, code := e.send(oid, method, path, header, body); got != http.StatusForbidden || code != "AuthorizationPermissionMismatch" {
		e.t.Fatalf("%s %s as %q: %d %s, want 403 AuthorizationPermissionMismatch", method, path, oid, got, code)
	}
}

// putACL is setAccessControl of path ("" for the root) with an ACL, as
// the account key, which must succeed.
func (e *aclEnv) putACL(path, acl string) {
	e.t.Helper()
	e.must(http.StatusOK, "", http.MethodPatch, "acl/"+path+"?action=setAccessControl", http.Header{"X-Ms-Acl": {acl}}, "")
}

// tree makes filesystem acl with directory d and file d/f ("hello"), all
// the super-user's, as the account key makes them.
func (e *aclEnv) tree() {
	e.t.Helper()
	e.must(http.StatusCreated, "", http.MethodPut, "acl?resource=filesystem", nil, "")
	e.must(http.StatusCreated, "", http.MethodPut, "acl/d?resource=directory", nil, "")
	e.must(http.StatusCreated, "", http.MethodPut, "acl/d/f", http.Header{"X-Ms-Blob-Type": {"BlockBlob"}}, "hello")
}

var blockBlob = http.Header{"X-Ms-Blob-Type": {"BlockBlob"}}

// A principal without a role reads a file through dfs and Blob only once
// the ACLs let it: read on the file by a named user entry within the
// mask, and execute on the root and every directory on the way.
func TestACLGrantsReadToNamedUser(t *testing.T) {
	e := startACL(t, true, ownerOID)
	e.tree()
	e.denied(userOID, http.MethodGet, "acl/d/f", nil, "")
	e.denied(userOID, http.MethodHead, "acl/d/f?action=getStatus", nil, "")

	steps := []struct{ path, acl string }{
		{"d/f", "user::rw-,user:" + userOID + ":r--,group::r--,mask::r--,other::---"},
		{"d", "user::rwx,user:" + userOID + ":--x,group::r-x,mask::r-x,other::---"},
	}
	for _, s := range steps {
		e.putACL(s.path, s.acl)
		// The root grants no execute yet.
		e.denied(userOID, http.MethodGet, "acl/d/f", nil, "")
	}
	e.putACL("", "user::rwx,user:"+userOID+":--x,group::r-x,mask::r-x,other::---")
	e.must(http.StatusOK, userOID, http.MethodGet, "acl/d/f", nil, "")
	e.must(http.StatusOK, userOID, http.MethodHead, "acl/d/f?action=getStatus", nil, "")
	e.must(http.StatusOK, userOID, http.MethodHead, "acl/d/f", nil, "")

	// The mask limits a named user's entry.
	e.putACL("d/f", "user::rw-,user:"+userOID+":r--,group::r--,mask::-w-,other::---")
	e.denied(userOID, http.MethodGet, "acl/d/f", nil, "")
	// The role holder is never checked against the ACLs.
	e.must(http.StatusOK, ownerOID, http.MethodGet, "acl/d/f", nil, "")

	// Execute on the directory is needed on the way: without it the
	// file's own entry does not help.
	e.putACL("d/f", "user::rw-,user:"+userOID+":r--,group::r--,mask::r--,other::---")
	e.must(http.StatusOK, userOID, http.MethodGet, "acl/d/f", nil, "")
	e.putACL("d", "user::rwx,user:"+userOID+":r--,group::r-x,mask::r-x,other::---")
	e.denied(userOID, http.MethodGet, "acl/d/f", nil, "")
	e.denied(userOID, http.MethodHead, "acl/d/f", nil, "")
}

// Writing, listing and deleting need write and execute on the parent,
// read and execute on the listed directory; the path's owner changes its
// bits and ACL, nobody else but a super-user does, and only the
// super-user gives a path away.
func TestACLWritesAndOwnership(t *testing.T) {
	e := startACL(t, true, ownerOID)
	e.tree()
	traverse := "user::rwx,user:" + userOID + ":--x,group::r-x,mask::r-x,other::---"
	e.putACL("", traverse)
	e.denied(userOID, http.MethodPut, "acl/d/mine?resource=file", nil, "")
	e.denied(userOID, http.MethodPut, "acl/d/blob", blockBlob, "x")
	e.denied(userOID, http.MethodGet, "acl?resource=filesystem&directory=d&recursive=false", nil, "")
	e.denied(userOID, http.MethodGet, "acl?restype=container&comp=list&prefix=d/", nil, "")

	e.putACL("d", "user::rwx,user:"+userOID+":rwx,group::r-x,mask::rwx,other::---")
	e.must(http.StatusCreated, userOID, http.MethodPut, "acl/d/mine?resource=file", nil, "")
	e.must(http.StatusCreated, userOID, http.MethodPut, "acl/d/blob", blockBlob, "x")
	e.must(http.StatusOK, userOID, http.MethodGet, "acl?resource=filesystem&directory=d&recursive=false", nil, "")
	e.must(http.StatusOK, userOID, http.MethodGet, "acl?restype=container&comp=list&prefix=d/", nil, "")

	// The creator owns what it made and may chmod it, not chown it; it
	// may not chmod the super-user's file.
	e.must(http.StatusOK, userOID, http.MethodPatch, "acl/d/mine?action=setAccessControl", http.Header{"X-Ms-Permissions": {"rw-------"}}, "")
	e.denied(userOID, http.MethodPatch, "acl/d/mine?action=setAccessControl", http.Header{"X-Ms-Owner": {ownerOID}}, "")
	e.denied(userOID, http.MethodPatch, "acl/d/f?action=setAccessControl", http.Header{"X-Ms-Permissions": {"rwxrwxrwx"}}, "")
	e.must(http.StatusOK, "", http.MethodPatch, "acl/d/f?action=setAccessControl", http.Header{"X-Ms-Owner": {userOID}}, "")
	e.must(http.StatusOK, userOID, http.MethodPatch, "acl/d/f?action=setAccessControl", http.Header{"X-Ms-Permissions": {"rw-r-----"}}, "")

	// Deleting is the parent's write and execute; the sticky bit keeps
	// others' children.
	e.must(http.StatusOK, "", http.MethodPatch, "acl/d?action=setAccessControl", http.Header{"X-Ms-Permissions": {"rwxrwxrwt"}}, "")
	e.must(http.StatusCreated, "", http.MethodPut, "acl/d/theirs", blockBlob, "x")
	e.denied(userOID, http.MethodDelete, "acl/d/theirs", nil, "")
	e.must(http.StatusAccepted, userOID, http.MethodDelete, "acl/d/mine", nil, "")

	// Only a role makes and removes filesystems.
	e.denied(userOID, http.MethodPut, "other?resource=filesystem", nil, "")
	e.denied(userOID, http.MethodDelete, "acl?resource=filesystem", nil, "")
}

// On a flat account there are no ACLs to fall back to: a principal
// without a role has no data access at all.
func TestACLFlatAccountNeedsRole(t *testing.T) {
	e := startACL(t, false, ownerOID)
	e.must(http.StatusCreated, "", http.MethodPut, "ctr?restype=container", nil, "")
	e.must(http.StatusCreated, "", http.MethodPut, "ctr/b", blockBlob, "x")
	e.denied(userOID, http.MethodGet, "ctr/b", nil, "")
	e.denied(userOID, http.MethodPut, "ctr/c", blockBlob, "x")
	e.denied(userOID, http.MethodPut, "other?restype=container", nil, "")
	e.must(http.StatusOK, ownerOID, http.MethodGet, "ctr/b", nil, "")
}

// Without --dataOwners every principal holds the role, as before the
// flag: the ACLs deny it nothing.
func TestACLWithoutDataOwnersEveryTokenIsOwner(t *testing.T) {
	e := startACL(t, true, "")
	e.tree()
	e.putACL("d/f", "user::---,group::---,other::---")
	e.must(http.StatusOK, userOID, http.MethodGet, "acl/d/f", nil, "")
	e.must(http.StatusCreated, userOID, http.MethodPut, "acl/d/g", blockBlob, "x")
	e.must(http.StatusOK, userOID, http.MethodPatch, "acl/d/f?action=setAccessControl", http.Header{"X-Ms-Owner": {userOID}}, "")
}

// A rename needs write and execute on both parents; a recursive delete
// every right on the directory and on every directory below it.
func TestACLRenameAndRecursiveDelete(t *testing.T) {
	e := startACL(t, true, ownerOID)
	e.tree()
	user := "user::rwx,user:" + userOID + ":rwx,group::r-x,mask::rwx,other::---"
	e.putACL("", "user::rwx,user:"+userOID+":--x,group::r-x,mask::r-x,other::---")
	e.must(http.StatusCreated, "", http.MethodPut, "acl/e?resource=directory", nil, "")
	for _, path := range []string{"d", "e"} {
		e.putACL(path, user)
	}
	e.must(http.StatusCreated, "", http.MethodPut, "acl/x?resource=directory", nil, "")
	e.must(http.StatusCreated, userOID, http.MethodPut, "acl/d/r1?resource=file", nil, "")
	rename := http.Header{"X-Ms-Rename-Source": {"/acl/d/r1"}}
	e.denied(userOID, http.MethodPut, "acl/x/r1?mode=legacy", rename, "")
	e.must(http.StatusCreated, userOID, http.MethodPut, "acl/e/r1?mode=legacy", rename, "")

	e.must(http.StatusCreated, userOID, http.MethodPut, "acl/e/inner?resource=directory", nil, "")
	e.must(http.StatusCreated, "", http.MethodPut, "acl/e/inner/sub?resource=directory", nil, "")
	e.putACL("e/inner/sub", "user::rwx,group::r-x,other::---")
	e.denied(userOID, http.MethodDelete, "acl/e/inner?recursive=true", nil, "")
	e.putACL("e/inner/sub", user)
	e.must(http.StatusOK, userOID, http.MethodDelete, "acl/e/inner?recursive=true", nil, "")
}

// A group claim of the token makes its principal a member of the named
// group entries and of the owning group it names, within the mask.
func TestACLGroupEntries(t *testing.T) {
	e := startACL(t, true, ownerOID)
	e.tree()
	const group = "0c000000-0000-4000-8000-00000000000c"
	traverse := "user::rwx,group::r-x,group:" + group + ":--x,mask::r-x,other::---"
	for _, path := range []string{"", "d"} {
		e.putACL(path, traverse)
	}
	e.must(http.StatusOK, "", http.MethodPatch, "acl/d/f?action=setAccessControl", http.Header{"X-Ms-Group": {group}, "X-Ms-Permissions": {"rw-r-----"}}, "")
	e.denied(userOID, http.MethodGet, "acl/d/f", nil, "")
	e.groups[userOID] = []string{group}
	e.must(http.StatusOK, userOID, http.MethodGet, "acl/d/f", nil, "")
	// The mask limits the group entries.
	e.putACL("d", "user::rwx,group::r-x,group:"+group+":--x,mask::r--,other::---")
	e.denied(userOID, http.MethodGet, "acl/d/f", nil, "")
}
