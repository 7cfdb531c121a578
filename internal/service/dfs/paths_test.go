package dfs_test

import (
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azdatalake/directory"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azdatalake/file"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azdatalake/filesystem"

	"github.com/lazuli-storage/lazuli/internal/service/dfs"
)

// listed is the names (directories with a trailing "/") the SDK's List
// Paths pager gives for dir, maxResults a page.
func (e *env) listed(fs *filesystem.Client, dir string, recursive bool, maxResults int32) []string {
	e.t.Helper()
	opts := &filesystem.ListPathsOptions{MaxResults: to.Ptr(maxResults)}
	if dir != "" {
		opts.Prefix = to.Ptr(dir)
	}
	var names []string
	pager := fs.NewListPathsPager(recursive, opts)
	for pager.More() {
		page, err := pager.NextPage(e.ctx)
		if err != nil {
			e.t.Fatalf("list paths: %v", err)
		}
		for _, p := range page.Paths {
			name := *p.Name
			if p.IsDirectory != nil && *p.IsDirectory {
				name += "/"
			}
			names = append(names, name)
		}
	}
	return names
}

// status is Get Properties with action=getStatus: the path's
// x-ms-resource-type, or its status code when it fails.
func (e *env) status(path string) string {
	e.t.Helper()
	resp, _ := e.raw("HEAD", path+"?action=getStatus", nil, nil)
	if resp.StatusCode != http.StatusOK {
		return resp.Status
	}
	return resp.Header.Get("x-ms-resource-type")
}

// write creates file path with content through the SDK.
func (e *env) write(fs, path, content string) *file.Client {
	e.t.Helper()
	f := e.file(fs, path)
	if _, err := f.Create(e.ctx, nil); err != nil {
		e.t.Fatalf("create %s: %v", path, err)
	}
	if content != "" {
		if err := f.UploadBuffer(e.ctx, []byte(content), nil); err != nil {
			e.t.Fatalf("upload %s: %v", path, err)
		}
	}
	return f
}

// content reads a file through the SDK (Path Read, a Get Blob).
func (e *env) content(fs, path string) string {
	e.t.Helper()
	resp, err := e.file(fs, path).DownloadStream(e.ctx, nil)
	if err != nil {
		e.t.Fatalf("read %s: %v", path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		e.t.Fatal(err)
	}
	return string(b)
}

func TestCreatePathMakesParents(t *testing.T) {
	e := start(t)
	e.filesystem("lake")
	if _, err := e.file("lake", "a/b/c.txt").Create(e.ctx, &file.CreateOptions{
		HTTPHeaders: &file.HTTPHeaders{ContentType: to.Ptr("text/plain")}}); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{"lake/a": "directory", "lake/a/b": "directory", "lake/a/b/c.txt": "file", "lake/x": "404 Not Found"} {
		if got := e.status(path); got != want {
			t.Errorf("%s: %s, want %s", path, got, want)
		}
	}
	props, err := e.file("lake", "a/b/c.txt").GetProperties(e.ctx, nil)
	if err != nil || *props.ContentType != "text/plain" || *props.ContentLength != 0 {
		t.Fatalf("properties %+v, %v", props, err)
	}

	// A path of the other resource type, or under a file, conflicts.
	_, err = e.dir("lake", "a/b/c.txt").Create(e.ctx, nil)
	wantCode(t, err, http.StatusConflict, "PathConflict")
	_, err = e.file("lake", "a/b").Create(e.ctx, nil)
	wantCode(t, err, http.StatusConflict, "PathConflict")
	_, err = e.file("lake", "a/b/c.txt/d").Create(e.ctx, nil)
	wantCode(t, err, http.StatusConflict, "PathConflict")

	// If-None-Match: * keeps an existing path.
	_, err = e.dir("lake", "a").Create(e.ctx, &directory.CreateOptions{AccessConditions: &directory.AccessConditions{
		ModifiedAccessConditions: &directory.ModifiedAccessConditions{IfNoneMatch: to.Ptr(azcore.ETagAny)}}})
	wantCode(t, err, http.StatusConflict, "PathAlreadyExists")

	_, err = e.file("nolake", "f").Create(e.ctx, nil)
	wantCode(t, err, http.StatusNotFound, "FilesystemNotFound")
}

func TestListPaths(t *testing.T) {
	e := start(t)
	fs := e.filesystem("lake")
	for _, p := range []string{"d1/f1", "d1/sub/f2", "d2/f3", "top"} {
		e.write("lake", p, "")
	}
	if got, want := e.listed(fs, "", false, 2), []string{"d1/", "d2/", "top"}; !slices.Equal(got, want) {
		t.Errorf("root: %v, want %v", got, want)
	}
	want := []string{"d1/", "d1/f1", "d1/sub/", "d1/sub/f2", "d2/", "d2/f3", "top"}
	if got := e.listed(fs, "", true, 3); !slices.Equal(got, want) {
		t.Errorf("recursive: %v, want %v", got, want)
	}
	if got, want := e.listed(fs, "d1", false, 1), []string{"d1/f1", "d1/sub/"}; !slices.Equal(got, want) {
		t.Errorf("d1: %v, want %v", got, want)
	}
	if got, want := e.listed(fs, "d1", true, 5000), []string{"d1/f1", "d1/sub/", "d1/sub/f2"}; !slices.Equal(got, want) {
		t.Errorf("d1 recursive: %v, want %v", got, want)
	}
	pager := fs.NewListPathsPager(false, &filesystem.ListPathsOptions{Prefix: to.Ptr("nothere")})
	_, err := pager.NextPage(e.ctx)
	wantCode(t, err, http.StatusNotFound, "PathNotFound")

	resp, body := e.raw("GET", "lake?resource=filesystem&recursive=true", nil, nil)
	for _, field := range []string{`"name":"top"`, `"contentLength":"0"`, `"isDirectory":"true"`, `"owner":"$superuser"`, `"creationTime":"1`} {
		if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), field) {
			t.Fatalf("listing lacks %s: %d %s", field, resp.StatusCode, body)
		}
	}
}

func TestRenameDirectoryMovesTree(t *testing.T) {
	e := start(t)
	fs := e.filesystem("lake")
	e.write("lake", "src/x", "hello")
	e.write("lake", "src/sub/y", "world")
	e.write("lake", "srcfile", "")
	e.dir("lake", "dst-parent").Create(e.ctx, nil)

	renamed, err := e.dir("lake", "src").Rename(e.ctx, "dst-parent/moved", nil)
	if err != nil {
		t.Fatal(err)
	}
	if renamed.ETag == nil {
		t.Fatalf("rename answer %+v", renamed)
	}
	want := []string{"dst-parent/", "dst-parent/moved/", "dst-parent/moved/sub/", "dst-parent/moved/sub/y", "dst-parent/moved/x", "srcfile"}
	if got := e.listed(fs, "", true, 5000); !slices.Equal(got, want) {
		t.Fatalf("after rename: %v, want %v", got, want)
	}
	if got := e.content("lake", "dst-parent/moved/sub/y"); got != "world" {
		t.Fatalf("moved content %q", got)
	}

	// A file rename, with conditions on source and destination.
	_, err = e.file("lake", "dst-parent/moved/x").Rename(e.ctx, "renamed", &file.RenameOptions{
		SourceAccessConditions: &file.SourceAccessConditions{SourceModifiedAccessConditions: &file.SourceModifiedAccessConditions{
			SourceIfMatch: to.Ptr(azcore.ETag(`"0x1"`))}}})
	wantCode(t, err, http.StatusPreconditionFailed, "SourceConditionNotMet")
	_, err = e.file("lake", "dst-parent/moved/x").Rename(e.ctx, "srcfile", &file.RenameOptions{
		AccessConditions: &file.AccessConditions{ModifiedAccessConditions: &file.ModifiedAccessConditions{
			IfNoneMatch: to.Ptr(azcore.ETagAny)}}})
	wantCode(t, err, http.StatusPreconditionFailed, "ConditionNotMet")
	if _, err = e.file("lake", "dst-parent/moved/x").Rename(e.ctx, "srcfile", nil); err != nil {
		t.Fatal(err)
	}
	if got := e.content("lake", "srcfile"); got != "hello" {
		t.Fatalf("replaced file reads %q", got)
	}

	// What the service refuses.
	_, err = e.dir("lake", "dst-parent").Rename(e.ctx, "dst-parent/moved/inside", nil)
	wantCode(t, err, http.StatusBadRequest, "InvalidRenameSourcePath")
	_, err = e.file("lake", "srcfile").Rename(e.ctx, "no/parent", nil)
	wantCode(t, err, http.StatusNotFound, "RenameDestinationParentPathNotFound")
	_, err = e.file("lake", "gone").Rename(e.ctx, "other", nil)
	wantCode(t, err, http.StatusNotFound, "SourcePathNotFound")
	e.write("lake", "full/f", "")
	_, err = e.dir("lake", "dst-parent").Rename(e.ctx, "full", nil)
	wantCode(t, err, http.StatusConflict, "DirectoryNotEmpty")
}

func TestDeletePaths(t *testing.T) {
	e := start(t)
	fs := e.filesystem("lake")
	for _, p := range []string{"d/a", "d/b", "d/sub/c", "d/sub/e", "keep"} {
		e.write("lake", p, "x")
	}
	resp, body := e.raw("DELETE", "lake/d?recursive=false", nil, nil)
	wantJSONError(t, resp, body, http.StatusConflict, "DirectoryNotEmpty")
	resp, body = e.raw("DELETE", "lake/d?recursive=maybe", nil, nil)
	wantJSONError(t, resp, body, http.StatusBadRequest, "InvalidQueryParameterValue")

	if _, err := e.file("lake", "d/a").Delete(e.ctx, nil); err != nil {
		t.Fatal(err)
	}
	_, err := e.file("lake", "d/a").Delete(e.ctx, nil)
	wantCode(t, err, http.StatusNotFound, "PathNotFound")

	// Two paths a request: the SDK follows x-ms-continuation to the end.
	defer dfs.SetDeletePage(2)()
	resp, _ = e.raw("DELETE", "lake/d?recursive=true", nil, nil)
	if resp.StatusCode != http.StatusOK || resp.Header.Get("x-ms-continuation") == "" {
		t.Fatalf("first page: %d %v", resp.StatusCode, resp.Header)
	}
	if _, err := e.dir("lake", "d").Delete(e.ctx, nil); err != nil {
		t.Fatal(err)
	}
	if got := e.listed(fs, "", true, 5000); !slices.Equal(got, []string{"keep"}) {
		t.Fatalf("after delete: %v", got)
	}
}

// TestFlatNamespace pins the dfs answers of an account without a
// hierarchical namespace: no implied parents, a directory is one blob,
// and renames are refused as the service refuses them.
func TestFlatNamespace(t *testing.T) {
	e := startFlat(t)
	fs := e.filesystem("flat")
	e.write("flat", "a/b", "x")
	if got := e.status("flat/a"); got != "404 Not Found" {
		t.Fatalf("parent of a flat path: %s", got)
	}
	if _, err := e.dir("flat", "d").Create(e.ctx, nil); err != nil {
		t.Fatal(err)
	}
	_, err := e.file("flat", "a/b").Rename(e.ctx, "c", nil)
	wantCode(t, err, http.StatusBadRequest, "HierarchicalNamespaceNotEnabled")
	if got, want := e.listed(fs, "", false, 5000), []string{"a/", "d/"}; !slices.Equal(got, want) {
		t.Fatalf("flat listing %v, want %v", got, want)
	}
	resp, _ := e.raw("HEAD", "flat?resource=filesystem", nil, nil)
	if resp.Header.Get("x-ms-namespace-enabled") != "false" {
		t.Fatalf("namespace header %v", resp.Header)
	}
}

// TestChainErrorsAreJSON: an error the middleware answers before the dfs
// handler runs (a bad signature) is in the dfs form too.
func TestChainErrorsAreJSON(t *testing.T) {
	e := start(t)
	req, err := http.NewRequest("GET", e.url("?resource=account"), nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("x-ms-version", "2025-01-05")
	req.Header.Set("Authorization", "SharedKey devstoreaccount1:Zm9v")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	wantJSONError(t, resp, body, http.StatusForbidden, "AuthenticationFailed")
}

// TestGetPropertiesSaysResourceType: the SDK's GetProperties, a Blob
// HEAD, tells a directory from a file on a hierarchical namespace and
// gives the path's owner and permissions.
func TestGetPropertiesSaysResourceType(t *testing.T) {
	e := start(t)
	e.filesystem("lake")
	e.write("lake", "d/f", "x")
	dir, err := e.dir("lake", "d").GetProperties(e.ctx, nil)
	if err != nil || dir.ResourceType == nil || *dir.ResourceType != "directory" || dir.Permissions == nil || *dir.Permissions != "rwxr-x---" {
		t.Fatalf("directory properties: %v %v %v", dir.ResourceType, dir.Permissions, err)
	}
	f, err := e.file("lake", "d/f").GetProperties(e.ctx, nil)
	if err != nil || f.ResourceType == nil || *f.ResourceType != "file" || f.Owner == nil || *f.Owner != "$superuser" || *f.Permissions != "rw-r-----" {
		t.Fatalf("file properties: %v %v %v", f.ResourceType, f.Owner, err)
	}
}

// TestCreateWithLease: Path Create with a proposed lease leaves the path
// leased, so that creating it again without the lease ID is refused
// until the lease expires.
func TestCreateWithLease(t *testing.T) {
	e := start(t)
	e.filesystem("lake")
	id := "5f2a3c1e-0d4b-4c6a-9e8f-7a6b5c4d3e2f"
	opts := &file.CreateOptions{ProposedLeaseID: to.Ptr(id), LeaseDuration: to.Ptr(int64(15))}
	f := e.file("lake", "leased")
	if _, err := f.Create(e.ctx, opts); err != nil {
		t.Fatal(err)
	}
	_, err := f.Create(e.ctx, opts)
	wantCode(t, err, http.StatusPreconditionFailed, "LeaseIdMissing")
	props, err := f.GetProperties(e.ctx, nil)
	if err != nil || props.LeaseState == nil || *props.LeaseState != "leased" {
		t.Fatalf("lease state %v, %v", props.LeaseState, err)
	}
	e.in.Fake.Advance(16 * time.Second)
	if _, err := f.Create(e.ctx, opts); err != nil {
		t.Fatalf("create once the lease expired: %v", err)
	}
	_, err = e.file("lake", "bad").Create(e.ctx, &file.CreateOptions{ProposedLeaseID: to.Ptr(id), LeaseDuration: to.Ptr(int64(5))})
	wantCode(t, err, http.StatusBadRequest, "InvalidHeaderValue")
}

// TestFailedCreateMakesNoParents: a Path Create refused by its conditions
// leaves no parent directory behind.
func TestFailedCreateMakesNoParents(t *testing.T) {
	e := start(t)
	e.filesystem("lake")
	_, err := e.file("lake", "p/q/f").Create(e.ctx, &file.CreateOptions{AccessConditions: &file.AccessConditions{
		ModifiedAccessConditions: &file.ModifiedAccessConditions{IfMatch: to.Ptr(azcore.ETag(`"0x1"`))}}})
	wantCode(t, err, http.StatusPreconditionFailed, "ConditionNotMet")
	if got := e.status("lake/p"); got != "404 Not Found" {
		t.Fatalf("parent after a refused create: %s", got)
	}
}

// TestEncryptionContext: the context Path Create gives a file is answered
// by Get Properties and listed by List Paths.
func TestEncryptionContext(t *testing.T) {
	e := start(t)
	fs := e.filesystem("lake")
	if _, err := e.file("lake", "f").Create(e.ctx, &file.CreateOptions{EncryptionContext: to.Ptr("ctx-1")}); err != nil {
		t.Fatal(err)
	}
	props, err := e.file("lake", "f").GetProperties(e.ctx, nil)
	if err != nil || props.EncryptionContext == nil || *props.EncryptionContext != "ctx-1" {
		t.Fatalf("properties: %v, %v", props.EncryptionContext, err)
	}
	page, err := fs.NewListPathsPager(false, nil).NextPage(e.ctx)
	if err != nil || len(page.Paths) != 1 || page.Paths[0].EncryptionContext == nil || *page.Paths[0].EncryptionContext != "ctx-1" {
		t.Fatalf("listing: %+v, %v", page.Paths, err)
	}
	_, err = e.file("lake", "g").Create(e.ctx, &file.CreateOptions{EncryptionContext: to.Ptr(strings.Repeat("x", 1025))})
	wantCode(t, err, http.StatusBadRequest, "InvalidHeaderValue")
}
