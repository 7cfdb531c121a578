package dfs_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/storage/azdatalake/directory"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azdatalake/sas"
)

// sasDir is the client of directory path in filesystem fs with a
// filesystem SAS granting perms.
func (e *env) sasDir(fs, path string, perms sas.FileSystemPermissions) *directory.Client {
	e.t.Helper()
	q, err := sas.DatalakeSignatureValues{Protocol: sas.ProtocolHTTPSandHTTP, ExpiryTime: time.Now().Add(time.Hour),
		Permissions: perms.String(), FileSystemName: fs}.SignWithSharedKey(e.cred())
	if err != nil {
		e.t.Fatal(err)
	}
	d, err := directory.NewClientWithNoCredential(e.url(fs+"/"+path)+"?"+q.Encode(), &directory.ClientOptions{ClientOptions: options()})
	if err != nil {
		e.t.Fatal(err)
	}
	return d
}

// TestRenameNeedsMove: a filesystem SAS that creates, writes and deletes
// but does not move (m) renames nothing; with m it does.
func TestRenameNeedsMove(t *testing.T) {
	e := start(t)
	e.filesystem("lake")
	e.write("lake", "src/f", "x")
	narrow := sas.FileSystemPermissions{Read: true, Create: true, Write: true, Delete: true, List: true}
	_, err := e.sasDir("lake", "src", narrow).Rename(e.ctx, "dst", nil)
	wantCode(t, err, http.StatusForbidden, "AuthorizationPermissionMismatch")
	if _, err := e.sasDir("lake", "dir", narrow).Create(e.ctx, nil); err != nil {
		t.Fatalf("create with c: %v", err)
	}
	withMove := narrow
	withMove.Move = true
	if _, err := e.sasDir("lake", "src", withMove).Rename(e.ctx, "dst", nil); err != nil {
		t.Fatalf("rename with m: %v", err)
	}
	if got := e.status("lake/dst/f"); got != "file" {
		t.Fatalf("moved file: %s", got)
	}
}
