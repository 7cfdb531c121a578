package smb_test

import (
	"bytes"
	"context"
	"errors"
	"net"
	"net/http"
	"net/url"
	"os"
	"sort"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azfile/fileerror"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azfile/service"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azfile/share"
	smb2 "github.com/hirochachacha/go-smb2"

	"github.com/lazuli-storage/lazuli/internal/check/lazulitest"
	"github.com/lazuli-storage/lazuli/internal/rule/auth"
	"github.com/lazuli-storage/lazuli/internal/run/config"
)

var ctx = context.Background()

var transport = http.DefaultTransport.(*http.Transport).Clone()

// startWithShare runs a server with one share, "share", and returns it
// with a REST client of the share.
func startWithShare(t *testing.T) (*lazulitest.Instance, *share.Client) {
	t.Helper()
	return startConfigured(t, nil)
}

// startConfigured is startWithShare with configure applied to the
// server's configuration.
func startConfigured(t *testing.T, configure func(*config.Config)) (*lazulitest.Instance, *share.Client) {
	t.Helper()
	in := lazulitest.Start(t, lazulitest.Options{InMemory: true, Configure: configure})
	t.Cleanup(transport.CloseIdleConnections)
	cred, err := service.NewSharedKeyCredential(auth.DevAccountName, auth.DevAccountKey)
	if err != nil {
		t.Fatal(err)
	}
	opts := &service.ClientOptions{ClientOptions: azcore.ClientOptions{Retry: policy.RetryOptions{MaxRetries: -1},
		Transport: &http.Client{Transport: transport}}}
	svc, err := service.NewClientWithSharedKeyCredential(in.FileURL, cred, opts)
	if err != nil {
		t.Fatal(err)
	}
	sh := svc.NewShareClient("share")
	if _, err := sh.Create(ctx, nil); err != nil {
		t.Fatal(err)
	}
	return in, sh
}

// dial logs on to the server's SMB endpoint with dialect (0: any) and
// mounts "share".
func dial(t *testing.T, in *lazulitest.Instance, dialect uint16, password string) (*smb2.Share, error) {
	t.Helper()
	nc, err := net.Dial("tcp", in.SMBAddr)
	if err != nil {
		t.Fatal(err)
	}
	d := &smb2.Dialer{
		Negotiator: smb2.Negotiator{RequireMessageSigning: true, SpecifiedDialect: dialect},
		Initiator:  &smb2.NTLMInitiator{User: auth.DevAccountName, Password: password, Domain: "ANYDOMAIN"},
	}
	s, err := d.Dial(nc)
	if err != nil {
		nc.Close()
		return nil, err
	}
	t.Cleanup(func() { _ = s.Logoff() })
	return s.Mount(`\\` + in.SMBAddr + `\share`)
}

func mustDial(t *testing.T, in *lazulitest.Instance, dialect uint16) *smb2.Share {
	t.Helper()
	fs, err := dial(t, in, dialect, auth.DevAccountKey)
	if err != nil {
		t.Fatalf("dialect %#x: %v", dialect, err)
	}
	t.Cleanup(func() { _ = fs.Umount() })
	return fs
}

// TestDialects drives each dialect through write, read, list, rename,
// mkdir and remove, with signing required, and checks REST sees the file.
func TestDialects(t *testing.T) {
	for _, d := range []uint16{0x0202, 0x0210, 0x0300, 0x0302, 0x0311} {
		t.Run(map[uint16]string{0x0202: "2.0.2", 0x0210: "2.1", 0x0300: "3.0", 0x0302: "3.0.2", 0x0311: "3.1.1"}[d], func(t *testing.T) {
			in, sh := startWithShare(t)
			fs := mustDial(t, in, d)
			data := bytes.Repeat([]byte("lazuli "), 40000) // 280 000 bytes: several ranges
			if err := fs.Mkdir("dir", 0o755); err != nil {
				t.Fatal(err)
			}
			if err := fs.WriteFile(`dir\a.txt`, data, 0o644); err != nil {
				t.Fatal(err)
			}
			got, err := fs.ReadFile(`dir\a.txt`)
			if err != nil || !bytes.Equal(got, data) {
				t.Fatalf("read back %d bytes, err %v", len(got), err)
			}
			resp, err := sh.NewDirectoryClient("dir").NewFileClient("a.txt").DownloadStream(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			var rest bytes.Buffer
			_, _ = rest.ReadFrom(resp.Body)
			resp.Body.Close()
			if !bytes.Equal(rest.Bytes(), data) {
				t.Fatalf("REST reads %d bytes, want %d", rest.Len(), len(data))
			}
			if err := fs.Rename(`dir\a.txt`, `dir\b.txt`); err != nil {
				t.Fatal(err)
			}
			infos, err := fs.ReadDir("dir")
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, fi := range infos {
				names = append(names, fi.Name())
			}
			sort.Strings(names)
			if len(names) != 1 || names[0] != "b.txt" || infos[0].Size() != int64(len(data)) {
				t.Fatalf("ReadDir = %v", names)
			}
			st, err := fs.Stat(`dir\b.txt`)
			if err != nil || st.Size() != int64(len(data)) || st.IsDir() {
				t.Fatalf("Stat = %v, %v", st, err)
			}
			if err := fs.Remove(`dir\b.txt`); err != nil {
				t.Fatal(err)
			}
			if _, err := fs.Stat(`dir\b.txt`); !os.IsNotExist(err) {
				t.Fatalf("Stat after Remove: %v", err)
			}
			if err := fs.Remove("dir"); err != nil {
				t.Fatal(err)
			}
		})
	}
}

func TestWrongKeyIsLogonFailure(t *testing.T) {
	in, _ := startWithShare(t)
	_, err := dial(t, in, 0, "bm90IHRoZSBrZXk=")
	var re *smb2.ResponseError
	if !errors.As(err, &re) || re.Code != 0xC000006D {
		t.Fatalf("err = %v, want STATUS_LOGON_FAILURE", err)
	}
}

// TestSharingViolation: one session holds a file open for read and write;
// another session's Remove is refused, and so is REST Delete File.
func TestSharingViolation(t *testing.T) {
	in, sh := startWithShare(t)
	a, b := mustDial(t, in, 0), mustDial(t, in, 0x0210)
	f, err := a.OpenFile("held.txt", os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write([]byte("held")); err != nil {
		t.Fatal(err)
	}
	err = b.Remove("held.txt")
	var re *smb2.ResponseError
	if !errors.As(err, &re) || re.Code != 0xC0000043 {
		t.Fatalf("Remove while held: %v, want STATUS_SHARING_VIOLATION", err)
	}
	_, err = sh.NewRootDirectoryClient().NewFileClient("held.txt").Delete(ctx, nil)
	if !fileerror.HasCode(err, fileerror.SharingViolation) {
		t.Fatalf("REST Delete File while held: %v, want 409 SharingViolation", err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if err := b.Remove("held.txt"); err != nil {
		t.Fatalf("Remove after close: %v", err)
	}
}

// TestDroppedConnectionReleasesOpens: opens go with their connection.
func TestDroppedConnectionReleasesOpens(t *testing.T) {
	in, sh := startWithShare(t)
	nc, err := net.Dial("tcp", in.SMBAddr)
	if err != nil {
		t.Fatal(err)
	}
	d := &smb2.Dialer{Initiator: &smb2.NTLMInitiator{User: auth.DevAccountName, Password: auth.DevAccountKey}}
	s, err := d.Dial(nc)
	if err != nil {
		t.Fatal(err)
	}
	fs, err := s.Mount("share")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := fs.Create("gone.txt"); err != nil {
		t.Fatal(err)
	}
	fc := sh.NewRootDirectoryClient().NewFileClient("gone.txt")
	if _, err := fc.Delete(ctx, nil); !fileerror.HasCode(err, fileerror.SharingViolation) {
		t.Fatalf("Delete while open: %v", err)
	}
	nc.Close()
	for i := 0; ; i++ { // the server notices the close asynchronously
		_, err := fc.Delete(ctx, nil)
		if err == nil {
			break
		}
		if i == 200 || !fileerror.HasCode(err, fileerror.SharingViolation) {
			t.Fatalf("Delete after drop: %v", err)
		}
		waitABit()
	}
}

// TestAzuriteAccounts: every account of AZURITE_ACCOUNTS logs on with its
// own name and either of its keys, and sees its own shares only.
func TestAzuriteAccounts(t *testing.T) {
	const name, key1, key2 = "acct2", "a2V5LW9uZS1mb3ItYWNjdDI=", "a2V5LXR3by1mb3ItYWNjdDI="
	accts, err := auth.ParseAccountsEnv(name + ":" + key1 + ":" + key2)
	if err != nil {
		t.Fatal(err)
	}
	in := lazulitest.Start(t, lazulitest.Options{InMemory: true, Configure: func(c *config.Config) { c.Accounts = accts }})
	t.Cleanup(transport.CloseIdleConnections)
	cred, err := service.NewSharedKeyCredential(name, key1)
	if err != nil {
		t.Fatal(err)
	}
	u, _ := url.Parse(in.FileURL)
	u.Path = "/" + name + "/"
	svc, err := service.NewClientWithSharedKeyCredential(u.String(), cred, &service.ClientOptions{
		ClientOptions: azcore.ClientOptions{Transport: &http.Client{Transport: transport}}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.NewShareClient("share").Create(ctx, nil); err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{key1, key2} {
		nc, err := net.Dial("tcp", in.SMBAddr)
		if err != nil {
			t.Fatal(err)
		}
		d := &smb2.Dialer{Initiator: &smb2.NTLMInitiator{User: "ACCT2", Password: key, Domain: "AZURE"}}
		s, err := d.Dial(nc)
		if err != nil {
			t.Fatalf("logon with a key of %s: %v", name, err)
		}
		fs, err := s.Mount("share")
		if err != nil {
			t.Fatal(err)
		}
		if err := fs.WriteFile("k.txt", []byte(key), 0o644); err != nil {
			t.Fatal(err)
		}
		_ = fs.Umount()
		_ = s.Logoff()
	}
	if _, err := dial(t, in, 0, auth.DevAccountKey); err == nil {
		t.Fatal("the development account logged on to a server that only has acct2")
	}
}
