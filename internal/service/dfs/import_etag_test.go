package dfs_test

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/lazuli-storage/lazuli/internal/check/lazulitest"
	"github.com/lazuli-storage/lazuli/internal/engine/store"
	blobsvc "github.com/lazuli-storage/lazuli/internal/service/blob"
)

// Azurite's ETags as the import is given them: not ticks of this server.
const (
	importedFilesystemETag = `"0x24BA96C7423C960"`
	importedFileETag       = `"0x1E223B9B3050E40"`
)

// importETagged imports filesystem "imported" and its file "f" with the
// ETags above.
func importETagged(t *testing.T, e *env) {
	t.Helper()
	at := time.Date(2025, 3, 4, 5, 6, 7, 0, time.UTC)
	err := e.in.App.Store.Update(context.Background(), func(tx store.Tx) error {
		if err := blobsvc.ImportContainer(tx, blobsvc.ImportedContainer{Account: lazulitest.Account, Name: "imported",
			Created: at, LastModified: at, ETag: importedFilesystemETag}); err != nil {
			return err
		}
		return blobsvc.ImportBlob(tx, blobsvc.ImportedBlob{Account: lazulitest.Account, Container: "imported", Name: "f",
			Type: "BlockBlob", Committed: true, Created: at, LastModified: at, ETag: importedFileETag})
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestImportedETagOverDFS: a filesystem and a file imported with
// Azurite's ETags answer them on the dfs endpoint as on the Blob
// endpoint, in Path - Get Properties, Path - Read, Path - List, Filesystem
// - List and the access control operations, and If-Match holds with them
// until a write gives the path a new ETag.
func TestImportedETagOverDFS(t *testing.T) {
	e := start(t)
	importETagged(t, e)

	for _, c := range []struct{ what, method, path string }{
		{"Path - Get Properties", "HEAD", "imported/f"},
		{"Path - Get Properties (getStatus)", "HEAD", "imported/f?action=getStatus"},
		{"Path - Get Properties (getAccessControl)", "HEAD", "imported/f?action=getAccessControl"},
		{"Path - Read", "GET", "imported/f"},
	} {
		resp, body := e.raw(c.method, c.path, http.Header{"If-Match": {importedFileETag}}, nil)
		if resp.StatusCode != http.StatusOK || resp.Header.Get("ETag") != importedFileETag {
			t.Errorf("%s with If-Match the imported ETag: %d, ETag %s, want 200 and %s; %s",
				c.what, resp.StatusCode, resp.Header.Get("ETag"), importedFileETag, body)
		}
	}
	resp, body := e.raw("HEAD", "imported?resource=filesystem", nil, nil)
	if resp.Header.Get("ETag") != importedFilesystemETag {
		t.Errorf("Filesystem - Get Properties: ETag %s, want %s; %s", resp.Header.Get("ETag"), importedFilesystemETag, body)
	}
	if got := listedFilesystemETag(t, e, "imported"); got != importedFilesystemETag {
		t.Errorf("Filesystem - List lists ETag %s, want %s", got, importedFilesystemETag)
	}
	if got := listedPathETag(t, e, "imported", "f"); `"`+got+`"` != importedFileETag {
		t.Errorf("Path - List lists ETag %s, want %s unquoted", got, importedFileETag)
	}

	root := http.Header{"X-Ms-Acl": {"user::rwx,group::r-x,other::---"}, "If-Match": {importedFilesystemETag}}
	resp, body = e.raw("PATCH", "imported/?action=setAccessControl", root, nil)
	if resp.StatusCode != http.StatusOK || resp.Header.Get("ETag") != importedFilesystemETag {
		t.Errorf("Set Access Control of the root with If-Match the imported ETag: %d, ETag %s; %s",
			resp.StatusCode, resp.Header.Get("ETag"), body)
	}

	stale := http.Header{"X-Ms-Permissions": {"rwxr-x---"}, "If-Match": {`"0x8DD5AE1F0E1E2E3"`}}
	resp, body = e.raw("PATCH", "imported/f?action=setAccessControl", stale, nil)
	wantJSONError(t, resp, body, http.StatusPreconditionFailed, "ConditionNotMet")
	set := http.Header{"X-Ms-Permissions": {"rwxr-x---"}, "If-Match": {importedFileETag}}
	resp, body = e.raw("PATCH", "imported/f?action=setAccessControl", set, nil)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("Set Access Control with If-Match the imported ETag: %d %s", resp.StatusCode, body)
	}
	if got := resp.Header.Get("ETag"); got == importedFileETag || got == "" {
		t.Errorf("Set Access Control answered ETag %q, want a new one", got)
	}
	resp, body = e.raw("HEAD", "imported/f", http.Header{"If-Match": {importedFileETag}}, nil)
	if resp.StatusCode != http.StatusPreconditionFailed {
		t.Errorf("If-Match the imported ETag after a write: %d, want 412; %s", resp.StatusCode, body)
	}
}

// listedFilesystemETag is the ETag Filesystem - List gives filesystem name.
func listedFilesystemETag(t *testing.T, e *env, name string) string {
	t.Helper()
	resp, body := e.raw("GET", "?resource=account&prefix="+name, nil, nil)
	var doc struct {
		Filesystems []struct{ Name, ETag string } `json:"filesystems"`
	}
	if err := json.Unmarshal(body, &doc); resp.StatusCode != http.StatusOK || err != nil {
		t.Fatalf("Filesystem - List: %d %s %v", resp.StatusCode, body, err)
	}
	for _, f := range doc.Filesystems {
		if f.Name == name {
			return f.ETag
		}
	}
	t.Fatalf("Filesystem - List does not list %s: %s", name, body)
	return ""
}

// listedPathETag is the etag Path - List gives path name of filesystem fs.
func listedPathETag(t *testing.T, e *env, fs, name string) string {
	t.Helper()
	resp, body := e.raw("GET", fs+"?resource=filesystem&recursive=true", nil, nil)
	var doc struct {
		Paths []struct{ Name, ETag string } `json:"paths"`
	}
	if err := json.Unmarshal(body, &doc); resp.StatusCode != http.StatusOK || err != nil {
		t.Fatalf("Path - List: %d %s %v", resp.StatusCode, body, err)
	}
	for _, p := range doc.Paths {
		if p.Name == name {
			return p.ETag
		}
	}
	t.Fatalf("Path - List does not list %s: %s", name, body)
	return ""
}
