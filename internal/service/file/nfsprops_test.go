package file_test

import (
	"net/http"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azfile/directory"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azfile/file"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azfile/share"

	"github.com/lazuli-storage/lazuli/internal/check/lazulitest"
	"github.com/lazuli-storage/lazuli/internal/run/config"
)

// Files and directories of an NFS share carry an owner, a group, a mode
// and a file type; those of an SMB share refuse them.
func TestNFSPropertiesOfFilesAndDirectories(t *testing.T) {
	_, svc := start(t, lazulitest.Options{InMemory: true, Services: []string{"file"},
		Configure: func(c *config.Config) { c.PremiumAccounts = []string{lazulitest.Account} }})
	sh := svc.NewShareClient("nfs")
	if _, err := sh.Create(ctx, &share.CreateOptions{EnabledProtocols: to.Ptr("NFS")}); err != nil {
		t.Fatal(err)
	}
	root, err := sh.NewRootDirectoryClient().GetProperties(ctx, nil)
	if err != nil || *root.FileMode != "0755" || *root.Owner != "0" || *root.NFSFileType != "Directory" {
		t.Fatalf("root of an NFS share: %v", err)
	}

	dir := sh.NewDirectoryClient("data")
	if _, err := dir.Create(ctx, &directory.CreateOptions{FileNFSProperties: &file.NFSProperties{
		Owner: to.Ptr("1000"), Group: to.Ptr("1001"), FileMode: to.Ptr("rwxr-x---")}}); err != nil {
		t.Fatal(err)
	}
	dp, err := dir.GetProperties(ctx, nil)
	if err != nil || *dp.Owner != "1000" || *dp.Group != "1001" || *dp.FileMode != "0750" {
		t.Fatalf("directory: %v", err)
	}

	f := dir.NewFileClient("a.txt")
	cr, err := f.Create(ctx, 10, nil)
	if err != nil || *cr.FileMode != "0664" || *cr.Owner != "0" || *cr.Group != "0" {
		t.Fatalf("file with default NFS properties: %v", err)
	}
	if _, err := f.SetHTTPHeaders(ctx, &file.SetHTTPHeadersOptions{NFSProperties: &file.NFSProperties{
		FileMode: to.Ptr("4755"), Owner: to.Ptr("42")}}); err != nil {
		t.Fatal(err)
	}
	fp, err := f.GetProperties(ctx, nil)
	if err != nil || *fp.FileMode != "4755" || *fp.Owner != "42" || *fp.Group != "0" ||
		*fp.NFSFileType != "Regular" || *fp.LinkCount != 1 {
		t.Fatalf("file after set: %v", err)
	}
	// A node of an NFS share has no SMB attributes or permission key: the
	// recorded Create Directory and Create File of Azure/azure-sdk-assets
	// go/sdk/storage/azfile/testdata/recordings/Test/TestCreateSymbolicLinkNFS.json
	// answer none, and azure-sdk-for-python test_nfs.py (_assert_props)
	// wants none from Get Properties.
	if dc, err := sh.NewDirectoryClient("plain").Create(ctx, nil); err != nil || dc.FileAttributes != nil || dc.FilePermissionKey != nil {
		t.Errorf("Create Directory on an NFS share answers attributes or a permission key (%v)", err)
	}
	if cr.FileAttributes != nil || cr.FilePermissionKey != nil || fp.FileAttributes != nil || fp.FilePermissionKey != nil {
		t.Errorf("a file of an NFS share answers attributes or a permission key")
	}
	if dp.FileAttributes != nil || dp.FilePermissionKey != nil {
		t.Errorf("Get Directory Properties on an NFS share answers attributes or a permission key")
	}
	_, err = dir.NewFileClient("bad").Create(ctx, 1, &file.CreateOptions{NFSProperties: &file.NFSProperties{FileMode: to.Ptr("rwxrwxrwz")}})
	wantCode(t, err, http.StatusBadRequest, "InvalidHeaderValue")

	smb := newShare(t, svc, "smb")
	_, err = smb.NewRootDirectoryClient().NewFileClient("f").Create(ctx, 1, &file.CreateOptions{NFSProperties: &file.NFSProperties{Owner: to.Ptr("1")}})
	wantCode(t, err, http.StatusBadRequest, "InvalidHeaderValue")
	sp, err := smb.NewRootDirectoryClient().GetProperties(ctx, nil)
	if err != nil || sp.FileMode != nil || sp.Owner != nil {
		t.Fatalf("an SMB share's root shows NFS properties: %v", err)
	}
}
