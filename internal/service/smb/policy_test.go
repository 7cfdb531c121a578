package smb_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lazuli-storage/lazuli/internal/check/lazulitest"
	"github.com/lazuli-storage/lazuli/internal/rule/auth"
	"github.com/lazuli-storage/lazuli/internal/run/config"
)

// startWithPolicy is startWithShare with the SMB endpoint's policy set.
func startWithPolicy(t *testing.T, signing, encryption bool) *lazulitest.Instance {
	t.Helper()
	in, _ := startConfigured(t, func(c *config.Config) {
		c.SMBRequireSigning, c.SMBRequireEncryption = signing, encryption
	})
	return in
}

// TestServerRequiresSigning: with --smbRequireSigning the NEGOTIATE
// response says signing is required, and a session whose client did not
// ask for signing is refused unsigned requests all the same.
func TestServerRequiresSigning(t *testing.T) {
	in := startWithPolicy(t, true, false)
	w := dialWire(t, in.SMBAddr)
	st, msg := w.do(opNegotiate, negotiateBody([]uint16{0x0210}))
	if st != stOK || le.Uint16(msg[64+2:])&2 == 0 {
		t.Fatalf("negotiate: %#x, SecurityMode %#x, want SIGNING_REQUIRED", st, le.Uint16(msg[64+2:]))
	}
	w.dialect = 0x0210
	if st, _ := w.logon(0); st != stOK {
		t.Fatalf("logon: %#x", st)
	}
	p := w.req(opTreeConnect, treeConnectBody("IPC$"))
	p.signed = false
	if st, _ := w.call(p); st[0] != stAccessDenied {
		t.Fatalf("unsigned TREE_CONNECT: %#x, want ACCESS_DENIED", st[0])
	}
	if st := w.treeConnect("IPC$"); st != stOK {
		t.Fatalf("signed TREE_CONNECT: %#x", st)
	}
}

// TestServerRequiresEncryption: with --smbRequireEncryption a client that
// negotiated no cipher is refused at logon; a 3.1.1 session is marked
// ENCRYPT_DATA and its plain-text requests are refused, while go-smb2,
// which then encrypts, works.
func TestServerRequiresEncryption(t *testing.T) {
	in := startWithPolicy(t, false, true)
	w := dialWire(t, in.SMBAddr)
	w.negotiate(0x0300)
	if st, _ := w.logon(0); st != stAccessDenied {
		t.Fatalf("logon over 3.0 (no cipher): %#x, want ACCESS_DENIED", st)
	}
	w = dialWire(t, in.SMBAddr)
	w.negotiate(0x0311, preauthContext(1), gcmContext())
	st, msg := w.logon(0)
	if st != stOK || le.Uint16(msg[64+2:])&0x4 == 0 {
		t.Fatalf("logon over 3.1.1 with AES-128-GCM: %#x, SessionFlags %#x, want ENCRYPT_DATA", st, le.Uint16(msg[64+2:]))
	}
	w.sessionKey = nil // the 3.1.1 signing key needs the pre-auth hash; plain text is refused either way
	if st := w.treeConnect("IPC$"); st != stAccessDenied {
		t.Fatalf("plain-text TREE_CONNECT: %#x, want ACCESS_DENIED", st)
	}

	fs := mustDial(t, in, 0x0311)
	if err := fs.WriteFile("sealed.txt", []byte("sealed"), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := fs.ReadFile("sealed.txt")
	if err != nil || !bytes.Equal(got, []byte("sealed")) {
		t.Fatalf("read back %q, %v", got, err)
	}
}

// TestSmbclientUnderPolicy: smbclient signs every request when the server
// requires signing, and encrypts every request over 3.1.1 when the server
// marks its session ENCRYPT_DATA, without being asked on its command line.
func TestSmbclientUnderPolicy(t *testing.T) {
	cases := []struct {
		name                string
		signing, encryption bool
		proto               string
	}{
		{"signing-SMB2_10", true, false, "SMB2_10"},
		{"signing-SMB3_00", true, false, "SMB3_00"},
		{"signing-SMB3_11", true, false, "SMB3_11"},
		{"encryption-SMB3_11", false, true, "SMB3_11"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			in := startWithPolicy(t, c.signing, c.encryption)
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "up.txt"), []byte("under policy"), 0o644); err != nil {
				t.Fatal(err)
			}
			out, err := smbclient(t, in, c.proto, auth.DevAccountKey, "lcd "+dir+"; put up.txt p.txt; get p.txt down.txt; del p.txt")
			if err != nil || strings.Contains(out, "NT_STATUS_") {
				t.Fatalf("smbclient %s: %v\n%s", c.proto, err, out)
			}
			if got, err := os.ReadFile(filepath.Join(dir, "down.txt")); err != nil || string(got) != "under policy" {
				t.Fatalf("read back %q, %v", got, err)
			}
		})
	}
	in := startWithPolicy(t, false, true)
	out, err := smbclient(t, in, "SMB3_00", auth.DevAccountKey, "ls")
	if err == nil || !strings.Contains(out, "NT_STATUS_ACCESS_DENIED") {
		t.Fatalf("smbclient over 3.0 (no cipher) when encryption is required: %v\n%s", err, out)
	}
}
