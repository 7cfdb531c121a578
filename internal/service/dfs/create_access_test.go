package dfs_test

import (
	"net/http"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azdatalake/directory"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azdatalake/file"
)

// Path - Create gives a path its bits less the umask, or, under a
// directory with a default ACL, that ACL; bad access headers create
// nothing.
func TestCreateGivesAccess(t *testing.T) {
	e := start(t)
	e.filesystem("lake")
	d := e.dir("lake", "d")
	if _, err := d.Create(e.ctx, &directory.CreateOptions{Permissions: to.Ptr("0777"), Umask: to.Ptr("0057")}); err != nil {
		t.Fatal(err)
	}
	got, err := d.GetAccessControl(e.ctx, nil)
	if err != nil || *got.Permissions != "rwx-w----" || *got.Owner != "$superuser" {
		t.Fatalf("directory made with 0777 less 0057: %v %v (%v)", got.Permissions, got.Owner, err)
	}
	template := "user::rwx,group::r-x,other::---,default:user::rwx,default:user:" + someone + ":rw-,default:group::r--,default:other::---"
	if _, err := d.SetAccessControl(e.ctx, &directory.SetAccessControlOptions{ACL: &template}); err != nil {
		t.Fatal(err)
	}
	child := e.file("lake", "d/f")
	if _, err := child.Create(e.ctx, &file.CreateOptions{Umask: to.Ptr("0777")}); err != nil {
		t.Fatal(err)
	}
	got, err = child.GetAccessControl(e.ctx, nil)
	if err != nil || *got.ACL != "user::rwx,user:"+someone+":rw-,group::r--,mask::rw-,other::---" || *got.Permissions != "rwxrw----+" {
		t.Fatalf("file under a default ACL: %v %v (%v)", got.ACL, got.Permissions, err)
	}

	bad := e.file("lake", "d/bad")
	_, err = bad.Create(e.ctx, &file.CreateOptions{Umask: to.Ptr("99")})
	wantCode(t, err, http.StatusBadRequest, "InvalidHeaderValue")
	_, err = bad.Create(e.ctx, &file.CreateOptions{Permissions: to.Ptr("0700"), ACL: to.Ptr("user::rwx,group::---,other::---")})
	wantCode(t, err, http.StatusBadRequest, "InvalidHeaderValue")
	_, err = bad.GetProperties(e.ctx, nil)
	wantCode(t, err, http.StatusNotFound, "")
}
