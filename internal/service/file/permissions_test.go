package file_test

import (
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azfile/directory"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azfile/file"

	"github.com/lazuli-storage/lazuli/internal/check/lazulitest"
	lazulifile "github.com/lazuli-storage/lazuli/internal/service/file"
)

// legacyKey is a permission key in the shape earlier versions derived
// from a permission's text.
const legacyKey = "4242*1717"

// inheritedFromLegacy is testSDDL created under a directory whose
// permission is the legacy record's (A;OICI;FA;;;BA): the explicit ACEs
// first, then the inherited one, which on a file loses its inheritance
// flags and is marked ID.
const inheritedFromLegacy = "O:S-1-5-21-1-2-3-500G:S-1-5-21-1-2-3-513D:AI(A;;FA;;;SY)(A;;0x1200a9;;;BU)" +
	"(A;ID;FA;;;BA)S:NO_ACCESS_CONTROL"

// legacyDirectory makes a share whose directory "d" has a permission
// stored as earlier versions stored it (SDDL text), as data written before
// an upgrade has.
func legacyDirectory(t *testing.T) (*lazulitest.Instance, *directory.Client) {
	t.Helper()
	in, svc := start(t, lazulitest.Options{InMemory: true})
	sh := newShare(t, svc, "legacy")
	must(t, lazulifile.StoreLegacyPermission(in.App.Store, lazulitest.Account, "legacy", legacyKey,
		"O:BAG:SYD:(A;OICI;FA;;;BA)"))
	d := sh.NewDirectoryClient("d")
	_, err := d.Create(ctx, nil)
	must(t, err)
	// Set Directory Properties stores a key as it is (Create Directory
	// would add the root's inheritable ACEs under a new key).
	set, err := d.SetProperties(ctx, &directory.SetPropertiesOptions{FilePermissions: &file.Permissions{PermissionKey: to.Ptr(legacyKey)}})
	must(t, err)
	if *set.FilePermissionKey != legacyKey {
		t.Fatalf("set with the legacy key answers %s", *set.FilePermissionKey)
	}
	return in, d
}

// A permission stored as SDDL text before permissions were kept as
// descriptors still reads, is still usable by its key, and reads as a
// permission stored now does (with the NULL SACL Azure answers).
func TestLegacyPermissionRecordsStillRead(t *testing.T) {
	in, d := legacyDirectory(t)
	sh := serviceClient(t, in).NewShareClient("legacy")
	perm, err := sh.GetPermission(ctx, legacyKey, nil)
	must(t, err)
	if want := "O:BAG:SYD:(A;OICI;FA;;;BA)S:NO_ACCESS_CONTROL"; *perm.Permission != want {
		t.Errorf("legacy permission reads %q, want %q", *perm.Permission, want)
	}
	// A child created without a permission takes the legacy key; one
	// created with a permission inherits from the legacy descriptor.
	sub, err := d.NewSubdirectoryClient("sub").Create(ctx, nil)
	must(t, err)
	if *sub.FilePermissionKey != legacyKey {
		t.Errorf("child key %s, want the parent's %s", *sub.FilePermissionKey, legacyKey)
	}
	f, err := d.NewFileClient("f").Create(ctx, 0, &file.CreateOptions{Permissions: &file.Permissions{Permission: to.Ptr(testSDDL)}})
	must(t, err)
	perm, err = sh.GetPermission(ctx, *f.FilePermissionKey, nil)
	must(t, err)
	if *perm.Permission != inheritedFromLegacy {
		t.Errorf("file created under the legacy permission has %q", *perm.Permission)
	}
}

// Copy File with x-ms-file-permission-copy-mode override creates the copy
// with the given permission as Create File does: with the destination
// directory's inheritable ACEs added, under a key of its own (the recorded
// TestFileStartCopyOverrideMode sees the copy's key differ from its
// source's).
func TestCopyFileOverridePermissionInherits(t *testing.T) {
	in, d := legacyDirectory(t)
	sh := serviceClient(t, in).NewShareClient("legacy")
	src := sh.NewRootDirectoryClient().NewFileClient("src")
	_, err := src.Create(ctx, 4, nil)
	must(t, err)
	made, err := sh.CreatePermission(ctx, testSDDL, nil)
	must(t, err)

	dst := d.NewFileClient("copy")
	_, err = dst.StartCopyFromURL(ctx, src.URL(), &file.StartCopyFromURLOptions{
		Permissions:     &file.Permissions{Permission: to.Ptr(testSDDL)},
		CopyFileSMBInfo: &file.CopyFileSMBInfo{PermissionCopyMode: to.Ptr(file.PermissionCopyModeTypeOverride)},
	})
	must(t, err)
	props, err := dst.GetProperties(ctx, nil)
	must(t, err)
	if *props.FilePermissionKey == *made.FilePermissionKey {
		t.Errorf("the copy has Create Permission's key %s, not an inherited descriptor", *props.FilePermissionKey)
	}
	perm, err := sh.GetPermission(ctx, *props.FilePermissionKey, nil)
	must(t, err)
	if *perm.Permission != inheritedFromLegacy {
		t.Errorf("copy's permission %q, want %q", *perm.Permission, inheritedFromLegacy)
	}
}
