package file_test

import (
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azfile/directory"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azfile/file"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azfile/share"

	"github.com/lazuli-storage/lazuli/internal/check/lazulitest"
)

const testSDDL = "O:S-1-5-21-1-2-3-500G:S-1-5-21-1-2-3-513D:(A;;FA;;;SY)(A;;0x1200a9;;;BU)"

func TestCreateAndDeleteDirectory(t *testing.T) {
	_, svc := start(t, lazulitest.Options{InMemory: true})
	sh := newShare(t, svc, "dirs")
	d := sh.NewDirectoryClient("Parent")
	created, err := d.Create(ctx, &directory.CreateOptions{Metadata: map[string]*string{"k": to.Ptr("v")}})
	must(t, err)
	if created.ID == nil || created.ParentID == nil || *created.ParentID != "0" || created.FilePermissionKey == nil {
		t.Fatalf("create: id %v parent %v key %v", created.ID, created.ParentID, created.FilePermissionKey)
	}
	// Names are case-insensitive.
	_, err = sh.NewDirectoryClient("PARENT").Create(ctx, nil)
	wantCode(t, err, http.StatusConflict, "ResourceAlreadyExists")
	props, err := sh.NewDirectoryClient("parent").GetProperties(ctx, nil)
	must(t, err)
	if *props.ID != *created.ID || meta(props.Metadata, "k") != "v" || *props.FileAttributes != "Directory" {
		t.Fatalf("props: id %s attrs %s meta %v", *props.ID, *props.FileAttributes, props.Metadata)
	}
	_, err = sh.NewDirectoryClient("missing/child").Create(ctx, nil)
	wantCode(t, err, http.StatusNotFound, "ParentNotFound")
	child := d.NewSubdirectoryClient("child")
	_, err = child.Create(ctx, nil)
	must(t, err)
	_, err = d.NewFileClient("f").Create(ctx, 0, nil)
	must(t, err)
	_, err = sh.NewDirectoryClient("Parent/f/under-a-file").Create(ctx, nil)
	wantCode(t, err, http.StatusNotFound, "ParentNotFound")

	_, err = d.Delete(ctx, nil)
	wantCode(t, err, http.StatusConflict, "DirectoryNotEmpty")
	_, err = child.Delete(ctx, nil)
	must(t, err)
	_, err = d.NewFileClient("f").Delete(ctx, nil)
	must(t, err)
	_, err = d.Delete(ctx, nil)
	must(t, err)
	_, err = d.GetProperties(ctx, nil)
	wantCode(t, err, http.StatusNotFound, "ResourceNotFound")
	_, err = d.Delete(ctx, nil)
	wantCode(t, err, http.StatusNotFound, "ResourceNotFound")
	_, err = svc.NewShareClient("nosuchshare").NewDirectoryClient("x").Create(ctx, nil)
	wantCode(t, err, http.StatusNotFound, "ShareNotFound")
}

func TestDirectorySMBProperties(t *testing.T) {
	_, svc := start(t, lazulitest.Options{InMemory: true})
	sh := newShare(t, svc, "smbprops")
	d := sh.NewDirectoryClient("d")
	created := time.Date(2020, 5, 6, 7, 8, 9, 123456700, time.UTC)
	written := created.Add(time.Hour)
	resp, err := d.Create(ctx, &directory.CreateOptions{
		FileSMBProperties: &file.SMBProperties{Attributes: &file.NTFSFileAttributes{Hidden: true},
			CreationTime: &created, LastWriteTime: &written},
		FilePermissions: &file.Permissions{Permission: to.Ptr(testSDDL)},
	})
	must(t, err)
	if !resp.FileCreationTime.Equal(created) || !resp.FileLastWriteTime.Equal(written) {
		t.Errorf("times %v %v", resp.FileCreationTime, resp.FileLastWriteTime)
	}
	attrs, err := file.ParseNTFSFileAttributes(resp.FileAttributes)
	must(t, err)
	if !attrs.Hidden || !attrs.Directory {
		t.Errorf("attributes %s", *resp.FileAttributes)
	}
	// Created with a permission, the directory gets it with the parent's
	// inheritable ACEs added (automatic inheritance), under a key of its
	// own: Azure answers Create File with a Create Permission key by
	// another key (the recorded TestFileCreateWithPermissionKey).
	perm, err := sh.GetPermission(ctx, *resp.FilePermissionKey, nil)
	must(t, err)
	const inherited = "O:S-1-5-21-1-2-3-500G:S-1-5-21-1-2-3-513D:AI(A;;FA;;;SY)(A;;0x1200a9;;;BU)" +
		"(A;OICIID;FA;;;SY)(A;OICIID;FA;;;BA)(A;OICIID;0x1301bf;;;AU)(A;OICIID;0x1200a9;;;BU)S:NO_ACCESS_CONTROL"
	if *perm.Permission != inherited {
		t.Errorf("permission %q", *perm.Permission)
	}
	made, err := sh.CreatePermission(ctx, testSDDL, nil)
	must(t, err)
	if *made.FilePermissionKey == *resp.FilePermissionKey {
		t.Errorf("Create Permission and Create Directory share key %s", *made.FilePermissionKey)
	}
	// Set Directory Properties preserves what it is not given.
	set, err := d.SetProperties(ctx, &directory.SetPropertiesOptions{
		FileSMBProperties: &file.SMBProperties{Attributes: &file.NTFSFileAttributes{ReadOnly: true}}})
	must(t, err)
	if !set.FileCreationTime.Equal(created) || !set.FileLastWriteTime.Equal(written) || *set.FilePermissionKey != *resp.FilePermissionKey {
		t.Errorf("set lost properties: %v %v %s", set.FileCreationTime, set.FileLastWriteTime, *set.FilePermissionKey)
	}
	if *set.ETag == *resp.ETag {
		t.Error("Set Directory Properties kept the ETag")
	}
	props, err := d.GetProperties(ctx, nil)
	must(t, err)
	attrs, err = file.ParseNTFSFileAttributes(props.FileAttributes)
	must(t, err)
	if !attrs.ReadOnly || !attrs.Directory || attrs.Hidden {
		t.Errorf("attributes after set %s", *props.FileAttributes)
	}
	// A child created without a permission takes its parent's.
	child, err := d.NewSubdirectoryClient("c").Create(ctx, nil)
	must(t, err)
	if *child.FilePermissionKey != *resp.FilePermissionKey {
		t.Errorf("child key %s, parent %s", *child.FilePermissionKey, *resp.FilePermissionKey)
	}
	// Set Directory Properties stores the permission as given: the key
	// Create Permission gives, not the one Create Directory gave (the
	// recorded TestDirSetPropertiesFilePermissionFormat gets two keys).
	set, err = d.SetProperties(ctx, &directory.SetPropertiesOptions{FilePermissions: &file.Permissions{Permission: to.Ptr(testSDDL)}})
	must(t, err)
	if *set.FilePermissionKey != *made.FilePermissionKey {
		t.Errorf("Set Directory Properties key %s, Create Permission %s", *set.FilePermissionKey, *made.FilePermissionKey)
	}
	_, err = d.SetProperties(ctx, &directory.SetPropertiesOptions{FilePermissions: &file.Permissions{Permission: to.Ptr("not sddl")}})
	wantCode(t, err, http.StatusBadRequest, "FileInvalidPermission")
	_, err = d.SetProperties(ctx, &directory.SetPropertiesOptions{FilePermissions: &file.Permissions{PermissionKey: to.Ptr("1*2")}})
	wantCode(t, err, http.StatusBadRequest, "FileInvalidPermissionKey")
	_, err = sh.GetPermission(ctx, "1*2", nil)
	wantCode(t, err, http.StatusBadRequest, "FileInvalidPermissionKey")

	md, err := d.SetMetadata(ctx, &directory.SetMetadataOptions{Metadata: map[string]*string{"x": to.Ptr("y")}})
	must(t, err)
	if *md.ETag == *set.ETag {
		t.Error("Set Directory Metadata kept the ETag")
	}
}

func TestListDirectoriesAndFiles(t *testing.T) {
	_, svc := start(t, lazulitest.Options{InMemory: true})
	sh := newShare(t, svc, "listing")
	root := sh.NewRootDirectoryClient()
	var want []string
	for i := range 7 {
		name := fmt.Sprintf("entry-%02d", i)
		if i%2 == 0 {
			_, err := root.NewSubdirectoryClient(name).Create(ctx, nil)
			must(t, err)
			want = append(want, "d:"+name)
		} else {
			_, err := root.NewFileClient(name).Create(ctx, int64(i), nil)
			must(t, err)
			want = append(want, "f:"+name)
		}
	}
	_, err := root.NewFileClient("zzz-other").Create(ctx, 1, nil)
	must(t, err)
	var got []string
	pages := 0
	pager := root.NewListFilesAndDirectoriesPager(&directory.ListFilesAndDirectoriesOptions{
		Prefix: to.Ptr("entry-"), MaxResults: to.Ptr(int32(3)),
		Include: directory.ListFilesInclude{Timestamps: true, ETag: true, Attributes: true, PermissionKey: true}})
	for pager.More() {
		page, err := pager.NextPage(ctx)
		must(t, err)
		pages++
		if page.DirectoryID == nil || *page.DirectoryID != "0" {
			t.Errorf("DirectoryId %v", page.DirectoryID)
		}
		for _, d := range page.Segment.Directories {
			if d.ID == nil || d.Properties.ETag == nil || d.Attributes == nil || d.PermissionKey == nil || d.Properties.CreationTime == nil {
				t.Errorf("directory %s lacks included fields", *d.Name)
			}
			got = append(got, "d:"+*d.Name)
		}
		for _, f := range page.Segment.Files {
			if f.Properties.ContentLength == nil || f.Properties.LastWriteTime == nil || f.Attributes == nil {
				t.Errorf("file %s lacks included fields", *f.Name)
			}
			got = append(got, "f:"+*f.Name)
		}
	}
	if pages != 3 || len(got) != len(want) {
		t.Fatalf("listed %v in %d pages, want %v in 3", got, pages, want)
	}
	seen := strings.Join(got, ",")
	for _, w := range want {
		if !strings.Contains(seen, w) {
			t.Errorf("missing %s in %s", w, seen)
		}
	}
	// Without include or extended info, entries carry names, ids and sizes
	// (the SDK's recorded TestDirListFilesAndDirsDefault).
	page, err := root.NewListFilesAndDirectoriesPager(nil).NextPage(ctx)
	must(t, err)
	if len(page.Segment.Files) != 4 || page.Segment.Files[0].ID == nil || page.Segment.Files[0].Properties.ContentLength == nil ||
		page.Segment.Files[0].Properties.ETag != nil {
		t.Errorf("plain listing: %d files, first %+v", len(page.Segment.Files), page.Segment.Files[0])
	}
	page, err = root.NewListFilesAndDirectoriesPager(&directory.ListFilesAndDirectoriesOptions{IncludeExtendedInfo: to.Ptr(true)}).NextPage(ctx)
	must(t, err)
	if page.Segment.Files[0].ID == nil || page.DirectoryID == nil || page.Segment.Files[0].Properties.ETag != nil {
		t.Errorf("extended listing: %+v", page.Segment.Files[0])
	}
	_, err = root.NewListFilesAndDirectoriesPager(&directory.ListFilesAndDirectoriesOptions{MaxResults: to.Ptr(int32(-1))}).NextPage(ctx)
	wantCode(t, err, http.StatusBadRequest, "OutOfRangeQueryParameterValue")
	_, err = sh.NewDirectoryClient("nope").NewListFilesAndDirectoriesPager(nil).NextPage(ctx)
	wantCode(t, err, http.StatusNotFound, "ResourceNotFound")
}

func TestRenameDirectory(t *testing.T) {
	_, svc := start(t, lazulitest.Options{InMemory: true})
	sh := newShare(t, svc, "renames")
	src := sh.NewDirectoryClient("src")
	_, err := src.Create(ctx, nil)
	must(t, err)
	_, err = src.NewSubdirectoryClient("inner").Create(ctx, nil)
	must(t, err)
	f := src.NewSubdirectoryClient("inner").NewFileClient("data")
	_, err = f.Create(ctx, 4, nil)
	must(t, err)
	_, err = f.UploadRange(ctx, 0, streamOf([]byte("abcd")), nil)
	must(t, err)
	_, err = sh.NewDirectoryClient("taken").Create(ctx, nil)
	must(t, err)

	_, err = src.Rename(ctx, "taken", nil)
	wantCode(t, err, http.StatusConflict, "ResourceAlreadyExists")
	_, err = src.Rename(ctx, "src/inner/deeper", nil)
	wantCode(t, err, http.StatusBadRequest, "InvalidInput")
	_, err = src.Rename(ctx, "nowhere/dst", nil)
	wantCode(t, err, http.StatusNotFound, "ParentNotFound")
	moved, err := src.Rename(ctx, "taken/dst", nil)
	must(t, err)
	if moved.ID == nil {
		t.Fatal("rename returned no id")
	}
	_, err = src.GetProperties(ctx, nil)
	wantCode(t, err, http.StatusNotFound, "ResourceNotFound")
	if got := download(t, sh.NewDirectoryClient("taken/dst/inner").NewFileClient("data")); got != "abcd" {
		t.Fatalf("moved file reads %q", got)
	}
	// A case-only rename keeps the entry and changes its name.
	_, err = sh.NewDirectoryClient("taken/dst").Rename(ctx, "taken/DST", nil)
	must(t, err)
	page, err := sh.NewDirectoryClient("taken").NewListFilesAndDirectoriesPager(nil).NextPage(ctx)
	must(t, err)
	if len(page.Segment.Directories) != 1 || *page.Segment.Directories[0].Name != "DST" {
		t.Fatalf("after case rename: %+v", page.Segment.Directories)
	}
}

func TestRenameFile(t *testing.T) {
	_, svc := start(t, lazulitest.Options{InMemory: true})
	sh := newShare(t, svc, "filerenames")
	root := sh.NewRootDirectoryClient()
	a := root.NewFileClient("a")
	_, err := a.Create(ctx, 1, nil)
	must(t, err)
	_, err = a.UploadRange(ctx, 0, streamOf([]byte("A")), nil)
	must(t, err)
	b := root.NewFileClient("b")
	_, err = b.Create(ctx, 1, &file.CreateOptions{SMBProperties: &file.SMBProperties{Attributes: &file.NTFSFileAttributes{ReadOnly: true}}})
	must(t, err)
	_, err = a.Rename(ctx, "b", nil)
	wantCode(t, err, http.StatusConflict, "ResourceAlreadyExists")
	_, err = a.Rename(ctx, "b", &file.RenameOptions{ReplaceIfExists: to.Ptr(true)})
	wantCode(t, err, http.StatusConflict, "ReadOnlyAttribute")
	_, err = a.Rename(ctx, "b", &file.RenameOptions{ReplaceIfExists: to.Ptr(true), IgnoreReadOnly: to.Ptr(true)})
	must(t, err)
	if got := download(t, b); got != "A" {
		t.Fatalf("renamed file reads %q", got)
	}
	_, err = a.GetProperties(ctx, nil)
	wantCode(t, err, http.StatusNotFound, "ResourceNotFound")
	stats, err := sh.GetStatistics(ctx, nil)
	must(t, err)
	if *stats.ShareUsageBytes != 1 {
		t.Errorf("usage after replace = %d, want 1", *stats.ShareUsageBytes)
	}
}

func TestPathRules(t *testing.T) {
	_, svc := start(t, lazulitest.Options{InMemory: true})
	sh := newShare(t, svc, "paths")
	root := sh.NewRootDirectoryClient()
	for _, name := range []string{`a"b`, `a:b`, `a|b`, `a<b`, `a>b`, `a*b`, `a?b`, `a\b`, "CON", "lpt1", "a\x01b"} {
		_, err := root.NewFileClient(name).Create(ctx, 0, nil)
		if got, status := code(err); status != http.StatusBadRequest || got != "InvalidResourceName" {
			t.Errorf("name %q: got %d %s, want 400 InvalidResourceName", name, status, got)
		}
	}
	_, err := root.NewFileClient(strings.Repeat("n", 256)).Create(ctx, 0, nil)
	wantCode(t, err, http.StatusBadRequest, "InvalidFileOrDirectoryPathName")
	_, err = root.NewFileClient(strings.Repeat("n", 255)).Create(ctx, 0, nil)
	must(t, err)
	deep := strings.Repeat("d/", 251) + "f"
	_, err = root.NewFileClient(deep).Create(ctx, 0, nil)
	wantCode(t, err, http.StatusBadRequest, "InvalidFileOrDirectoryPathName")
	long := strings.Repeat(strings.Repeat("x", 200)+"/", 10) + strings.Repeat("y", 60)
	_, err = root.NewFileClient(long).Create(ctx, 0, nil)
	wantCode(t, err, http.StatusBadRequest, "InvalidFileOrDirectoryPathName")
	// Trailing dots are dropped unless the client asks to keep them.
	_, err = root.NewFileClient("dotted.").Create(ctx, 0, nil)
	must(t, err)
	_, err = root.NewFileClient("dotted").GetProperties(ctx, nil)
	must(t, err)
}

func TestBinaryPermission(t *testing.T) {
	_, svc := start(t, lazulitest.Options{InMemory: true})
	sh := newShare(t, svc, "binperm")
	// A self-relative security descriptor with no owner, group or ACLs.
	sd := base64.StdEncoding.EncodeToString([]byte{1, 0, 0x04, 0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0})
	_, err := sh.NewDirectoryClient("d").Create(ctx, nil)
	must(t, err)
	resp, err := sh.NewDirectoryClient("d").SetProperties(ctx, &directory.SetPropertiesOptions{
		FilePermissions: &file.Permissions{Permission: to.Ptr(sd)}, FilePermissionFormat: to.Ptr(directory.FilePermissionFormatBinary)})
	must(t, err)
	// Kept as the service keeps descriptors, with a NULL SACL when none
	// was given (control 0x8014: self-relative, SACL and DACL present).
	kept := base64.StdEncoding.EncodeToString([]byte{1, 0, 0x14, 0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0})
	got, err := sh.GetPermission(ctx, *resp.FilePermissionKey, &share.GetPermissionOptions{FilePermissionFormat: to.Ptr(share.FilePermissionFormatBinary)})
	must(t, err)
	if *got.Permission != kept {
		t.Fatalf("binary permission round trip: %q", *got.Permission)
	}
	// Read in the other format, it is converted: a DACL present with no
	// list is a NULL DACL.
	asSDDL, err := sh.GetPermission(ctx, *resp.FilePermissionKey, nil)
	must(t, err)
	if *asSDDL.Permission != "D:NO_ACCESS_CONTROLS:NO_ACCESS_CONTROL" {
		t.Fatalf("as SDDL: %q", *asSDDL.Permission)
	}
	// And the other way: an SDDL permission read as binary is the
	// self-relative descriptor MS-DTYP lays out (owner, group, DACL).
	created, err := sh.CreatePermission(ctx, "O:BAG:SYD:(A;;FA;;;BA)", nil)
	must(t, err)
	asBinary, err := sh.GetPermission(ctx, *created.FilePermissionKey, &share.GetPermissionOptions{FilePermissionFormat: to.Ptr(share.FilePermissionFormatBinary)})
	must(t, err)
	wantHex := "01001480140000002400000000000000300000000102000000000005200000002002000001010000000000051200000002002000010000000000180" +
		"0ff011f0001020000000000052000000020020000"
	if raw, _ := base64.StdEncoding.DecodeString(*asBinary.Permission); hex.EncodeToString(raw) != wantHex {
		t.Fatalf("as binary: %x", raw)
	}
	_, err = sh.NewDirectoryClient("e").Create(ctx, &directory.CreateOptions{
		FilePermissions: &file.Permissions{Permission: to.Ptr("AAAA")}, FilePermissionFormat: to.Ptr(share.FilePermissionFormatBinary)})
	wantCode(t, err, http.StatusBadRequest, "FileInvalidPermission")
	// The key is the descriptor's, however it was spelled or encoded: the
	// service answers the SDDL it returned with the key it gave
	// (azure-storage-file-share's test_create_permission_for_share).
	for _, same := range []string{"O:S-1-5-32-544G:S-1-5-18D:(A;;0x1f01ff;;;BA)", "O:BAG:SYD:(A;;FA;;;BA)S:NO_ACCESS_CONTROL"} {
		again, err := sh.CreatePermission(ctx, same, nil)
		must(t, err)
		if *again.FilePermissionKey != *created.FilePermissionKey {
			t.Errorf("%s: key %s, want %s", same, *again.FilePermissionKey, *created.FilePermissionKey)
		}
	}
	fromBinary, err := sh.NewDirectoryClient("d").SetProperties(ctx, &directory.SetPropertiesOptions{
		FilePermissions: &file.Permissions{Permission: asBinary.Permission}, FilePermissionFormat: to.Ptr(directory.FilePermissionFormatBinary)})
	must(t, err)
	if *fromBinary.FilePermissionKey != *created.FilePermissionKey {
		t.Errorf("binary: key %s, want %s", *fromBinary.FilePermissionKey, *created.FilePermissionKey)
	}
}

// TestCreateWithInheritedKey: a directory or file created with the key a
// sibling got by inheriting answers that same key, since its permission is
// the one inheriting gives. Reference: azure-sdk-for-js storage-file-share
// recordings/node/directoryclient/
// recording_create_with_all_parameters_configured_setting_filepermissionkey.json
// (the second Create Directory sends the first one's key and is answered
// it, and Get Directory Properties answers it too).
func TestCreateWithInheritedKey(t *testing.T) {
	_, svc := start(t, lazulitest.Options{InMemory: true})
	sh := newShare(t, svc, "inheritedkey")
	root := sh.NewRootDirectoryClient()
	first, err := root.NewSubdirectoryClient("first").Create(ctx, nil)
	must(t, err)
	key := *first.FilePermissionKey
	second := root.NewSubdirectoryClient("second")
	made, err := second.Create(ctx, &directory.CreateOptions{FilePermissions: &file.Permissions{PermissionKey: to.Ptr(key)}})
	must(t, err)
	if *made.FilePermissionKey != key {
		t.Errorf("Create Directory with key %s answered %s", key, *made.FilePermissionKey)
	}
	props, err := second.GetProperties(ctx, nil)
	must(t, err)
	if *props.FilePermissionKey != key {
		t.Errorf("Get Directory Properties key %s, want %s", *props.FilePermissionKey, key)
	}
}
