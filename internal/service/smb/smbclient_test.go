package smb_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lazuli-storage/lazuli/internal/check/lazulitest"
	"github.com/lazuli-storage/lazuli/internal/rule/auth"
)

// smbclient runs Debian's smbclient against the server with max dialect
// proto, the commands cmds and any extra options; it returns the combined
// output.
func smbclient(t *testing.T, in *lazulitest.Instance, proto, password, cmds string, extra ...string) (string, error) {
	t.Helper()
	bin, err := exec.LookPath("smbclient")
	if err != nil {
		t.Skip("smbclient is not installed (Debian package smbclient)")
	}
	host, port, _ := strings.Cut(in.SMBAddr, ":")
	args := []string{"//" + host + "/share", "-p", port, "-U", auth.DevAccountName + "%" + password, "-W", "WORKGROUP",
		"--option=client min protocol=SMB2_02", "-m", proto, "-c", cmds}
	args = append(args, extra...)
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir())
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// TestSmbclient drives put, get, ls, rename, mkdir, rmdir, allinfo and
// del with each dialect smbclient offers, and over 3.1.1 encrypted
// (AES-128-GCM; smbclient fails rather than fall back to plain text).
func TestSmbclient(t *testing.T) {
	cases := []struct {
		name, proto string
		extra       []string
	}{
		{"SMB2_02", "SMB2_02", nil}, {"SMB2_10", "SMB2_10", nil}, {"SMB3_00", "SMB3_00", nil},
		{"SMB3_02", "SMB3_02", nil}, {"SMB3_11", "SMB3_11", nil},
		{"SMB3_11-encrypted", "SMB3_11", []string{"--client-protection=encrypt"}},
	}
	for _, c := range cases {
		proto := c.proto
		t.Run(c.name, func(t *testing.T) {
			in, _ := startWithShare(t)
			dir := t.TempDir()
			src := filepath.Join(dir, "up.txt")
			content := strings.Repeat("smbclient and lazuli\n", 5000)
			if err := os.WriteFile(src, []byte(content), 0o644); err != nil {
				t.Fatal(err)
			}
			cmds := "lcd " + dir + "; mkdir d1; put up.txt d1\\a.txt; rename d1\\a.txt d1\\b.txt; ls d1\\*; " +
				"get d1\\b.txt down.txt; allinfo d1\\b.txt; del d1\\b.txt; rmdir d1; ls"
			out, err := smbclient(t, in, proto, auth.DevAccountKey, cmds, c.extra...)
			if err != nil || strings.Contains(out, "NT_STATUS_") {
				t.Fatalf("smbclient %s: %v\n%s", proto, err, out)
			}
			got, err := os.ReadFile(filepath.Join(dir, "down.txt"))
			if err != nil || string(got) != content {
				t.Fatalf("get gave %d bytes (%v), want %d\n%s", len(got), err, len(content), out)
			}
			for _, want := range []string{"b.txt", "create_time:", "stream: [::$DATA], " + itoa(len(content)) + " bytes"} {
				if !strings.Contains(out, want) {
					t.Errorf("output lacks %q:\n%s", want, out)
				}
			}
		})
	}
}

func TestSmbclientWrongKey(t *testing.T) {
	in, _ := startWithShare(t)
	out, err := smbclient(t, in, "SMB3_11", "d3Jvbmc=", "ls")
	if err == nil || !strings.Contains(out, "NT_STATUS_LOGON_FAILURE") {
		t.Fatalf("wrong key: %v\n%s", err, out)
	}
}

func itoa(n int) string {
	var b []byte
	for {
		b = append([]byte{byte('0' + n%10)}, b...)
		if n /= 10; n == 0 {
			return string(b)
		}
	}
}

// TestSmbclientKeepsReadOnlyFile: `setmode f +r` then `rm f` is refused
// with NT_STATUS_CANNOT_DELETE, as Windows and Azure Files answer (smbclient
// deletes with a CREATE carrying FILE_DELETE_ON_CLOSE; MS-FSA 2.1.5.1.2.1),
// and the file is still there for REST.
func TestSmbclientKeepsReadOnlyFile(t *testing.T) {
	in, sh := startWithShare(t)
	fc := sh.NewRootDirectoryClient().NewFileClient("f")
	if _, err := fc.Create(ctx, 4, nil); err != nil {
		t.Fatal(err)
	}
	out, _ := smbclient(t, in, "SMB3_11", auth.DevAccountKey, "setmode f +r; rm f")
	if !strings.Contains(out, "NT_STATUS_CANNOT_DELETE") {
		t.Fatalf("rm of a read-only file:\n%s", out)
	}
	if _, err := fc.GetProperties(ctx, nil); err != nil {
		t.Fatalf("the read-only file is gone: %v", err)
	}
}

// TestDeleteOnCloseOfNewReadOnlyFile: a CREATE making a read-only file
// (FileAttributes READONLY) with FILE_DELETE_ON_CLOSE is refused with
// STATUS_CANNOT_DELETE and creates nothing (MS-FSA 2.1.5.1.1).
func TestDeleteOnCloseOfNewReadOnlyFile(t *testing.T) {
	in, sh := startWithShare(t)
	c := dialRaw(t, in.SMBAddr)
	req := openRequest("ro.txt", 0x10000|0x80, 7, 2, 0x1000|0x40) // DELETE, FILE_CREATE, DELETE_ON_CLOSE
	le.PutUint32(req[28:], 0x1)                                   // FILE_ATTRIBUTE_READONLY
	if st, _ := c.send(request{cmd: 5, body: req}); st[0] != 0xC0000121 {
		t.Fatalf("CREATE: %#x, want STATUS_CANNOT_DELETE", st[0])
	}
	if names := listNames(t, sh); len(names) != 0 {
		t.Fatalf("files after the refused CREATE: %q", names)
	}
}
