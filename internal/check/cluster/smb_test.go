package cluster_test

import (
	"bufio"
	"bytes"
	"context"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/streaming"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azfile/fileerror"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azfile/share"

	"github.com/lazuli-storage/lazuli/internal/check/lazulitest"
	"github.com/lazuli-storage/lazuli/internal/engine/store/postgres/pgtest"
	"github.com/lazuli-storage/lazuli/internal/rule/auth"
)

// holdSMBOpen opens name in share "share" at addr with python3-impacket
// (../../service/smb/testdata/hold.py) with READ_DATA|WRITE_DATA access and share
// mode None, and keeps it open until the test ends.
func holdSMBOpen(t *testing.T, addr, name string) {
	t.Helper()
	py := "/usr/bin/python3"
	if exec.Command(py, "-c", "import impacket").Run() != nil {
		t.Skip("python3-impacket is not installed (Debian package python3-impacket)")
	}
	_, port, _ := strings.Cut(addr, ":")
	cmd := exec.Command(py, "../../service/smb/testdata/hold.py", port, auth.DevAccountKey, name+":3:0")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdin, err := cmd.StdinPipe()
	must(t, err)
	stdout, err := cmd.StdoutPipe()
	must(t, err)
	must(t, cmd.Start())
	t.Cleanup(func() {
		stdin.Close()
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	sc := bufio.NewScanner(stdout)
	if !sc.Scan() || sc.Text() != "ready" {
		t.Fatalf("hold.py: %q %v\n%s", sc.Text(), sc.Err(), stderr.String())
	}
}

// An SMB open is recorded in its file's record with the node holding it,
// so REST on another node honours its share mode; when that node dies
// holding it, the open blocks the file only until the node's liveness
// record expires (--smbOpenExpiry, 30 s by default), never forever.
// Node A is a separate process killed with SIGKILL, so nothing is
// released; node B's clock is a fake one, advanced instead of sleeping.
func TestSMBOpensOfADeadNodeExpire(t *testing.T) {
	ctx := context.Background()
	db := lazulitest.PostgresDatabase(t, pgtest.URL(t))
	b := lazulitest.StartNodes(t, 1, lazulitest.Options{Store: db, Services: []string{"file"}})[0]
	a := startChildNode(t, db, b.Clock.Now(), "file")
	svc, err := share.NewClientFromConnectionString(b.ConnectionString, "share",
		&share.ClientOptions{ClientOptions: azcore.ClientOptions{Retry: policy.RetryOptions{MaxRetries: -1}}})
	must(t, err)
	_, err = svc.Create(ctx, nil)
	must(t, err)
	fc := svc.NewRootDirectoryClient().NewFileClient("held.txt")
	_, err = fc.Create(ctx, 512, nil)
	must(t, err)
	holdSMBOpen(t, a.smbAddr, "held.txt")

	get := func() error {
		r, err := fc.DownloadStream(ctx, nil)
		if err == nil {
			r.Body.Close()
		}
		return err
	}
	wantHeld := func(when string) {
		t.Helper()
		if err := get(); !fileerror.HasCode(err, fileerror.SharingViolation) {
			t.Fatalf("%s: Get File on node B: %v, want 409 SharingViolation", when, err)
		}
	}
	wantHeld("node A alive")
	b.Fake.Advance(20 * time.Second)
	wantHeld("20 s later, node A alive")
	a.kill(t)
	wantHeld("node A killed, its liveness not yet expired")
	handles, err := fc.ListHandles(ctx, nil)
	must(t, err)
	if len(handles.Handles) != 1 {
		t.Fatalf("List Handles before the expiry: %d handles, want 1", len(handles.Handles))
	}

	b.Fake.Advance(11 * time.Second) // past node A's last renewal plus 30 s
	if err := get(); err != nil {
		t.Fatalf("after node A's liveness expired: Get File on node B: %v", err)
	}
	handles, err = fc.ListHandles(ctx, nil)
	must(t, err)
	if len(handles.Handles) != 0 {
		t.Fatalf("List Handles after the expiry: %d handles, want 0", len(handles.Handles))
	}
	_, err = fc.UploadRange(ctx, 0, streaming.NopCloser(bytes.NewReader(make([]byte, 512))), nil)
	must(t, err)
	_, err = fc.Delete(ctx, nil)
	must(t, err)
}
