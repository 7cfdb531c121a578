package smb_test

import (
	"bytes"
	"errors"
	"net/http"
	"os"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/streaming"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azfile/file"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azfile/fileerror"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azfile/lease"
	smb2 "github.com/hirochachacha/go-smb2"
)

// TestSMBWriteIsRESTWrite: a write over SMB gives the file a new ETag and
// last write time as REST sees them.
func TestSMBWriteIsRESTWrite(t *testing.T) {
	in, sh := startWithShare(t)
	fs := mustDial(t, in, 0)
	fc := sh.NewRootDirectoryClient().NewFileClient("w.txt")
	if _, err := fc.Create(ctx, 3, nil); err != nil {
		t.Fatal(err)
	}
	before, err := fc.GetProperties(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	in.Fake.Advance(time.Minute)
	f, err := fs.OpenFile("w.txt", os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt([]byte("abcdef"), 1); err != nil {
		t.Fatal(err)
	}
	f.Close()
	after, err := fc.GetProperties(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if *after.ETag == *before.ETag || *after.ContentLength != 7 || !after.LastModified.After(*before.LastModified) ||
		!after.FileLastWriteTime.After(*before.FileLastWriteTime) {
		t.Fatalf("after an SMB write: ETag %s→%s, size %d, Last-Modified %v→%v", *before.ETag, *after.ETag,
			*after.ContentLength, before.LastModified, after.LastModified)
	}
}

// TestRESTPropertiesAreSMBProperties: times and attributes set over REST
// are what SMB reports.
func TestRESTPropertiesAreSMBProperties(t *testing.T) {
	in, sh := startWithShare(t)
	fs := mustDial(t, in, 0)
	fc := sh.NewRootDirectoryClient().NewFileClient("p.txt")
	if _, err := fc.Create(ctx, 0, nil); err != nil {
		t.Fatal(err)
	}
	written := time.Date(2021, 3, 4, 5, 6, 7, 800, time.UTC)
	_, err := fc.SetHTTPHeaders(ctx, &file.SetHTTPHeadersOptions{SMBProperties: &file.SMBProperties{
		LastWriteTime: &written, Attributes: &file.NTFSFileAttributes{Hidden: true}}})
	if err != nil {
		t.Fatal(err)
	}
	st, err := fs.Stat("p.txt")
	if err != nil {
		t.Fatal(err)
	}
	if !st.ModTime().Equal(written) {
		t.Errorf("SMB last write %v, want %v", st.ModTime(), written)
	}
	if attrs := st.Sys().(*smb2.FileStat).FileAttributes; attrs&0x2 == 0 {
		t.Errorf("SMB attributes %#x lack Hidden", attrs)
	}
	set := time.Date(2020, 1, 2, 3, 4, 5, 0, time.UTC)
	if err := fs.Chtimes("p.txt", set, set); err != nil {
		t.Fatal(err)
	}
	props, err := fc.GetProperties(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !props.FileLastWriteTime.Equal(set) {
		t.Errorf("REST last write %v after SMB Chtimes, want %v", props.FileLastWriteTime, set)
	}
}

// TestRESTLeaseRefusesSMBWriters: while a REST lease is held, SMB opens
// for write get STATUS_SHARING_VIOLATION and readers still open.
func TestRESTLeaseRefusesSMBWriters(t *testing.T) {
	in, sh := startWithShare(t)
	fs := mustDial(t, in, 0)
	fc := sh.NewRootDirectoryClient().NewFileClient("l.txt")
	if _, err := fc.Create(ctx, 4, nil); err != nil {
		t.Fatal(err)
	}
	lc, err := lease.NewFileClient(fc, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := lc.Acquire(ctx, nil); err != nil {
		t.Fatal(err)
	}
	_, err = fs.OpenFile("l.txt", os.O_RDWR, 0)
	var re *smb2.ResponseError
	if !errors.As(err, &re) || re.Code != 0xC0000043 {
		t.Fatalf("O_RDWR under a REST lease: %v, want STATUS_SHARING_VIOLATION", err)
	}
	f, err := fs.Open("l.txt")
	if err != nil {
		t.Fatalf("read-only open under a REST lease: %v", err)
	}
	f.Close()
	if _, err := lc.Release(ctx, nil); err != nil {
		t.Fatal(err)
	}
	f, err = fs.OpenFile("l.txt", os.O_RDWR, 0)
	if err != nil {
		t.Fatalf("O_RDWR after release: %v", err)
	}
	f.Close()
}

// TestHandlesAreRealOpens: List Handles shows an SMB open, and Force Close
// Handles makes its next use fail with STATUS_FILE_CLOSED.
func TestHandlesAreRealOpens(t *testing.T) {
	in, sh := startWithShare(t)
	fs := mustDial(t, in, 0)
	f, err := fs.Create("h.txt")
	if err != nil {
		t.Fatal(err)
	}
	fc := sh.NewRootDirectoryClient().NewFileClient("h.txt")
	list, err := fc.ListHandles(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Handles) != 1 || *list.Handles[0].Path != "h.txt" {
		t.Fatalf("List Handles = %+v", list.Handles)
	}
	if _, err := fc.ForceCloseHandles(ctx, "*", nil); err != nil {
		t.Fatal(err)
	}
	_, err = f.Write([]byte("x"))
	var re *smb2.ResponseError
	if !errors.As(err, &re) || re.Code != 0xC0000128 {
		t.Fatalf("write after force close: %v, want STATUS_FILE_CLOSED", err)
	}
	if _, err := fc.Delete(ctx, nil); err != nil {
		t.Fatalf("REST delete after force close: %v", err)
	}
}

// TestReadOnlyOverSMB: a file set read-only over SMB answers REST writes
// with ReadOnlyAttribute until REST clears the attribute. The status is 409
// Conflict, not 412: the File service's error-code table lists it so, and
// the service answers so live (azure-sdk-for-js recording
// sdk/storage/storage-file-share/recordings/node/fileclient/
// recording_rename__ignorereadonly_eq_false.js: a PUT over a "ReadOnly |
// Archive" file, x-ms-version 2021-04-10, got 409 ReadOnlyAttribute).
func TestReadOnlyOverSMB(t *testing.T) {
	in, sh := startWithShare(t)
	fs := mustDial(t, in, 0)
	if err := fs.WriteFile("ro.txt", []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := fs.Chmod("ro.txt", 0o444); err != nil {
		t.Fatal(err)
	}
	fc := sh.NewRootDirectoryClient().NewFileClient("ro.txt")
	for name, op := range map[string]func() error{
		"Put Range": func() error {
			_, err := fc.UploadRange(ctx, 0, streaming.NopCloser(bytes.NewReader([]byte("x"))), nil)
			return err
		},
		"Set File Metadata": func() error {
			_, err := fc.SetMetadata(ctx, &file.SetMetadataOptions{Metadata: map[string]*string{"k": to.Ptr("v")}})
			return err
		},
		"Create File": func() error { _, err := fc.Create(ctx, 1, nil); return err },
	} {
		var re *azcore.ResponseError
		if err := op(); !errors.As(err, &re) || re.StatusCode != http.StatusConflict || re.ErrorCode != string(fileerror.ReadOnlyAttribute) {
			t.Errorf("%s on a read-only file: %v, want 409 ReadOnlyAttribute", name, err)
		}
	}
	_, err := fc.SetHTTPHeaders(ctx, &file.SetHTTPHeadersOptions{SMBProperties: &file.SMBProperties{
		Attributes: &file.NTFSFileAttributes{None: true}}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := fc.SetMetadata(ctx, nil); err != nil {
		t.Fatalf("after clearing ReadOnly: %v", err)
	}
}
