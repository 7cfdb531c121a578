package dfs_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azdatalake/file"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azdatalake/sas"
)

// sasFile is a client of f that signs with a service SAS of perms.
func (e *env) sasFile(f *file.Client, perms sas.FilePermissions) *file.Client {
	e.t.Helper()
	u, err := f.GetSASURL(perms, time.Now().Add(time.Hour), nil)
	if err != nil {
		e.t.Fatal(err)
	}
	c, err := file.NewClientWithNoCredential(u, &file.ClientOptions{ClientOptions: options()})
	if err != nil {
		e.t.Fatal(err)
	}
	return c
}

// The access operations take the service SAS letters of "Create a
// service SAS": p to set bits and ACLs, o besides to change the owners,
// e to read them; a flush needs w.
func TestAccessControlSASPermissions(t *testing.T) {
	e := start(t)
	e.filesystem("lake")
	f := e.newFile("lake", "f")

	withP := e.sasFile(f, sas.FilePermissions{Permissions: true})
	if _, err := withP.SetAccessControl(e.ctx, &file.SetAccessControlOptions{Permissions: to.Ptr("0700")}); err != nil {
		t.Fatal(err)
	}
	_, err := withP.SetAccessControl(e.ctx, &file.SetAccessControlOptions{Owner: to.Ptr(someone)})
	wantCode(t, err, http.StatusForbidden, "AuthorizationPermissionMismatch")
	_, err = withP.FlushData(e.ctx, 0, nil)
	wantCode(t, err, http.StatusForbidden, "AuthorizationPermissionMismatch")

	withO := e.sasFile(f, sas.FilePermissions{Ownership: true})
	if _, err := withO.SetAccessControl(e.ctx, &file.SetAccessControlOptions{Owner: to.Ptr(someone)}); err != nil {
		t.Fatal(err)
	}
	_, err = withO.SetAccessControl(e.ctx, &file.SetAccessControlOptions{Owner: to.Ptr(someone), Permissions: to.Ptr("0750")})
	wantCode(t, err, http.StatusForbidden, "AuthorizationPermissionMismatch")

	got, err := e.sasFile(f, sas.FilePermissions{Execute: true}).GetAccessControl(e.ctx, nil)
	if err != nil || *got.Owner != someone || *got.Permissions != "rwx------" {
		t.Fatalf("read with e: %v (%v)", got.Owner, err)
	}
	// r reads them too (azdatalake's live TestFileGetAccessControlWithSAS
	// reads with racwd); w alone does not.
	if _, err := e.sasFile(f, sas.FilePermissions{Read: true}).GetAccessControl(e.ctx, nil); err != nil {
		t.Fatalf("read with r: %v", err)
	}
	_, err = e.sasFile(f, sas.FilePermissions{Write: true}).GetAccessControl(e.ctx, nil)
	wantCode(t, err, http.StatusForbidden, "AuthorizationPermissionMismatch")
}
