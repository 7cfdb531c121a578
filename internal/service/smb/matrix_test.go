package smb_test

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/streaming"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azfile/file"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azfile/fileerror"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azfile/lease"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azfile/share"

	"github.com/lazuli-storage/lazuli/internal/check/lazulitest"
	"github.com/lazuli-storage/lazuli/internal/rule/auth"
	"github.com/lazuli-storage/lazuli/internal/rule/sddl"
)

// restOps are the FileREST operations of Azure's "Managing file locks"
// table, each run against a file an SMB client holds open.
var restOps = []struct {
	name string
	run  func(*file.Client) error
}{
	{"Create", func(f *file.Client) error { _, err := f.Create(ctx, 1024, nil); return err }},
	{"Get", func(f *file.Client) error {
		r, err := f.DownloadStream(ctx, nil)
		if err == nil {
			r.Body.Close()
		}
		return err
	}},
	{"SetProps", func(f *file.Client) error { _, err := f.SetHTTPHeaders(ctx, nil); return err }},
	{"SetMeta", func(f *file.Client) error {
		_, err := f.SetMetadata(ctx, &file.SetMetadataOptions{Metadata: map[string]*string{"k": to.Ptr("v")}})
		return err
	}},
	{"Delete", func(f *file.Client) error { _, err := f.Delete(ctx, nil); return err }},
	{"PutRange", func(f *file.Client) error {
		_, err := f.UploadRange(ctx, 0, streaming.NopCloser(bytes.NewReader(make([]byte, 512))), nil)
		return err
	}},
	{"ListRanges", func(f *file.Client) error { _, err := f.GetRangeList(ctx, nil); return err }},
	{"Lease", func(f *file.Client) error {
		lc, err := lease.NewFileClient(f, nil)
		if err != nil {
			return err
		}
		if _, err = lc.Acquire(ctx, nil); err == nil {
			_, err = lc.Release(ctx, nil)
		}
		return err
	}},
}

// shareModeMatrix is the documented answer of each REST operation (in
// restOps order) while an SMB handle with read, write and delete access is
// open with the given share mode: "ok" or the error code. Lease File fails
// in every row: the handle has write and delete access.
var shareModeMatrix = []struct {
	mode, share string
	want        [8]string
}{
	{"None", "0", [8]string{"SV", "SV", "SV", "SV", "SV", "SV", "SV", "SV"}},
	{"R", "1", [8]string{"SV", "ok", "SV", "SV", "SV", "SV", "ok", "SV"}},
	{"W", "2", [8]string{"SV", "SV", "ok", "ok", "SV", "ok", "SV", "SV"}},
	{"D", "4", [8]string{"SV", "SV", "SV", "SV", "SV", "SV", "SV", "SV"}},
	{"RW", "3", [8]string{"SV", "ok", "ok", "ok", "SV", "ok", "ok", "SV"}},
	{"RD", "5", [8]string{"SV", "ok", "SV", "SV", "SV", "SV", "ok", "SV"}},
	{"WD", "6", [8]string{"ok", "SV", "ok", "ok", "SV", "ok", "SV", "SV"}},
	{"RWD", "7", [8]string{"ok", "ok", "ok", "ok", "SV", "ok", "ok", "SV"}},
}

// hold runs testdata/hold.py (python3-impacket) holding the opens specs
// describe until the returned function is called.
func hold(t *testing.T, in *lazulitest.Instance, specs ...string) (errs []string, release func()) {
	t.Helper()
	py := "/usr/bin/python3"
	if _, err := os.Stat(py); err != nil || exec.Command(py, "-c", "import impacket").Run() != nil {
		t.Skip("python3-impacket is not installed (Debian package python3-impacket)")
	}
	_, port, _ := strings.Cut(in.SMBAddr, ":")
	cmd := exec.Command(py, append([]string{"testdata/hold.py", port, auth.DevAccountKey}, specs...)...)
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(stdout)
	for sc.Scan() {
		if sc.Text() == "ready" {
			break
		}
		errs = append(errs, sc.Text())
	}
	if sc.Err() != nil || (len(errs) > 0 && !strings.HasPrefix(errs[len(errs)-1], "error")) {
		t.Fatalf("hold.py: %v\n%s", sc.Err(), stderr.String())
	}
	done := false
	release = func() {
		if done {
			return
		}
		done = true
		stdin.Close()
		_, _ = io.Copy(io.Discard, stdout)
		if err := cmd.Wait(); err != nil {
			t.Errorf("hold.py: %v\n%s", err, stderr.String())
		}
	}
	t.Cleanup(release)
	return errs, release
}

func outcome(err error) string {
	switch {
	case err == nil:
		return "ok"
	case fileerror.HasCode(err, fileerror.SharingViolation):
		return "SV"
	case fileerror.HasCode(err, fileerror.DeletePending):
		return "DP"
	}
	return err.Error()
}

func createFiles(t *testing.T, sh *share.Client, names ...string) {
	t.Helper()
	for _, n := range names {
		if _, err := sh.NewRootDirectoryClient().NewFileClient(n).Create(ctx, 1024, nil); err != nil {
			t.Fatal(err)
		}
	}
}

// TestShareModeMatrix: impacket holds one open per share mode; every REST
// operation of the table gets the documented answer on each.
func TestShareModeMatrix(t *testing.T) {
	in, sh := startWithShare(t)
	var specs []string
	for _, row := range shareModeMatrix {
		createFiles(t, sh, row.mode+".txt")
		specs = append(specs, row.mode+".txt:10003:"+row.share) // READ_DATA|WRITE_DATA|DELETE
	}
	if errs, _ := hold(t, in, specs...); len(errs) > 0 {
		t.Fatalf("opens failed: %v", errs)
	}
	cells := 0
	for _, row := range shareModeMatrix {
		fc := sh.NewRootDirectoryClient().NewFileClient(row.mode + ".txt")
		for i, op := range restOps {
			cells++
			if got := outcome(op.run(fc)); got != row.want[i] {
				t.Errorf("share %s, %s: %s, want %s", row.mode, op.name, got, row.want[i])
			}
		}
	}
	t.Logf("%d cells", cells)
}

// TestDeletePending: a file an SMB client marked delete-pending answers
// every REST operation with 409 DeletePending and is left out of List
// Files, until the handle closes and the file is gone; a delete-on-close
// open alone does not make it pending.
func TestDeletePending(t *testing.T) {
	in, sh := startWithShare(t)
	createFiles(t, sh, "pending.txt", "doc.txt")
	if errs, _ := hold(t, in, "doc.txt:10000:7:doc"); len(errs) > 0 {
		t.Fatalf("open failed: %v", errs)
	}
	errs, release := hold(t, in, "pending.txt:10000:7:pending")
	if len(errs) > 0 {
		t.Fatalf("open failed: %v", errs)
	}
	fc := sh.NewRootDirectoryClient().NewFileClient("pending.txt")
	for _, op := range append(restOps, struct {
		name string
		run  func(*file.Client) error
	}{"GetProps", func(f *file.Client) error { _, err := f.GetProperties(ctx, nil); return err }}) {
		if got := outcome(op.run(fc)); got != "DP" {
			t.Errorf("%s on a delete-pending file: %s, want DeletePending", op.name, got)
		}
	}
	if _, err := sh.NewRootDirectoryClient().NewFileClient("doc.txt").GetProperties(ctx, nil); err != nil {
		t.Errorf("a delete-on-close open alone makes the file pending: %v", err)
	}
	if names := listNames(t, sh); strings.Join(names, ",") != "doc.txt" {
		t.Errorf("List Files = %v, want only doc.txt", names)
	}
	release()
	if _, err := fc.GetProperties(ctx, nil); !fileerror.HasCode(err, fileerror.ResourceNotFound) {
		t.Errorf("after the last close: %v, want 404", err)
	}
}

func listNames(t *testing.T, sh *share.Client) []string {
	t.Helper()
	pager := sh.NewRootDirectoryClient().NewListFilesAndDirectoriesPager(nil)
	var names []string
	for pager.More() {
		page, err := pager.NextPage(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range page.Segment.Files {
			names = append(names, *f.Name)
		}
	}
	return names
}

// TestRESTLeaseMatrix: under a REST lease, SMB opens asking for write or
// delete fail with STATUS_SHARING_VIOLATION and reads succeed.
func TestRESTLeaseMatrix(t *testing.T) {
	in, sh := startWithShare(t)
	createFiles(t, sh, "leased.txt")
	lc, err := lease.NewFileClient(sh.NewRootDirectoryClient().NewFileClient("leased.txt"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := lc.Acquire(ctx, nil); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ access, want string }{
		{"1", ""}, {"80", ""}, {"2", "STATUS_SHARING_VIOLATION"}, {"4", "STATUS_SHARING_VIOLATION"},
		{"10000", "STATUS_SHARING_VIOLATION"}, {"3", "STATUS_SHARING_VIOLATION"},
	} {
		errs, release := hold(t, in, "leased.txt:"+tc.access+":7")
		got := strings.Join(errs, " ")
		if (tc.want == "" && got != "") || !strings.Contains(got, tc.want) {
			t.Errorf("access %s under a lease: %q, want %q", tc.access, got, tc.want)
		}
		release()
	}
}

// TestImpacketSMB1Upgrade: impacket's default logon opens with an SMB1
// NEGOTIATE; the server upgrades it to SMB2 and the session works.
func TestImpacketSMB1Upgrade(t *testing.T) {
	in, _ := startWithShare(t)
	py := "/usr/bin/python3"
	if exec.Command(py, "-c", "import impacket").Run() != nil {
		t.Skip("python3-impacket is not installed (Debian package python3-impacket)")
	}
	_, port, _ := strings.Cut(in.SMBAddr, ":")
	out, err := exec.Command(py, "testdata/smb1upgrade.py", port, auth.DevAccountKey).CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if got := strings.TrimSpace(string(out)); got != "0x300 .,..,impacket.txt from impacket" {
		t.Fatalf("impacket: %q", got)
	}
}

// TestSecurityDescriptorFromPermission: an SMB security query answers the
// permission REST stored for the file (impacket reads it over 3.0).
func TestSecurityDescriptorFromPermission(t *testing.T) {
	in, sh := startWithShare(t)
	py := "/usr/bin/python3"
	if exec.Command(py, "-c", "import impacket").Run() != nil {
		t.Skip("python3-impacket is not installed (Debian package python3-impacket)")
	}
	const perm = "O:BAG:SYD:(A;;FA;;;BA)(A;;0x1200a9;;;BU)"
	_, err := sh.NewRootDirectoryClient().NewFileClient("sd.txt").Create(ctx, 0,
		&file.CreateOptions{Permissions: &file.Permissions{Permission: to.Ptr(perm)}})
	if err != nil {
		t.Fatal(err)
	}
	_, port, _ := strings.Cut(in.SMBAddr, ":")
	out, err := exec.Command(py, "testdata/querysd.py", port, auth.DevAccountKey, "sd.txt").CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	raw, err := hex.DecodeString(strings.TrimSpace(string(out)))
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	d, err := sddl.FromBinary(raw)
	if err != nil {
		t.Fatal(err)
	}
	// Created with a permission, the file holds it with the root's
	// inheritable ACEs added (automatic inheritance, as REST stores it).
	const want = "O:BAG:SYD:AI(A;;FA;;;BA)(A;;0x1200a9;;;BU)(A;ID;FA;;;SY)(A;ID;FA;;;BA)(A;ID;0x1301bf;;;AU)(A;ID;0x1200a9;;;BU)"
	if got := d.String(); got != want {
		t.Fatalf("SMB security descriptor %s, want %s", got, want)
	}
}
