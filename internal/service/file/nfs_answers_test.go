package file_test

import (
	"net/http"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azfile/directory"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azfile/share"
)

// sendOK sends a raw request and fails the test unless it answers status.
func sendOK(t *testing.T, op string, resp *http.Response, status int) http.Header {
	t.Helper()
	if resp.StatusCode != status {
		t.Fatalf("%s: %d %s, want %d", op, resp.StatusCode, resp.Header.Get("X-Ms-Error-Code"), status)
	}
	return resp.Header
}

// Each operation on an NFS share answers the NFS headers the service's
// recorded answers carry (x-ms-version 2025-05-05, Azure/azure-sdk-assets
// go/sdk/storage/azfile/testdata/recordings/Test/): Create File and Create
// Directory the owner, group, mode and file type but no link count
// (TestCreateFileNFS.json, TestDirCreateNfs.json), a new directory mode
// 0755 (TestDirSetPropertiesNfs.json, TestCreateHardLinkNFS.json); Get
// Directory Properties the file type and no link count (TestDirCreateNfs);
// Set Directory Properties neither (TestDirSetPropertiesNfs); Set File
// Properties the link count but no file type, Get File Properties both
// (TestFileSetHTTPHeadersNfs.json); Get File the link count but no file
// type (azure-sdk-for-python test_nfs.py's recorded
// test_download_and_copy_file); Create Hard Link all of them and
// x-ms-request-server-encrypted false (TestCreateHardLinkNFS.json). "" wants
// a header absent.
func TestNFSAnswersCarryTheRecordedHeaders(t *testing.T) {
	in, svc := start(t, premiumOptions())
	nfsShare(t, svc, "nfs")
	nfsHeaders := http.Header{"X-Ms-Owner": {"345"}, "X-Ms-Group": {"123"}, "X-Ms-Mode": {"7777"}}
	newFile := http.Header{"X-Ms-Type": {"file"}, "X-Ms-Content-Length": {"1024"}}
	for k, v := range nfsHeaders {
		newFile[k] = v
	}

	h := sendOK(t, "Create File", rawRequest(t, in, http.MethodPut, "nfs/f", "", newFile, ""), http.StatusCreated)
	wantHeaders(t, "Create File", h, map[string]string{"X-Ms-Owner": "345", "X-Ms-Group": "123",
		"X-Ms-Mode": "7777", "X-Ms-File-File-Type": "Regular", "X-Ms-Link-Count": ""})

	h = sendOK(t, "Create Directory", rawRequest(t, in, http.MethodPut, "nfs/d", "restype=directory", nil, ""), http.StatusCreated)
	wantHeaders(t, "Create Directory", h, map[string]string{"X-Ms-Owner": "0", "X-Ms-Group": "0",
		"X-Ms-Mode": "0755", "X-Ms-File-File-Type": "Directory", "X-Ms-Link-Count": ""})

	h = sendOK(t, "Set Directory Properties", rawRequest(t, in, http.MethodPut, "nfs/d", "restype=directory&comp=properties",
		nfsHeaders, ""), http.StatusOK)
	wantHeaders(t, "Set Directory Properties", h, map[string]string{"X-Ms-Owner": "345", "X-Ms-Group": "123",
		"X-Ms-Mode": "7777", "X-Ms-File-File-Type": "", "X-Ms-Link-Count": ""})

	h = sendOK(t, "Get Directory Properties", rawRequest(t, in, http.MethodGet, "nfs/d", "restype=directory", nil, ""), http.StatusOK)
	wantHeaders(t, "Get Directory Properties", h, map[string]string{"X-Ms-Owner": "345", "X-Ms-Group": "123",
		"X-Ms-Mode": "7777", "X-Ms-File-File-Type": "Directory", "X-Ms-Link-Count": ""})

	h = sendOK(t, "Set File Properties", rawRequest(t, in, http.MethodPut, "nfs/f", "comp=properties",
		http.Header{"X-Ms-Mode": {"0644"}, "X-Ms-Content-Type": {"text/html"}}, ""), http.StatusOK)
	wantHeaders(t, "Set File Properties", h, map[string]string{"X-Ms-Owner": "345", "X-Ms-Group": "123",
		"X-Ms-Mode": "0644", "X-Ms-File-File-Type": "", "X-Ms-Link-Count": "1"})

	h = sendOK(t, "Get File Properties", rawRequest(t, in, http.MethodHead, "nfs/f", "", nil, ""), http.StatusOK)
	wantHeaders(t, "Get File Properties", h, map[string]string{"X-Ms-Owner": "345", "X-Ms-Group": "123",
		"X-Ms-Mode": "0644", "X-Ms-File-File-Type": "Regular", "X-Ms-Link-Count": "1"})

	h = sendOK(t, "Get File", rawRequest(t, in, http.MethodGet, "nfs/f", "", nil, ""), http.StatusOK)
	wantHeaders(t, "Get File", h, map[string]string{"X-Ms-Owner": "345", "X-Ms-Group": "123",
		"X-Ms-Mode": "0644", "X-Ms-File-File-Type": "", "X-Ms-Link-Count": "1"})

	h = sendOK(t, "Create Hard Link", rawRequest(t, in, http.MethodPut, "nfs/d/g", "restype=hardlink",
		http.Header{"X-Ms-Type": {"file"}, "X-Ms-File-Target-File": {"/f"}}, ""), http.StatusCreated)
	wantHeaders(t, "Create Hard Link", h, map[string]string{"X-Ms-Owner": "345", "X-Ms-Group": "123",
		"X-Ms-Mode": "0644", "X-Ms-File-File-Type": "Regular", "X-Ms-Link-Count": "2",
		"X-Ms-Request-Server-Encrypted": "false"})
}

// Rename answers no NFS headers: the REST specification's Rename File and
// Rename Directory answers have none (azure-rest-api-specs
// Microsoft.FileStorage file.json, 2025-05-05 on).
func TestNFSRenameAnswersNoNFSHeaders(t *testing.T) {
	in, svc := start(t, premiumOptions())
	sh := nfsShare(t, svc, "nfs")
	_, err := sh.NewRootDirectoryClient().NewFileClient("a").Create(ctx, 0, nil)
	must(t, err)
	h := sendOK(t, "Rename File", rawRequest(t, in, http.MethodPut, "nfs/b", "comp=rename",
		http.Header{"X-Ms-File-Rename-Source": {in.FileURL + "nfs/a"}}, ""), http.StatusOK)
	wantHeaders(t, "Rename File", h, map[string]string{"X-Ms-Owner": "", "X-Ms-Group": "", "X-Ms-Mode": "",
		"X-Ms-File-File-Type": "", "X-Ms-Link-Count": "", "X-Ms-File-Attributes": "", "X-Ms-File-Permission-Key": ""})
}

// List Directories and Files on an NFS share lists no SMB attributes or
// permission key, whatever include asks: the REST reference (List
// Directories and Files, "SMB only URI parameters") gives include's
// Attributes and PermissionKey for SMB shares only, and a node of an NFS
// share has neither (Get Properties answers none, as the recorded
// TestCreateFileNFS and test_nfs.py's _assert_props show). An entry carries
// no NFS properties either: no version of the specification's listing
// (FileProperty, DirectoryItem, FileItem up to 2026-06-06) has any. An SMB
// share's listing keeps both.
func TestNFSListingHasNoSMBProperties(t *testing.T) {
	_, svc := start(t, premiumOptions())
	for _, protocol := range []string{"NFS", "SMB"} {
		sh := svc.NewShareClient(map[string]string{"NFS": "nfs", "SMB": "smb"}[protocol])
		_, err := sh.Create(ctx, &share.CreateOptions{EnabledProtocols: to.Ptr(protocol)})
		must(t, err)
		root := sh.NewRootDirectoryClient()
		_, err = root.NewSubdirectoryClient("d").Create(ctx, nil)
		must(t, err)
		_, err = root.NewFileClient("f").Create(ctx, 3, nil)
		must(t, err)
		page, err := root.NewListFilesAndDirectoriesPager(&directory.ListFilesAndDirectoriesOptions{
			Include: directory.ListFilesInclude{Attributes: true, PermissionKey: true, ETag: true, Timestamps: true}}).NextPage(ctx)
		must(t, err)
		if len(page.Segment.Files) != 1 || len(page.Segment.Directories) != 1 {
			t.Fatalf("%s: listed %d files and %d directories", protocol, len(page.Segment.Files), len(page.Segment.Directories))
		}
		f, d := page.Segment.Files[0], page.Segment.Directories[0]
		smb := f.Attributes != nil || f.PermissionKey != nil || d.Attributes != nil || d.PermissionKey != nil
		if smb != (protocol == "SMB") {
			t.Errorf("%s share lists SMB attributes or a permission key: %v, want %v", protocol, smb, protocol == "SMB")
		}
		if f.Properties.ETag == nil || f.Properties.CreationTime == nil || *f.Properties.ContentLength != 3 {
			t.Errorf("%s share lists a file without its ETag, times or size", protocol)
		}
	}
}
