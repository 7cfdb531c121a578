package file_test

import (
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azfile/directory"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azfile/share"
)

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
