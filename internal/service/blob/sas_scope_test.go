package blob_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/appendblob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blockblob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/container"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/lease"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/pageblob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/sas"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/service"

	"github.com/lazuli-storage/lazuli/internal/check/lazulitest"
)

// accountSASQuery signs an account SAS for the Blob service.
func accountSASQuery(t *testing.T, e *env, perms sas.AccountPermissions, types sas.AccountResourceTypes) string {
	t.Helper()
	cred, _ := service.NewSharedKeyCredential(lazulitest.Account, lazulitest.Key)
	q, err := sas.AccountSignatureValues{Protocol: sas.ProtocolHTTPSandHTTP, ExpiryTime: e.in.Clock.Now().Add(time.Hour),
		Permissions: perms.String(), ResourceTypes: types.String()}.SignWithSharedKey(cred)
	if err != nil {
		t.Fatal(err)
	}
	return q.Encode()
}

// TestCreateOnlySASCannotOverwrite: the create permission (c) writes new
// blobs only; replacing an existing one needs write (w), as the "Create a
// service SAS" and "Create an account SAS" pages say, and is refused with
// 403 UnauthorizedBlobOverwrite (the SDK's *WithUDSCreatePermissionOverwrite-
// Fails tests). Before, every one of these writes replaced the blob with 201.
func TestCreateOnlySASCannotOverwrite(t *testing.T) {
	e := start(t)
	c := e.container("conly")
	e.upload(c, "existing", []byte("precious"))
	createOnly := sasURL(t, e, sas.BlobSignatureValues{ContainerName: "conly", Permissions: (&sas.ContainerPermissions{Create: true}).String()})
	base, query, _ := strings.Cut(createOnly, "?")
	at := func(name string) string { return base + "/" + name + "?" + query }

	fresh := anonBlob(t, at("fresh"))
	if _, err := fresh.Upload(e.ctx, nopCloser([]byte("new")), nil); err != nil {
		t.Fatalf("c creates a new blob: %v", err)
	}
	existing := anonBlob(t, at("existing"))
	_, err := existing.Upload(e.ctx, nopCloser([]byte("overwritten")), nil)
	wantCode(t, err, http.StatusForbidden, "UnauthorizedBlobOverwrite")
	// Staging a block for an existing blob prepares its overwrite: refused
	// too (the SDK's TestStageBlockWithUDSCreatePermissionOverwriteFails);
	// for a new blob it is allowed.
	_, err = existing.StageBlock(e.ctx, "YmxvY2sx", nopCloser([]byte("x")), nil)
	wantCode(t, err, http.StatusForbidden, "UnauthorizedBlobOverwrite")
	if _, err := anonBlob(t, at("staged")).StageBlock(e.ctx, "YmxvY2sx", nopCloser([]byte("x")), nil); err != nil {
		t.Fatalf("c stages a block of a new blob: %v", err)
	}
	_, err = existing.CommitBlockList(e.ctx, []string{"YmxvY2sx"}, nil)
	wantCode(t, err, http.StatusForbidden, "UnauthorizedBlobOverwrite")
	page, _ := pageblob.NewClientWithNoCredential(at("existing"), nil)
	_, err = page.Create(e.ctx, 512, nil)
	wantCode(t, err, http.StatusForbidden, "UnauthorizedBlobOverwrite")
	appendClient, _ := appendblob.NewClientWithNoCredential(at("existing"), nil)
	_, err = appendClient.Create(e.ctx, nil)
	wantCode(t, err, http.StatusForbidden, "UnauthorizedBlobOverwrite")

	// A copy onto an existing blob with an account SAS holding c (and r for
	// the source) but not w.
	e.upload(c, "source", []byte("source"))
	acct := accountSASQuery(t, e, sas.AccountPermissions{Read: true, Create: true}, sas.AccountResourceTypes{Object: true})
	dst, _ := blockblob.NewClientWithNoCredential(e.in.BlobURL+"conly/existing?"+acct, nil)
	src := e.in.BlobURL + "conly/source?" + acct
	_, err = dst.StartCopyFromURL(e.ctx, src, nil)
	wantCode(t, err, http.StatusForbidden, "UnauthorizedBlobOverwrite")
	_, err = dst.CopyFromURL(e.ctx, src, nil)
	wantCode(t, err, http.StatusForbidden, "UnauthorizedBlobOverwrite")
	if got := e.download(c.NewBlockBlobClient("existing")); string(got) != "precious" {
		t.Fatalf("the existing blob now reads %q", got)
	}
	// With w the same overwrite is allowed.
	writer := anonBlob(t, sasURL(t, e, sas.BlobSignatureValues{ContainerName: "conly", BlobName: "existing",
		Permissions: (&sas.BlobPermissions{Write: true}).String()}))
	if _, err := writer.Upload(e.ctx, nopCloser([]byte("replaced")), nil); err != nil {
		t.Fatalf("w overwrites: %v", err)
	}
}

// TestDeleteOnlySASBreaksLeasesOnly: the delete permission lets a SAS break
// a lease, nothing more; acquiring, renewing, changing and releasing need
// write. Before, a d-only SAS acquired an infinite lease that locked the
// owner out.
func TestDeleteOnlySASBreaksLeasesOnly(t *testing.T) {
	e := start(t)
	c := e.container("donly")
	b := e.upload(c, "leased", []byte("x"))
	deleteOnly := anonBlob(t, sasURL(t, e, sas.BlobSignatureValues{ContainerName: "donly", BlobName: "leased",
		Permissions: (&sas.BlobPermissions{Delete: true}).String()}))
	lc, err := lease.NewBlobClient(deleteOnly, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, err = lc.AcquireLease(e.ctx, -1, nil)
	wantCode(t, err, http.StatusForbidden, "AuthorizationPermissionMismatch")
	owner, _ := lease.NewBlobClient(b, nil)
	if _, err := owner.AcquireLease(e.ctx, -1, nil); err != nil {
		t.Fatal(err)
	}
	for name, op := range map[string]func() error{
		"renew":   func() error { _, err := lc.RenewLease(e.ctx, nil); return err },
		"release": func() error { _, err := lc.ReleaseLease(e.ctx, nil); return err },
		"change": func() error {
			_, err := lc.ChangeLease(e.ctx, "11111111-1111-1111-1111-111111111111", nil)
			return err
		},
	} {
		if err := op(); err == nil || !strings.Contains(err.Error(), "AuthorizationPermissionMismatch") {
			t.Errorf("%s with d: %v, want 403 AuthorizationPermissionMismatch", name, err)
		}
	}
	if _, err := lc.BreakLease(e.ctx, &lease.BlobBreakOptions{BreakPeriod: to.Ptr(int32(0))}); err != nil {
		t.Fatalf("break with d: %v", err)
	}
	// The container: an account SAS with d breaks, cannot acquire.
	acct := accountSASQuery(t, e, sas.AccountPermissions{Delete: true}, sas.AccountResourceTypes{Container: true})
	cc, _ := container.NewClientWithNoCredential(e.in.BlobURL+"donly?"+acct, nil)
	clc, _ := lease.NewContainerClient(cc, nil)
	_, err = clc.AcquireLease(e.ctx, -1, nil)
	wantCode(t, err, http.StatusForbidden, "AuthorizationPermissionMismatch")
	ownerContainer, _ := lease.NewContainerClient(c, nil)
	if _, err := ownerContainer.AcquireLease(e.ctx, -1, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := clc.BreakLease(e.ctx, &lease.ContainerBreakOptions{BreakPeriod: to.Ptr(int32(0))}); err != nil {
		t.Fatalf("container break with d: %v", err)
	}
}

// TestContainerACLNeedsTheAccountKey: Get and Set Container ACL are the
// account owner's: no SAS may call them.
func TestContainerACLNeedsTheAccountKey(t *testing.T) {
	e := start(t)
	e.container("aclkey")
	acct := accountSASQuery(t, e, sas.AccountPermissions{Read: true, Write: true}, sas.AccountResourceTypes{Container: true})
	cc, _ := container.NewClientWithNoCredential(e.in.BlobURL+"aclkey?"+acct, nil)
	_, err := cc.GetAccessPolicy(e.ctx, nil)
	wantCode(t, err, http.StatusForbidden, "AuthorizationFailure")
	_, err = cc.SetAccessPolicy(e.ctx, nil)
	wantCode(t, err, http.StatusForbidden, "AuthorizationFailure")
}

// TestDuplicateSignature: a query string with two sig= parameters is not a
// signature the service accepts.
func TestDuplicateSignature(t *testing.T) {
	e := start(t)
	c := e.container("dupsig")
	e.upload(c, "doc", []byte("x"))
	u := sasURL(t, e, sas.BlobSignatureValues{ContainerName: "dupsig", BlobName: "doc", Permissions: (&sas.BlobPermissions{Read: true}).String()})
	resp, err := http.Get(u + "&sig=AAAA")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden || resp.Header.Get("X-Ms-Error-Code") != "AuthenticationFailed" {
		t.Fatalf("two sig parameters: %d %s", resp.StatusCode, resp.Header.Get("X-Ms-Error-Code"))
	}
}

// TestAnonymousUnimplementedOperations: an operation Lazuli does not
// implement still authenticates its caller first.
func TestAnonymousUnimplementedOperations(t *testing.T) {
	e := start(t)
	e.container("anon501")
	resp, err := http.Post(e.in.BlobURL+"anon501?restype=container&comp=undelete", "", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode == http.StatusNotImplemented {
		t.Fatalf("anonymous Restore Container answered 501 before authentication")
	}
}
