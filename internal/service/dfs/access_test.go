package dfs_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azdatalake/directory"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azdatalake/file"
)

const someone = "6c2d9a6e-1f7f-4a4b-9c3c-2d9a6e1f7f4a"

// A file made with Shared Key is $superuser's, with 0666 less the
// default umask; setAccessControl replaces its ACL (the mask is
// calculated) or its bits, and getAccessControl reads them back.
func TestSetAndGetAccessControl(t *testing.T) {
	e := start(t)
	e.filesystem("lake")
	f := e.newFile("lake", "f")
	got, err := f.GetAccessControl(e.ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if *got.Owner != "$superuser" || *got.Group != "$superuser" || *got.Permissions != "rw-r-----" || *got.ACL != "user::rw-,group::r--,other::---" {
		t.Fatalf("new file: owner %s group %s permissions %s acl %s", *got.Owner, *got.Group, *got.Permissions, *got.ACL)
	}

	acl := "user::rwx,group::r-x,other::---,user:" + someone + ":r--"
	if _, err := f.SetAccessControl(e.ctx, &file.SetAccessControlOptions{ACL: &acl, Owner: to.Ptr(someone)}); err != nil {
		t.Fatal(err)
	}
	got, err = f.GetAccessControl(e.ctx, &file.GetAccessControlOptions{UPN: to.Ptr(true)})
	if err != nil {
		t.Fatal(err)
	}
	wantACL := "user::rwx,user:" + someone + ":r--,group::r-x,mask::r-x,other::---"
	if *got.Owner != someone || *got.ACL != wantACL || *got.Permissions != "rwxr-x---+" {
		t.Fatalf("after set: owner %s acl %s permissions %s", *got.Owner, *got.ACL, *got.Permissions)
	}

	if _, err := f.SetAccessControl(e.ctx, &file.SetAccessControlOptions{Permissions: to.Ptr("0741")}); err != nil {
		t.Fatal(err)
	}
	got, err = f.GetAccessControl(e.ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if *got.Permissions != "rwxr----x+" || *got.ACL != "user::rwx,user:"+someone+":r--,group::r-x,mask::r--,other::--x" {
		t.Fatalf("after 0741: permissions %s acl %s", *got.Permissions, *got.ACL)
	}

	// The file client's UpdateAccessControl is setAccessControlRecursive
	// with mode=modify on the one file; the mask, not named, is
	// recalculated.
	if _, err := f.UpdateAccessControl(e.ctx, "other::r--", nil); err != nil {
		t.Fatal(err)
	}
	got, err = f.GetAccessControl(e.ctx, nil)
	if err != nil || *got.Permissions != "rwxr-xr--+" {
		t.Fatalf("after modify: %s %s (%v)", *got.Permissions, *got.ACL, err)
	}

	_, err = f.SetAccessControl(e.ctx, &file.SetAccessControlOptions{Permissions: to.Ptr("asdf")})
	wantCode(t, err, http.StatusBadRequest, "InvalidPermission")
	_, err = f.SetAccessControl(e.ctx, &file.SetAccessControlOptions{ACL: to.Ptr("user::rwx,group::r-x")})
	wantCode(t, err, http.StatusBadRequest, "InvaldAccessControlList")
}

// setAccessControlRecursive changes the directory and everything under
// it, a page of maxRecords paths at a time, and counts what it changed.
func TestSetAccessControlRecursive(t *testing.T) {
	e := start(t)
	e.filesystem("lake")
	d := e.dir("lake", "top")
	if _, err := d.Create(e.ctx, nil); err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		e.newFile("lake", fmt.Sprintf("top/sub/f%d", i))
	}
	e.newFile("lake", "topfile") // not under top/

	acl := "user::rwx,group::r-x,other::---,default:user:" + someone + ":r-x"
	resp, err := d.SetAccessControlRecursive(e.ctx, acl, &directory.SetAccessControlRecursiveOptions{BatchSize: to.Ptr(int32(2))})
	if err != nil {
		t.Fatal(err)
	}
	if *resp.DirectoriesSuccessful != 2 || *resp.FilesSuccessful != 3 || *resp.FailureCount != 0 {
		t.Fatalf("directories %d files %d failures %d", *resp.DirectoriesSuccessful, *resp.FilesSuccessful, *resp.FailureCount)
	}
	dirACL, err := e.dir("lake", "top/sub").GetAccessControl(e.ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := "user::rwx,group::r-x,other::---,default:user::rwx,default:user:" + someone + ":r-x,default:group::r-x,default:mask::r-x,default:other::---"; *dirACL.ACL != want {
		t.Fatalf("sub directory's ACL %s\nwant %s", *dirACL.ACL, want)
	}
	fileACL, err := e.file("lake", "top/sub/f2").GetAccessControl(e.ctx, nil)
	if err != nil || *fileACL.ACL != "user::rwx,group::r-x,other::---" {
		t.Fatalf("file's ACL %v (%v)", fileACL.ACL, err)
	}
	outside, err := e.file("lake", "topfile").GetAccessControl(e.ctx, nil)
	if err != nil || *outside.Permissions != "rw-r-----" {
		t.Fatalf("a path beside the directory changed: %v (%v)", outside.Permissions, err)
	}

	// remove takes the named entry out again.
	if _, err := d.RemoveAccessControlRecursive(e.ctx, "default:user:"+someone, nil); err != nil {
		t.Fatal(err)
	}
	dirACL, err = e.dir("lake", "top/sub").GetAccessControl(e.ctx, nil)
	if err != nil || *dirACL.ACL != "user::rwx,group::r-x,other::---,default:user::rwx,default:group::r-x,default:mask::r-x,default:other::---" {
		t.Fatalf("after remove: %v (%v)", dirACL.ACL, err)
	}
}

// One page of the raw operation: its JSON body and continuation.
func TestSetAccessControlRecursivePage(t *testing.T) {
	e := start(t)
	e.filesystem("lake")
	e.newFile("lake", "d/a")
	e.newFile("lake", "d/b")
	resp, body := e.raw(http.MethodPatch, "lake/d?action=setAccessControlRecursive&mode=modify&maxRecords=2",
		http.Header{"X-Ms-Acl": {"user:" + someone + ":rwx"}}, nil)
	var page struct {
		Dirs     int               `json:"directoriesSuccessful"`
		Files    int               `json:"filesSuccessful"`
		Failures int               `json:"failureCount"`
		Failed   []json.RawMessage `json:"failedEntries"`
	}
	if err := json.Unmarshal(body, &page); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("%d %s (%v)", resp.StatusCode, body, err)
	}
	token := resp.Header.Get("X-Ms-Continuation")
	if page.Dirs != 1 || page.Files != 1 || page.Failures != 0 || page.Failed == nil || token == "" {
		t.Fatalf("first page %s, continuation %q", body, token)
	}
	resp, body = e.raw(http.MethodPatch, "lake/d?action=setAccessControlRecursive&mode=modify&maxRecords=2&continuation="+token,
		http.Header{"X-Ms-Acl": {"user:" + someone + ":rwx"}}, nil)
	if err := json.Unmarshal(body, &page); err != nil || page.Files != 1 || page.Dirs != 0 || resp.Header.Get("X-Ms-Continuation") != "" {
		t.Fatalf("second page %d %s (%v)", resp.StatusCode, body, err)
	}
	resp, body = e.raw(http.MethodPatch, "lake/d?action=setAccessControlRecursive&mode=sideways",
		http.Header{"X-Ms-Acl": {"user::rwx"}}, nil)
	wantJSONError(t, resp, body, http.StatusBadRequest, "InvalidQueryParameterValue")
}

// setProperties replaces the path's properties (its metadata).
func TestSetPathProperties(t *testing.T) {
	e := start(t)
	e.filesystem("lake")
	f := e.newFile("lake", "f")
	if _, err := f.SetMetadata(e.ctx, map[string]*string{"old": to.Ptr("1")}, nil); err != nil {
		t.Fatal(err)
	}
	resp, body := e.raw(http.MethodPatch, "lake/f?action=setProperties",
		http.Header{"X-Ms-Properties": {"color=Ymx1ZQ=="}, "X-Ms-Content-Type": {"text/csv"}}, nil)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("%d %s", resp.StatusCode, body)
	}
	props, err := f.GetProperties(e.ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(props.Metadata) != 1 || props.Metadata["Color"] == nil || *props.Metadata["Color"] != "blue" || *props.ContentType != "text/csv" {
		t.Fatalf("metadata %v, content type %v", props.Metadata, *props.ContentType)
	}
	resp, body = e.raw(http.MethodPatch, "lake/f?action=setProperties", http.Header{"X-Ms-Properties": {"color=not base64"}}, nil)
	wantJSONError(t, resp, body, http.StatusBadRequest, "InvalidHeaderValue")
}

// A flat account's paths have no ACLs.
func TestAccessControlNeedsHierarchicalNamespace(t *testing.T) {
	e := startFlat(t)
	e.filesystem("lake")
	f := e.newFile("lake", "f")
	_, err := f.GetAccessControl(e.ctx, nil)
	wantCode(t, err, http.StatusBadRequest, "HierarchicalNamespaceNotEnabled")
	_, err = f.SetAccessControl(e.ctx, &file.SetAccessControlOptions{Permissions: to.Ptr("0700")})
	wantCode(t, err, http.StatusBadRequest, "HierarchicalNamespaceNotEnabled")
	resp, body := e.raw(http.MethodPatch, "lake/f?action=setAccessControlRecursive&mode=set", http.Header{"X-Ms-Acl": {"user::rwx,group::---,other::---"}}, nil)
	wantJSONError(t, resp, body, http.StatusBadRequest, "HierarchicalNamespaceNotEnabled")
}

// A path the recursive change cannot make valid is a failed entry: with
// forceFlag=true the others still change; without, the request stops
// there and its continuation resumes after it.
func TestSetAccessControlRecursiveFailures(t *testing.T) {
	e := start(t)
	e.filesystem("lake")
	e.newFile("lake", "d/a")
	e.newFile("lake", "d/b")
	named := "user::rw-,user:" + someone + ":r--,group::r--,other::---"
	if _, err := e.file("lake", "d/a").SetAccessControl(e.ctx, &file.SetAccessControlOptions{ACL: &named}); err != nil {
		t.Fatal(err)
	}
	type page struct {
		Dirs     int                                         `json:"directoriesSuccessful"`
		Files    int                                         `json:"filesSuccessful"`
		Failures int                                         `json:"failureCount"`
		Failed   []struct{ ErrorMessage, Name, Type string } `json:"failedEntries"`
	}
	removeMask := func(force string) (page, string) {
		t.Helper()
		resp, body := e.raw(http.MethodPatch, "lake/d?action=setAccessControlRecursive&mode=remove&forceFlag="+force,
			http.Header{"X-Ms-Acl": {"mask"}}, nil)
		var p page
		if err := json.Unmarshal(body, &p); err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("%d %s (%v)", resp.StatusCode, body, err)
		}
		return p, resp.Header.Get("X-Ms-Continuation")
	}
	p, next := removeMask("false")
	if p.Dirs != 1 || p.Files != 0 || p.Failures != 1 || len(p.Failed) != 1 || p.Failed[0].Name != "d/a" || p.Failed[0].Type != "FILE" || next == "" {
		t.Fatalf("without force: %+v, continuation %q", p, next)
	}
	p, next = removeMask("true")
	if p.Dirs != 1 || p.Files != 1 || p.Failures != 1 || next != "" {
		t.Fatalf("with force: %+v, continuation %q", p, next)
	}
}

// The filesystem's root directory answers getAccessControl with the
// root's fixed access control.
func TestRootAccessControl(t *testing.T) {
	e := start(t)
	e.filesystem("lake")
	for _, path := range []string{"lake", "lake/"} {
		resp, body := e.raw(http.MethodHead, path+"?action=getAccessControl", nil, nil)
		h := resp.Header
		if resp.StatusCode != http.StatusOK || h.Get("X-Ms-Owner") != "$superuser" || h.Get("X-Ms-Permissions") != "rwxr-x---" ||
			h.Get("X-Ms-Acl") != "user::rwx,group::r-x,other::---" || h.Get("ETag") == "" {
			t.Fatalf("%s: %d %v %s", path, resp.StatusCode, h, body)
		}
	}
	resp, _ := e.raw(http.MethodHead, "nofs?action=getAccessControl", nil, nil)
	if resp.StatusCode != http.StatusNotFound || resp.Header.Get("X-Ms-Error-Code") != "FilesystemNotFound" {
		t.Fatalf("missing filesystem: %d %v", resp.StatusCode, resp.Header)
	}
}

// setAccessControl of the root directory stores its ACL, which
// getAccessControl reads back and a new directory below the root
// inherits (its default ACL becomes the directory's access and default
// ACL); a flat account has none to set.
func TestSetRootAccessControl(t *testing.T) {
	e := start(t)
	e.filesystem("lake")
	acl := "user::rwx,user:u1:--x,group::r-x,mask::r-x,other::--x,default:user::rwx,default:group::r-x,default:other::---"
	resp, body := e.raw(http.MethodPatch, "lake/?action=setAccessControl", http.Header{"X-Ms-Acl": {acl}, "X-Ms-Group": {"g1"}}, nil)
	if resp.StatusCode != http.StatusOK || resp.Header.Get("ETag") == "" {
		t.Fatalf("set: %d %v %s", resp.StatusCode, resp.Header, body)
	}
	resp, body = e.raw(http.MethodHead, "lake?action=getAccessControl", nil, nil)
	if h := resp.Header; resp.StatusCode != http.StatusOK || h.Get("X-Ms-Acl") != acl || h.Get("X-Ms-Group") != "g1" || h.Get("X-Ms-Permissions") != "rwxr-x--x+" {
		t.Fatalf("get: %d %v %s", resp.StatusCode, resp.Header, body)
	}
	if resp, body := e.raw(http.MethodPut, "lake/sub?resource=directory", nil, nil); resp.StatusCode != http.StatusCreated {
		t.Fatalf("create: %d %s", resp.StatusCode, body)
	}
	resp, _ = e.raw(http.MethodHead, "lake/sub?action=getAccessControl", nil, nil)
	if h := resp.Header; h.Get("X-Ms-Acl") != "user::rwx,group::r-x,other::---,default:user::rwx,default:group::r-x,default:other::---" {
		t.Fatalf("a new directory: %v", h)
	}
	resp, _ = e.raw(http.MethodPatch, "nofs?action=setAccessControl", http.Header{"X-Ms-Permissions": {"rwx------"}}, nil)
	if resp.StatusCode != http.StatusNotFound || resp.Header.Get("X-Ms-Error-Code") != "FilesystemNotFound" {
		t.Fatalf("missing filesystem: %d %v", resp.StatusCode, resp.Header)
	}
	flat := startFlat(t)
	flat.filesystem("lake")
	resp, body = flat.raw(http.MethodPatch, "lake?action=setAccessControl", http.Header{"X-Ms-Permissions": {"rwx------"}}, nil)
	wantJSONError(t, resp, body, http.StatusBadRequest, "HierarchicalNamespaceNotEnabled")
}

// An expired file is gone to getAccessControl, a read.
func TestGetAccessControlOfExpiredFile(t *testing.T) {
	e := start(t)
	e.filesystem("lake")
	f := e.newFile("lake", "f")
	if _, err := f.SetExpiry(e.ctx, file.SetExpiryValues{ExpiryType: file.SetExpiryTypeRelativeToNow, ExpiresOn: "1000"}, nil); err != nil {
		t.Fatal(err)
	}
	e.in.Fake.Advance(2 * time.Second)
	_, err := f.GetAccessControl(e.ctx, nil)
	wantCode(t, err, http.StatusNotFound, "PathNotFound")
}
