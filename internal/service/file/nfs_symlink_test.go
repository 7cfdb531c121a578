package file_test

import (
	"net/http"
	"strconv"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/storage/azfile/directory"
)

// The answers the service recorded for symbolic links, in
// Azure/azure-sdk-assets go/sdk/storage/azfile/testdata/recordings/Test/
// TestCreateSymbolicLinkNFS.json, TestCreateSymbolicLinkNFSWithOptions.json
// and TestGetSymbolicLinkNFS.json (x-ms-version 2025-05-05), and asserted
// by azure-sdk-for-python sdk/storage/azure-storage-file-share/tests/
// test_nfs.py (test_create_and_get_symlink, _assert_props).

// wantHeaders checks the headers of an answer: "" wants a header absent.
func wantHeaders(t *testing.T, op string, h http.Header, want map[string]string) {
	t.Helper()
	for name, w := range want {
		got, present := h.Get(name), len(h.Values(name)) > 0
		switch {
		case w == "" && present:
			t.Errorf("%s answers %s: %q, want none", op, name, got)
		case w != "" && got != w:
			t.Errorf("%s answers %s: %q, want %q", op, name, got, w)
		}
	}
}

// createLink sends Create Symbolic Link with the headers given.
func createLink(t *testing.T, resp *http.Response) http.Header {
	t.Helper()
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("Create Symbolic Link: %d %s", resp.StatusCode, resp.Header.Get("X-Ms-Error-Code"))
	}
	return resp.Header
}

// Create Symbolic Link answers a link's POSIX properties: mode 0777
// whatever x-ms-mode says (the operation takes none), the owner and group
// asked for or 0, file type SymLink, the times, and, unlike Create File,
// x-ms-request-server-encrypted false; no x-ms-link-count, and no SMB
// attributes or permission key on an NFS share.
func TestNFSSymbolicLinkCreateAnswers(t *testing.T) {
	in, svc := start(t, premiumOptions())
	nfsShare(t, svc, "links")
	h := createLink(t, rawRequest(t, in, http.MethodPut, "links/link", "restype=symboliclink",
		http.Header{"X-Ms-Link-Text": {"/dir/target"}, "X-Ms-Owner": {"345"}, "X-Ms-Group": {"123"}}, ""))
	wantHeaders(t, "Create Symbolic Link", h, map[string]string{
		"X-Ms-Mode": "0777", "X-Ms-Owner": "345", "X-Ms-Group": "123", "X-Ms-File-File-Type": "SymLink",
		"X-Ms-Request-Server-Encrypted": "false", "X-Ms-Link-Count": "",
		"X-Ms-File-Attributes": "", "X-Ms-File-Permission-Key": "",
	})
	for _, name := range []string{"Etag", "Last-Modified", "X-Ms-File-Id", "X-Ms-File-Parent-Id"} {
		if h.Get(name) == "" {
			t.Errorf("Create Symbolic Link answers no %s", name)
		}
	}
	created := h.Get("X-Ms-File-Creation-Time")
	if created == "" || h.Get("X-Ms-File-Last-Write-Time") != created || h.Get("X-Ms-File-Change-Time") != created {
		t.Errorf("times of a new link: created %q, written %q, changed %q", created,
			h.Get("X-Ms-File-Last-Write-Time"), h.Get("X-Ms-File-Change-Time"))
	}

	h = createLink(t, rawRequest(t, in, http.MethodPut, "links/moded", "restype=symboliclink",
		http.Header{"X-Ms-Link-Text": {"target"}, "X-Ms-Mode": {"0644"}}, ""))
	wantHeaders(t, "Create Symbolic Link with x-ms-mode", h, map[string]string{
		"X-Ms-Mode": "0777", "X-Ms-Owner": "0", "X-Ms-Group": "0"})
}

// Get Symbolic Link answers the link's ETag and its text percent-encoded
// as RFC 3986 has it: %2F for a slash (the recording) and %20 for a space,
// which urllib's unquote (test_nfs.py) and Go's PathUnescape decode, where
// a + would come back as a +. A share snapshot answers the same.
func TestNFSSymbolicLinkText(t *testing.T) {
	in, svc := start(t, premiumOptions())
	sh := nfsShare(t, svc, "links")
	created := createLink(t, rawRequest(t, in, http.MethodPut, "links/link", "restype=symboliclink",
		http.Header{"X-Ms-Link-Text": {"/dir/target file+1~"}}, ""))
	want := map[string]string{"X-Ms-Link-Text": "%2Fdir%2Ftarget%20file%2B1~", "Etag": created.Get("Etag"),
		"Last-Modified": created.Get("Last-Modified")}
	resp := rawRequest(t, in, http.MethodGet, "links/link", "restype=symboliclink", nil, "")
	wantHeaders(t, "Get Symbolic Link", resp.Header, want)

	snap, err := sh.CreateSnapshot(ctx, nil)
	must(t, err)
	resp = rawRequest(t, in, http.MethodGet, "links/link", "restype=symboliclink&sharesnapshot="+*snap.Snapshot, nil, "")
	wantHeaders(t, "Get Symbolic Link of a share snapshot", resp.Header, want)
}

// Get File Properties and List Directories and Files show a link as the
// POSIX stat of a symbolic link: mode 0777, type SymLink, one link, and
// the length of its text as its size.
func TestNFSSymbolicLinkProperties(t *testing.T) {
	in, svc := start(t, premiumOptions())
	sh := nfsShare(t, svc, "links")
	const text = "../some/target"
	created := createLink(t, rawRequest(t, in, http.MethodPut, "links/link", "restype=symboliclink",
		http.Header{"X-Ms-Link-Text": {text}, "X-Ms-Owner": {"7"}}, ""))
	resp := rawRequest(t, in, http.MethodHead, "links/link", "", nil, "")
	wantHeaders(t, "Get File Properties of a link", resp.Header, map[string]string{
		"X-Ms-Mode": "0777", "X-Ms-Owner": "7", "X-Ms-Group": "0", "X-Ms-File-File-Type": "SymLink",
		"X-Ms-Link-Count": "1", "Content-Length": strconv.Itoa(len(text)), "Etag": created.Get("Etag"),
		"X-Ms-File-Attributes": "", "X-Ms-File-Permission-Key": "",
	})
	for _, name := range []string{"X-Ms-File-Creation-Time", "X-Ms-File-Last-Write-Time"} {
		if resp.Header.Get(name) != created.Get(name) {
			t.Errorf("Get File Properties of a link answers %s %q, created %q", name, resp.Header.Get(name), created.Get(name))
		}
	}

	page, err := sh.NewRootDirectoryClient().NewListFilesAndDirectoriesPager(&directory.ListFilesAndDirectoriesOptions{
		Include: directory.ListFilesInclude{ETag: true, Timestamps: true}}).NextPage(ctx)
	must(t, err)
	if len(page.Segment.Files) != 1 {
		t.Fatalf("listed %d files, want the link", len(page.Segment.Files))
	}
	listed := page.Segment.Files[0].Properties
	if *listed.ContentLength != int64(len(text)) || string(*listed.ETag) != created.Get("Etag") {
		t.Errorf("listed the link with size %d, ETag %s", *listed.ContentLength, *listed.ETag)
	}
}
