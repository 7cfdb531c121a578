package file_test

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/streaming"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azfile/directory"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azfile/file"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azfile/lease"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azfile/sas"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azfile/service"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azfile/share"

	"github.com/lazuli-storage/lazuli/internal/check/lazulitest"
	"github.com/lazuli-storage/lazuli/internal/run/config"
	lazfile "github.com/lazuli-storage/lazuli/internal/service/file"
	"github.com/lazuli-storage/lazuli/internal/service/file/smbstate"
	"github.com/lazuli-storage/lazuli/internal/tool/dump"
)

// premiumOptions start a server whose account may create NFS shares.
func premiumOptions() lazulitest.Options {
	return lazulitest.Options{InMemory: true, Services: []string{"file"},
		Configure: func(c *config.Config) { c.PremiumAccounts = []string{lazulitest.Account} }}
}

// nfsShare creates an NFS share.
func nfsShare(t *testing.T, svc *service.Client, name string) *share.Client {
	t.Helper()
	sh := svc.NewShareClient(name)
	if _, err := sh.Create(ctx, &share.CreateOptions{EnabledProtocols: to.Ptr("NFS")}); err != nil {
		t.Fatal(err)
	}
	return sh
}

// fileWith creates a file holding data.
func fileWith(t *testing.T, f *file.Client, data []byte) {
	t.Helper()
	_, err := f.Create(ctx, int64(len(data)), nil)
	must(t, err)
	_, err = f.UploadRange(ctx, 0, streaming.NopCloser(bytes.NewReader(data)), nil)
	must(t, err)
}

func readAll(t *testing.T, f *file.Client) []byte {
	t.Helper()
	resp, err := f.DownloadStream(ctx, nil)
	must(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	must(t, err)
	return b
}

// linkCount reads x-ms-link-count and the file id through one name.
func linkCount(t *testing.T, f *file.Client) (int64, string) {
	t.Helper()
	p, err := f.GetProperties(ctx, nil)
	must(t, err)
	if p.LinkCount == nil || p.ID == nil {
		t.Fatalf("properties without x-ms-link-count or x-ms-file-id: %+v", p)
	}
	return *p.LinkCount, *p.ID
}

func fileID(t *testing.T, raw string) uint64 {
	t.Helper()
	id, err := strconv.ParseUint(raw, 10, 64)
	must(t, err)
	return id
}

// A hard link is another name of the same file: one id, one content, one
// set of properties, whichever name a write goes through; the count of
// names goes up with each link and down with each delete, and the content
// (its range records) goes with the last name.
func TestNFSHardLinks(t *testing.T) {
	in, svc := start(t, premiumOptions())
	sh := nfsShare(t, svc, "links")
	dir := sh.NewDirectoryClient("dir")
	dirCreated, err := dir.Create(ctx, nil)
	must(t, err)
	a, b, c := dir.NewFileClient("a"), dir.NewFileClient("b"), sh.NewRootDirectoryClient().NewFileClient("c")
	data := bytes.Repeat([]byte("0123456789abcdef"), 64)
	fileWith(t, a, data)
	_, aID := linkCount(t, a)

	linked, err := b.CreateHardLink(ctx, "/dir/a", nil)
	must(t, err)
	switch {
	case *linked.NFSFileType != "Regular", *linked.Owner != "0", *linked.Group != "0", *linked.FileMode != "0664":
		t.Errorf("link NFS properties %s %s %s %s", *linked.NFSFileType, *linked.Owner, *linked.Group, *linked.FileMode)
	case *linked.LinkCount != 2:
		t.Errorf("link count %d, want 2", *linked.LinkCount)
	case *linked.ID != aID || *linked.ParentID != *dirCreated.ID:
		t.Errorf("link id %s parent %s, want %s in %s", *linked.ID, *linked.ParentID, aID, *dirCreated.ID)
	case linked.ETag == nil || linked.LastModified == nil || linked.FileCreationTime == nil ||
		linked.FileLastWriteTime == nil || linked.FileChangeTime == nil:
		t.Errorf("link answer without ETag or times: %+v", linked)
	}
	if got := readAll(t, b); !bytes.Equal(got, data) {
		t.Fatalf("the new name reads %d bytes that differ from the %d written", len(got), len(data))
	}
	// The target may be given as its URL too; its directory is elsewhere.
	_, err = c.CreateHardLink(ctx, strings.TrimSuffix(in.FileURL, "/")+"/links/dir/a", nil)
	must(t, err)
	for _, f := range []*file.Client{a, b, c} {
		if n, id := linkCount(t, f); n != 3 || id != aID {
			t.Errorf("%s: link count %d id %s, want 3 and %s", f.URL(), n, id, aID)
		}
	}

	// A write through one name is read through the others.
	_, err = b.UploadRange(ctx, 16, streaming.NopCloser(bytes.NewReader([]byte("WRITTEN THROUGH B"))), nil)
	must(t, err)
	copy(data[16:], "WRITTEN THROUGH B")
	if got := readAll(t, a); !bytes.Equal(got, data) {
		t.Fatal("a write through one name is not read through the other")
	}
	_, err = a.SetMetadata(ctx, &file.SetMetadataOptions{Metadata: map[string]*string{"via": to.Ptr("a")}})
	must(t, err)
	_, err = c.SetHTTPHeaders(ctx, &file.SetHTTPHeadersOptions{FileContentLength: to.Ptr(int64(len(data) + 100)),
		HTTPHeaders:   &file.HTTPHeaders{ContentType: to.Ptr("text/plain")},
		NFSProperties: &file.NFSProperties{FileMode: to.Ptr("0640"), Owner: to.Ptr("1000")}})
	must(t, err)
	pa, err := a.GetProperties(ctx, nil)
	must(t, err)
	pb, err := b.GetProperties(ctx, nil)
	must(t, err)
	pc, err := c.GetProperties(ctx, nil)
	must(t, err)
	switch {
	case meta(pb.Metadata, "via") != "a":
		t.Errorf("metadata set through a, read through b: %v", pb.Metadata)
	case *pb.ContentLength != int64(len(data)+100) || *pb.ContentType != "text/plain" || *pb.FileMode != "0640" || *pb.Owner != "1000":
		t.Errorf("properties set through c, read through b: %d %s %s %s", *pb.ContentLength, *pb.ContentType, *pb.FileMode, *pb.Owner)
	case *pa.ETag != *pb.ETag || !pa.LastModified.Equal(*pb.LastModified) || !pa.FileChangeTime.Equal(*pb.FileChangeTime):
		t.Errorf("two names of one file answer ETags %s and %s", *pa.ETag, *pb.ETag)
	case *pa.ParentID != *dirCreated.ID || *pc.ParentID == *dirCreated.ID:
		t.Errorf("parent ids %s and %s: each name keeps its own", *pa.ParentID, *pc.ParentID)
	}

	// Listing the directory shows both of its names, as the same file.
	page, err := dir.NewListFilesAndDirectoriesPager(nil).NextPage(ctx)
	must(t, err)
	listed := map[string]string{}
	for _, f := range page.Segment.Files {
		listed[*f.Name] = *f.ID + "/" + strconv.FormatInt(*f.Properties.ContentLength, 10)
	}
	want := aID + "/" + strconv.Itoa(len(data)+100)
	if len(listed) != 2 || listed["a"] != want || listed["b"] != want {
		t.Errorf("listed %v, want a and b as %s", listed, want)
	}

	// Each delete removes one name and answers the names left.
	id := fileID(t, aID)
	gone, err := a.Delete(ctx, nil)
	must(t, err)
	if gone.LinkCount == nil || *gone.LinkCount != 2 {
		t.Errorf("Delete File answers link count %v, want 2", gone.LinkCount)
	}
	if _, err := a.GetProperties(ctx, nil); err == nil {
		t.Fatal("a deleted name still answers")
	}
	if got := readAll(t, b); !bytes.Equal(got[:len(data)], data) {
		t.Fatal("the other names lost the content with the first name")
	}
	// A rename moves one name only.
	_, err = c.Rename(ctx, "dir/d", nil)
	must(t, err)
	d := dir.NewFileClient("d")
	if n, _ := linkCount(t, d); n != 2 {
		t.Errorf("after a rename: link count %d, want 2", n)
	}
	_, err = d.Delete(ctx, nil)
	must(t, err)
	if n, _ := linkCount(t, b); n != 1 {
		t.Errorf("last name: link count %d, want 1", n)
	}
	if got := readAll(t, b); !bytes.Equal(got[:len(data)], data) {
		t.Fatal("the last name lost the content")
	}
	if ranges, link, err := lazfile.FileRecords(in.App.Store, lazulitest.Account, "links", id); err != nil || ranges == 0 || !link {
		t.Fatalf("the last name's file: %d ranges, link record %v (%v)", ranges, link, err)
	}
	gone, err = b.Delete(ctx, nil)
	must(t, err)
	if gone.LinkCount == nil || *gone.LinkCount != 0 {
		t.Errorf("deleting the last name answers link count %v, want 0", gone.LinkCount)
	}
	if ranges, link, err := lazfile.FileRecords(in.App.Store, lazulitest.Account, "links", id); err != nil || ranges != 0 || link {
		t.Fatalf("after the last name: %d range records, link record %v (%v)", ranges, link, err)
	}
	stats, err := sh.GetStatistics(ctx, nil)
	must(t, err)
	if *stats.ShareUsageBytes != 0 {
		t.Errorf("share usage %d after the file went, want 0", *stats.ShareUsageBytes)
	}
}

// What Create Hard Link refuses, and the lease it checks.
func TestNFSHardLinkErrors(t *testing.T) {
	_, svc := start(t, premiumOptions())
	sh := nfsShare(t, svc, "links")
	root := sh.NewRootDirectoryClient()
	_, err := sh.NewDirectoryClient("dir").Create(ctx, nil)
	must(t, err)
	target := root.NewFileClient("target")
	fileWith(t, target, []byte("content"))
	_, err = root.NewFileClient("symlink").CreateSymbolicLink(ctx, "target", nil)
	must(t, err)
	link := root.NewFileClient("link")

	_, err = link.CreateHardLink(ctx, "/missing", nil)
	wantCode(t, err, http.StatusNotFound, "ResourceNotFound")
	_, err = link.CreateHardLink(ctx, "/nodir/missing", nil)
	wantCode(t, err, http.StatusNotFound, "ResourceNotFound")
	_, err = sh.NewDirectoryClient("nodir").NewFileClient("link").CreateHardLink(ctx, "/target", nil)
	wantCode(t, err, http.StatusNotFound, "ParentNotFound")
	_, err = link.CreateHardLink(ctx, "/dir", nil)
	wantCode(t, err, http.StatusConflict, "ResourceTypeMismatch")
	_, err = link.CreateHardLink(ctx, "/symlink", nil)
	wantCode(t, err, http.StatusConflict, "ResourceTypeMismatch")
	_, err = root.NewFileClient("symlink").CreateHardLink(ctx, "/target", nil)
	wantCode(t, err, http.StatusConflict, "ResourceAlreadyExists")
	_, err = target.CreateHardLink(ctx, "/target", nil)
	wantCode(t, err, http.StatusConflict, "ResourceAlreadyExists")
	_, err = link.CreateHardLink(ctx, "", nil) // the SDK's TestCreateHardLinkNilOptions
	wantCode(t, err, http.StatusBadRequest, "MissingRequiredHeader")
	_, err = link.CreateHardLink(ctx, "http://elsewhere.example/other/target", nil)
	wantCode(t, err, http.StatusBadRequest, "InvalidHeaderValue")

	snap, err := sh.CreateSnapshot(ctx, nil)
	must(t, err)
	old, err := sh.WithSnapshot(*snap.Snapshot)
	must(t, err)
	_, err = old.NewRootDirectoryClient().NewFileClient("other").CreateHardLink(ctx, "/target", nil)
	wantCode(t, err, http.StatusBadRequest, "ShareSnapshotOperationNotSupported")

	smb := newShare(t, svc, "smb")
	smbFile := smb.NewRootDirectoryClient().NewFileClient("target")
	_, err = smbFile.Create(ctx, 0, nil)
	must(t, err)
	_, err = smb.NewRootDirectoryClient().NewFileClient("link").CreateHardLink(ctx, "/target", nil)
	wantCode(t, err, http.StatusBadRequest, "InvalidHeaderValue")

	// A leased target takes its lease's ID, and only that one.
	lc, err := lease.NewFileClient(target, &lease.FileClientOptions{LeaseID: to.Ptr("c820a799-76d7-4ee2-6e15-546f19325c2d")})
	must(t, err)
	_, err = lc.Acquire(ctx, nil)
	must(t, err)
	_, err = link.CreateHardLink(ctx, "/target", nil)
	wantCode(t, err, http.StatusPreconditionFailed, "LeaseIdMissing")
	_, err = link.CreateHardLink(ctx, "/target", &file.CreateHardLinkOptions{
		LeaseAccessConditions: &file.LeaseAccessConditions{LeaseID: to.Ptr("c820a799-76d7-4ee2-6e15-546f19325c2e")}})
	wantCode(t, err, http.StatusPreconditionFailed, "LeaseIdMismatchWithBlobOperation")
	_, err = link.CreateHardLink(ctx, "/target", &file.CreateHardLinkOptions{
		LeaseAccessConditions: &file.LeaseAccessConditions{LeaseID: lc.LeaseID()}})
	must(t, err)
	// The lease is the file's: its other name needs it for a write too.
	_, err = link.SetMetadata(ctx, nil)
	wantCode(t, err, http.StatusPreconditionFailed, "LeaseIdMissing")
}

// A SAS made for the new name alone does not reach the target through a
// link; one for the share, with the operation's permissions, does.
func TestNFSHardLinkSAS(t *testing.T) {
	_, svc := start(t, premiumOptions())
	sh := nfsShare(t, svc, "links")
	fileWith(t, sh.NewRootDirectoryClient().NewFileClient("secret"), []byte("secret"))
	expiry := time.Now().Add(time.Hour)
	link := sh.NewRootDirectoryClient().NewFileClient("link")
	fileURL, err := link.GetSASURL(sas.FilePermissions{Read: true, Create: true, Write: true}, expiry, nil)
	must(t, err)
	_, err = sasFileClient(t, fileURL).CreateHardLink(ctx, "/secret", nil)
	wantCode(t, err, http.StatusForbidden, "AuthorizationFailure")
	shareURL, err := sh.GetSASURL(sas.SharePermissions{Create: true, Write: true}, expiry, nil)
	must(t, err)
	_, err = sasShareClient(t, shareURL).NewRootDirectoryClient().NewFileClient("link").CreateHardLink(ctx, "/secret", nil)
	must(t, err)
}

// The SDK's TestCreateHardLinkNFSWithLease: the share's lease ID, sent for
// a target that has no lease of its own, does not stand in the way.
func TestNFSHardLinkWithShareLease(t *testing.T) {
	_, svc := start(t, premiumOptions())
	sh := nfsShare(t, svc, "leased")
	_, err := sh.NewRootDirectoryClient().NewFileClient("file1").Create(ctx, 1024, nil)
	must(t, err)
	id := to.Ptr("c820a799-76d7-4ee2-6e15-546f19325c2c")
	lc, err := lease.NewShareClient(sh, &lease.ShareClientOptions{LeaseID: id})
	must(t, err)
	_, err = lc.Acquire(ctx, 60, nil)
	must(t, err)
	resp, err := sh.NewRootDirectoryClient().NewFileClient("file2").CreateHardLink(ctx, "/file1", &file.CreateHardLinkOptions{
		LeaseAccessConditions: &file.LeaseAccessConditions{LeaseID: id}})
	must(t, err)
	if *resp.LinkCount != 2 || *resp.FileMode != "0664" {
		t.Fatalf("link count %d mode %s", *resp.LinkCount, *resp.FileMode)
	}
	_, err = lc.Release(ctx, nil)
	must(t, err)
}

// Names of one file in the other operations that take a name: a rename
// onto another name of the same file drops the source name only; Create
// File over a name replaces the file every name shows; a snapshot keeps the
// names and content as they were; a directory rename moves the names in it.
func TestNFSHardLinkRenameCreateSnapshot(t *testing.T) {
	_, svc := start(t, premiumOptions())
	sh := nfsShare(t, svc, "links")
	root := sh.NewRootDirectoryClient()
	a, b, c := root.NewFileClient("a"), root.NewFileClient("b"), root.NewFileClient("c")
	fileWith(t, a, []byte("first content"))
	for _, f := range []*file.Client{b, c} {
		_, err := f.CreateHardLink(ctx, "/a", nil)
		must(t, err)
	}
	snap, err := sh.CreateSnapshot(ctx, nil)
	must(t, err)

	_, err = c.Rename(ctx, "b", nil)
	wantCode(t, err, http.StatusConflict, "ResourceAlreadyExists")
	_, err = c.Rename(ctx, "b", &file.RenameOptions{ReplaceIfExists: to.Ptr(true)})
	must(t, err)
	if _, err := c.GetProperties(ctx, nil); err == nil {
		t.Error("the renamed name is still there")
	}
	if n, _ := linkCount(t, a); n != 2 {
		t.Errorf("after renaming one name onto another: link count %d, want 2", n)
	}

	// Create File over a name truncates the file every name shows.
	_, err = b.Create(ctx, 5, nil)
	must(t, err)
	if got := readAll(t, a); !bytes.Equal(got, make([]byte, 5)) {
		t.Errorf("after Create File over the other name, a reads %q", got)
	}
	if n, _ := linkCount(t, a); n != 2 {
		t.Errorf("after Create File over a name: link count %d, want 2", n)
	}

	// A name in a directory moves with its directory.
	d := sh.NewDirectoryClient("d")
	_, err = d.Create(ctx, nil)
	must(t, err)
	_, err = d.NewFileClient("x").CreateHardLink(ctx, "/a", nil)
	must(t, err)
	_, err = d.Rename(ctx, "e", nil)
	must(t, err)
	x := sh.NewDirectoryClient("e").NewFileClient("x")
	if n, _ := linkCount(t, x); n != 3 {
		t.Errorf("a name in a renamed directory: link count %d, want 3", n)
	}
	if got := readAll(t, x); !bytes.Equal(got, make([]byte, 5)) {
		t.Errorf("a name in a renamed directory reads %q", got)
	}

	old, err := sh.WithSnapshot(*snap.Snapshot)
	must(t, err)
	oldRoot := old.NewRootDirectoryClient()
	for _, name := range []string{"a", "b", "c"} {
		f := oldRoot.NewFileClient(name)
		if got := readAll(t, f); string(got) != "first content" {
			t.Errorf("snapshot %s reads %q", name, got)
		}
		if n, _ := linkCount(t, f); n != 3 {
			t.Errorf("snapshot %s: link count %d, want 3", name, n)
		}
	}
	page, err := oldRoot.NewListFilesAndDirectoriesPager(&directory.ListFilesAndDirectoriesOptions{}).NextPage(ctx)
	must(t, err)
	if len(page.Segment.Files) != 3 {
		t.Errorf("the snapshot lists %d names, want 3", len(page.Segment.Files))
	}
	// Deleting the share's last names leaves the snapshot's alone.
	for _, f := range []*file.Client{a, b} {
		_, err := f.Delete(ctx, nil)
		must(t, err)
	}
	if got := readAll(t, oldRoot.NewFileClient("b")); string(got) != "first content" {
		t.Errorf("snapshot b after the live names went: %q", got)
	}
	_, err = sh.Delete(ctx, &share.DeleteOptions{DeleteSnapshots: to.Ptr(share.DeleteSnapshotsOptionTypeInclude)})
	must(t, err)
}

// Hard links survive a dump and a load into another store: the link
// records travel with the share's other records, and a server on the copy
// serves both names as one file.
func TestNFSHardLinksDumpAndLoad(t *testing.T) {
	src, svc := start(t, premiumOptions())
	sh := nfsShare(t, svc, "links")
	a := sh.NewRootDirectoryClient().NewFileClient("a")
	data := bytes.Repeat([]byte("linked "), 100)
	fileWith(t, a, data)
	_, err := sh.NewRootDirectoryClient().NewFileClient("b").CreateHardLink(ctx, "/a", nil)
	must(t, err)
	var stream bytes.Buffer
	_, err = dump.Dump(ctx, src.App.Store, src.App.Extents, &stream)
	must(t, err)

	url := "sqlite:" + filepath.Join(t.TempDir(), "lazuli.db")
	dst, err := dump.Open(ctx, url, dump.OpenOptions{Create: true})
	must(t, err)
	_, err = dump.Load(ctx, dst.Store, dst.Extents, &stream, dump.LoadOptions{})
	must(t, errors.Join(err, dst.Extents.Close(), dst.Store.Close()))

	opts := premiumOptions()
	opts.InMemory, opts.Store = false, url
	_, svc = start(t, opts)
	root := svc.NewShareClient("links").NewRootDirectoryClient()
	a, b := root.NewFileClient("a"), root.NewFileClient("b")
	if n, _ := linkCount(t, b); n != 2 {
		t.Errorf("loaded copy: link count %d, want 2", n)
	}
	_, err = a.Delete(ctx, nil)
	must(t, err)
	if got := readAll(t, b); !bytes.Equal(got, data) {
		t.Errorf("loaded copy: b reads %d bytes that differ from the %d written", len(got), len(data))
	}
}

// The SMB endpoint reaches the same records (Lazuli does not refuse NFS
// shares over SMB): it lists, reads, writes and renames a hard-linked
// file's names as the file, lists its handles once, and a delete-on-close
// open removes only the name it was opened by.
func TestNFSHardLinksOverSMBFS(t *testing.T) {
	in, svc := start(t, premiumOptions())
	sh := nfsShare(t, svc, "links")
	root := sh.NewRootDirectoryClient()
	a, b := root.NewFileClient("a"), root.NewFileClient("b")
	fileWith(t, a, []byte("over smb"))
	_, err := b.CreateHardLink(ctx, "/a", nil)
	must(t, err)

	fs := lazfile.NewSMBFS(in.App.Store, in.App.Extents, nil, nil)
	acct := lazulitest.Account
	entries, err := fs.List(ctx, acct, "links", "")
	must(t, err)
	if len(entries) != 2 || entries[0].ID != entries[1].ID || entries[0].Size != 8 || entries[1].Size != 8 {
		t.Fatalf("SMB lists %+v", entries)
	}
	_, err = fs.Write(ctx, acct, "links", "a", 0, []byte("OVER"))
	must(t, err)
	if got, err := fs.Read(ctx, acct, "links", "b", 0, 100); err != nil || string(got) != "OVER smb" {
		t.Fatalf("SMB read through b: %q %v", got, err)
	}
	must(t, fs.Rename(ctx, acct, "links", "a", "c", false))
	if n, _ := linkCount(t, b); n != 2 {
		t.Errorf("after an SMB rename: link count %d, want 2", n)
	}

	_, _, err = fs.Open(ctx, acct, "links", "c", lazfile.OpenRequest{Disposition: lazfile.OpenExisting,
		Open: smbstate.Open{HandleID: 7, Access: smbstate.Read | smbstate.Delete, Share: smbstate.ShareAll}})
	must(t, err)
	handles, err := root.ListHandles(ctx, &directory.ListHandlesOptions{Recursive: to.Ptr(true)})
	must(t, err)
	if len(handles.Handles) != 1 {
		t.Errorf("a file of two names with one open lists %d handles, want 1", len(handles.Handles))
	}
	_, err = fs.Close(ctx, acct, "links", "c", 7, true)
	must(t, err)
	if _, err := fs.Stat(ctx, acct, "links", "c"); !errors.Is(err, lazfile.ErrNotFound) {
		t.Errorf("the name closed with delete-on-close: %v", err)
	}
	if n, _ := linkCount(t, b); n != 1 {
		t.Errorf("after a delete-on-close: link count %d, want 1", n)
	}
	if got := readAll(t, b); string(got) != "OVER smb" {
		t.Errorf("the other name after a delete-on-close reads %q", got)
	}
}
