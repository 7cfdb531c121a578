package blob_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/appendblob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blockblob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/container"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/sas"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/service"

	"github.com/lazuli-storage/lazuli/internal/check/lazulitest"
	"github.com/lazuli-storage/lazuli/internal/run/config"
)

func startWithScopes(t *testing.T, scopes ...string) *env {
	return startWith(t, lazulitest.Options{InMemory: true,
		Configure: func(c *config.Config) { c.EncryptionScopes = scopes }})
}

// A blob written under a scope, as the service's recorded answers show:
// the scope is echoed by the write, by reads (which do not need it) and
// listings; writes to its content need it (409
// BlobUsesCustomerSpecifiedEncryption), and a snapshot answers "not
// encrypted". A scope the account lacks is 409 EncryptionScopeNotAvailable.
func TestEncryptionScopeOnBlobs(t *testing.T) {
	e := startWithScopes(t, "scope1", "scope2")
	c := e.container("scoped")
	scope := blob.CPKScopeInfo{EncryptionScope: to.Ptr("scope2")}

	b := c.NewBlockBlobClient("doc")
	up, err := b.Upload(e.ctx, nopCloser([]byte("scoped")), &blockblob.UploadOptions{CPKScopeInfo: &scope})
	if err != nil || up.EncryptionScope == nil || *up.EncryptionScope != "scope2" || !*up.IsServerEncrypted {
		t.Fatalf("Put Blob with a scope: %v", err)
	}
	props, err := b.GetProperties(e.ctx, nil)
	if err != nil || props.EncryptionScope == nil || *props.EncryptionScope != "scope2" {
		t.Fatalf("properties without the scope: %v", err)
	}
	if string(e.download(b)) != "scoped" {
		t.Fatal("download without the scope")
	}
	items := e.listAll(c, container.ListBlobsInclude{}, 0)
	if p := items[0].Properties; p.EncryptionScope == nil || *p.EncryptionScope != "scope2" {
		t.Fatalf("listing shows scope %v", p.EncryptionScope)
	}

	_, err = b.SetMetadata(e.ctx, map[string]*string{"k": to.Ptr("v")}, nil)
	wantCode(t, err, http.StatusConflict, "BlobUsesCustomerSpecifiedEncryption")
	md, err := b.SetMetadata(e.ctx, map[string]*string{"k": to.Ptr("v")}, &blob.SetMetadataOptions{CPKScopeInfo: &scope})
	if err != nil || *md.EncryptionScope != "scope2" {
		t.Fatalf("set metadata with the scope: %v", err)
	}
	_, err = b.CreateSnapshot(e.ctx, nil)
	wantCode(t, err, http.StatusConflict, "BlobUsesCustomerSpecifiedEncryption")
	// Another scope is a mismatch: azure-sdk-for-js's recorded
	// "setMetadata, getProperties and createSnapshot with CPK-N"
	// (recordings/node/encryption_scope) answers Snapshot Blob under
	// another scope 409 BlobCustomerSpecifiedEncryptionMismatch.
	_, err = b.CreateSnapshot(e.ctx, &blob.CreateSnapshotOptions{CPKScopeInfo: &blob.CPKScopeInfo{EncryptionScope: to.Ptr("scope1")}})
	wantCode(t, err, http.StatusConflict, "BlobCustomerSpecifiedEncryptionMismatch")
	snap, err := b.CreateSnapshot(e.ctx, &blob.CreateSnapshotOptions{CPKScopeInfo: &scope})
	if err != nil || *snap.IsServerEncrypted {
		t.Fatalf("snapshot with the scope: %v", err)
	}

	unknown := blob.CPKScopeInfo{EncryptionScope: to.Ptr("mumbojumboscope")}
	_, err = c.NewBlockBlobClient("other").Upload(e.ctx, nopCloser([]byte("x")), &blockblob.UploadOptions{CPKScopeInfo: &unknown})
	wantCode(t, err, http.StatusConflict, "EncryptionScopeNotAvailable")

	// Append blocks need the scope the blob was created under.
	ab := c.NewAppendBlobClient("log")
	if _, err := ab.Create(e.ctx, &appendblob.CreateOptions{CPKScopeInfo: &scope}); err != nil {
		t.Fatal(err)
	}
	_, err = ab.AppendBlock(e.ctx, nopCloser([]byte("x")), nil)
	wantCode(t, err, http.StatusConflict, "BlobUsesCustomerSpecifiedEncryption")
	ap, err := ab.AppendBlock(e.ctx, nopCloser([]byte("x")), &appendblob.AppendBlockOptions{CPKScopeInfo: &scope})
	if err != nil || *ap.EncryptionScope != "scope2" {
		t.Fatalf("append with the scope: %v", err)
	}
}

// A container's default scope applies to writes that name none and is
// shown by Get Container Properties and List Containers; with the override
// denied, a write naming another scope is refused.
func TestContainerDefaultEncryptionScope(t *testing.T) {
	e := startWithScopes(t, "scope1", "scope2")
	plain := e.container("plain")
	p, err := plain.GetProperties(e.ctx, nil)
	if err != nil || *p.DefaultEncryptionScope != "$account-encryption-key" || *p.DenyEncryptionScopeOverride {
		t.Fatalf("plain container: %v", err)
	}

	strict := e.svc.NewContainerClient("strict")
	_, err = strict.Create(e.ctx, &container.CreateOptions{CPKScopeInfo: &container.CPKScopeInfo{
		DefaultEncryptionScope: to.Ptr("scope1"), PreventEncryptionScopeOverride: to.Ptr(true)}})
	if err != nil {
		t.Fatal(err)
	}
	p, err = strict.GetProperties(e.ctx, nil)
	if err != nil || *p.DefaultEncryptionScope != "scope1" || !*p.DenyEncryptionScopeOverride {
		t.Fatalf("strict container: %v", err)
	}
	pager := e.svc.NewListContainersPager(&service.ListContainersOptions{Prefix: to.Ptr("strict")})
	page, err := pager.NextPage(e.ctx)
	if err != nil {
		t.Fatal(err)
	}
	if cp := page.ContainerItems[0].Properties; *cp.DefaultEncryptionScope != "scope1" || !*cp.PreventEncryptionScopeOverride {
		t.Fatalf("listed strict container: %+v", cp)
	}

	up, err := strict.NewBlockBlobClient("a").Upload(e.ctx, nopCloser([]byte("a")), nil)
	if err != nil || up.EncryptionScope == nil || *up.EncryptionScope != "scope1" {
		t.Fatalf("write without a scope in the strict container: %v", err)
	}
	// The default scope is the blob's: a later write naming none matches.
	if _, err := strict.NewBlobClient("a").SetMetadata(e.ctx, nil, nil); err != nil {
		t.Fatalf("set metadata under the default scope: %v", err)
	}
	// Copy Blob names no scope: the copy takes the container's default.
	src := e.upload(plain, "src", []byte("copied"))
	if _, err := strict.NewBlobClient("copy").StartCopyFromURL(e.ctx, src.URL(), nil); err != nil {
		t.Fatal(err)
	}
	if cp := e.props(strict.NewBlobClient("copy")); cp.EncryptionScope == nil || *cp.EncryptionScope != "scope1" {
		t.Fatalf("copy in the strict container has scope %v", cp.EncryptionScope)
	}
	// Overriding the default is 403 RequestForbiddenByContainerEncryptionPolicy:
	// azure-sdk-for-js's recorded "create container preventEncryptionScopeOverride"
	// (recordings/node/encryption_scope/recording_create_container_preventencryptionscopeoverride.js).
	other := blob.CPKScopeInfo{EncryptionScope: to.Ptr("scope2")}
	_, err = strict.NewBlockBlobClient("b").Upload(e.ctx, nopCloser([]byte("b")), &blockblob.UploadOptions{CPKScopeInfo: &other})
	wantCode(t, err, http.StatusForbidden, "RequestForbiddenByContainerEncryptionPolicy")

	_, err = e.svc.NewContainerClient("nosuch").Create(e.ctx, &container.CreateOptions{CPKScopeInfo: &container.CPKScopeInfo{
		DefaultEncryptionScope: to.Ptr("mumbojumboscope")}})
	wantCode(t, err, http.StatusConflict, "EncryptionScopeNotAvailable")
}

// A SAS's signed encryption scope (ses) is "the encryption scope to use to
// encrypt the request contents": a write through it is under that scope
// and says so (the SDK's TestAccountEncryptionScopeSAS,
// TestBlobEncryptionScopeSAS); a header naming another scope is 400.
func TestSASEncryptionScope(t *testing.T) {
	e := startWithScopes(t, "scope1", "scope2")
	e.container("ses")
	cred, _ := service.NewSharedKeyCredential(lazulitest.Account, lazulitest.Key)
	q, err := sas.AccountSignatureValues{Protocol: sas.ProtocolHTTPSandHTTP, ExpiryTime: e.in.Clock.Now().Add(time.Hour),
		Permissions:     (&sas.AccountPermissions{Read: true, Create: true, Write: true}).String(),
		ResourceTypes:   (&sas.AccountResourceTypes{Object: true}).String(),
		EncryptionScope: "scope1"}.SignWithSharedKey(cred)
	if err != nil {
		t.Fatal(err)
	}
	url := e.in.BlobURL + "ses/log?" + q.Encode()
	ab, err := appendblob.NewClientWithNoCredential(url, nil)
	if err != nil {
		t.Fatal(err)
	}
	created, err := ab.Create(e.ctx, nil)
	if err != nil || created.EncryptionScope == nil || *created.EncryptionScope != "scope1" {
		t.Fatalf("Create Append Blob through a SAS with ses: %v %v", created.EncryptionScope, err)
	}
	props, err := ab.GetProperties(e.ctx, nil)
	if err != nil || props.EncryptionScope == nil || *props.EncryptionScope != "scope1" {
		t.Fatalf("stored scope %v, %v", props.EncryptionScope, err)
	}
	bb, _ := blockblob.NewClientWithNoCredential(e.in.BlobURL+"ses/other?"+q.Encode(), nil)
	_, err = bb.Upload(e.ctx, nopCloser([]byte("x")), &blockblob.UploadOptions{CPKScopeInfo: &blob.CPKScopeInfo{EncryptionScope: to.Ptr("scope2")}})
	wantCode(t, err, http.StatusBadRequest, "InvalidHeaderValue")
}
