package dfs_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azdatalake/filesystem"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azdatalake/sas"

	"github.com/lazuli-storage/lazuli/internal/check/lazulitest"
	"github.com/lazuli-storage/lazuli/internal/run/config"
)

// startWithScopes runs a server whose dev account has a hierarchical
// namespace and the encryption scopes named.
func startWithScopes(t *testing.T, scopes ...string) *env {
	t.Helper()
	in := lazulitest.Start(t, lazulitest.Options{InMemory: true, Services: []string{"blob"}, Configure: func(c *config.Config) {
		c.HNSAccounts = []string{lazulitest.Account}
		c.EncryptionScopes = scopes
	}})
	return &env{t: t, in: in, ctx: context.Background()}
}

// scopedFilesystem creates filesystem name with a default encryption
// scope, which deny says writes may not override.
func (e *env) scopedFilesystem(name, scope string, deny bool) {
	e.t.Helper()
	fs, err := filesystem.NewClientWithSharedKeyCredential(e.url(name), e.cred(), &filesystem.ClientOptions{ClientOptions: e.sdkOptions()})
	if err != nil {
		e.t.Fatal(err)
	}
	info := &filesystem.CPKScopeInfo{DefaultEncryptionScope: to.Ptr(scope), PreventEncryptionScopeOverride: to.Ptr(deny)}
	if _, err := fs.Create(e.ctx, &filesystem.CreateOptions{CPKScopeInfo: info}); err != nil {
		e.t.Fatal(err)
	}
}

// scopeSAS is a filesystem SAS for every path operation that names scope
// as its signed encryption scope (ses).
func (e *env) scopeSAS(fs, scope string) string {
	e.t.Helper()
	q, err := sas.DatalakeSignatureValues{Protocol: sas.ProtocolHTTPSandHTTP, ExpiryTime: time.Now().Add(time.Hour),
		Permissions: "racwdl", FileSystemName: fs, EncryptionScope: scope}.SignWithSharedKey(e.cred())
	if err != nil {
		e.t.Fatal(err)
	}
	return q.Encode()
}

// scopeHeader names an encryption scope as the Blob API's writes do.
func scopeHeader(scope string) http.Header { return http.Header{"X-Ms-Encryption-Scope": {scope}} }

// wantScoped asserts a write succeeded with status and answered the scope
// it wrote under.
func wantScoped(t *testing.T, resp *http.Response, body []byte, status int, scope string) {
	t.Helper()
	if resp.StatusCode != status {
		t.Fatalf("want %d, got %d %s", status, resp.StatusCode, body)
	}
	if got := resp.Header.Get("X-Ms-Encryption-Scope"); got != scope || resp.Header.Get("X-Ms-Request-Server-Encrypted") != "true" {
		t.Fatalf("answered scope %q, server encrypted %q; want %q", got, resp.Header.Get("X-Ms-Request-Server-Encrypted"), scope)
	}
}

// A file in a filesystem with a default encryption scope is created under
// it, and appends and flushes that name no scope write under it too; one
// that names another is refused as the Blob API refuses a write to a
// blob's content under another scope (409
// BlobCustomerSpecifiedEncryptionMismatch), and a scope the account lacks
// is 409 EncryptionScopeNotAvailable.
func TestAppendAndFlushUnderFilesystemDefaultScope(t *testing.T) {
	e := startWithScopes(t, "scope1", "scope2")
	e.scopedFilesystem("lake", "scope1", false)
	resp, body := e.raw(http.MethodPut, "lake/data.txt?resource=file", nil, nil)
	wantScoped(t, resp, body, http.StatusCreated, "scope1")

	const appendAt0 = "lake/data.txt?action=append&position=0"
	e.wantConflict(http.MethodPatch, appendAt0, scopeHeader("scope2"), "hello", "BlobCustomerSpecifiedEncryptionMismatch")
	e.wantConflict(http.MethodPatch, appendAt0, scopeHeader("nosuchscope"), "hello", "EncryptionScopeNotAvailable")
	resp, body = e.raw(http.MethodPatch, appendAt0, nil, []byte("hello"))
	wantScoped(t, resp, body, http.StatusAccepted, "scope1")

	const flushAt5 = "lake/data.txt?action=flush&position=5"
	e.wantConflict(http.MethodPatch, flushAt5, scopeHeader("scope2"), "", "BlobCustomerSpecifiedEncryptionMismatch")
	resp, body = e.raw(http.MethodPatch, flushAt5, scopeHeader("scope1"), nil)
	wantScoped(t, resp, body, http.StatusOK, "scope1")

	props, err := e.file("lake", "data.txt").GetProperties(e.ctx, nil)
	if err != nil || props.EncryptionScope == nil || *props.EncryptionScope != "scope1" || *props.ContentLength != 5 {
		t.Fatalf("properties: %v, scope %v", err, props.EncryptionScope)
	}
}

// A filesystem that denies overriding its default scope refuses an append
// or flush naming another with 403
// RequestForbiddenByContainerEncryptionPolicy, as it refuses Blob writes.
func TestAppendAndFlushInFilesystemThatDeniesOverride(t *testing.T) {
	e := startWithScopes(t, "scope1", "scope2")
	e.scopedFilesystem("strict", "scope1", true)
	resp, body := e.raw(http.MethodPut, "strict/data.txt?resource=file", nil, nil)
	wantScoped(t, resp, body, http.StatusCreated, "scope1")

	for _, path := range []string{"strict/data.txt?action=append&position=0", "strict/data.txt?action=flush&position=0"} {
		resp, body = e.raw(http.MethodPatch, path, scopeHeader("scope2"), nil)
		wantJSONError(t, resp, body, http.StatusForbidden, "RequestForbiddenByContainerEncryptionPolicy")
	}
	sas := e.scopeSAS("strict", "scope2")
	resp, body = e.send(http.MethodPatch, "strict/data.txt?action=append&position=0&"+sas, nil, []byte("x"), nil)
	wantJSONError(t, resp, body, http.StatusForbidden, "RequestForbiddenByContainerEncryptionPolicy")
}

// A file created with a SAS that signs an encryption scope is written
// under that scope (the SDK's TestAccountEncryptionScopeSAS uploads one
// so and reads the scope back): appends and flushes with the same SAS
// write under it, and one without a scope, with Shared Key, is refused as
// a write without the blob's key (409 BlobUsesCustomerSpecifiedEncryption).
func TestAppendAndFlushUnderSASScope(t *testing.T) {
	e := startWithScopes(t, "scope1", "scope2")
	e.filesystem("lake")
	sas := e.scopeSAS("lake", "scope2")
	resp, body := e.send(http.MethodPut, "lake/f.txt?resource=file&"+sas, nil, nil, nil)
	wantScoped(t, resp, body, http.StatusCreated, "scope2")

	e.wantConflict(http.MethodPatch, "lake/f.txt?action=append&position=0", nil, "data", "BlobUsesCustomerSpecifiedEncryption")
	other := e.scopeSAS("lake", "scope1")
	resp, body = e.send(http.MethodPatch, "lake/f.txt?action=append&position=0&"+other, nil, []byte("data"), nil)
	wantJSONError(t, resp, body, http.StatusConflict, "BlobCustomerSpecifiedEncryptionMismatch")

	resp, body = e.send(http.MethodPatch, "lake/f.txt?action=append&position=0&"+sas, nil, []byte("data"), nil)
	wantScoped(t, resp, body, http.StatusAccepted, "scope2")
	e.wantConflict(http.MethodPatch, "lake/f.txt?action=flush&position=4", nil, "", "BlobUsesCustomerSpecifiedEncryption")
	resp, body = e.send(http.MethodPatch, "lake/f.txt?action=flush&position=4&"+sas, nil, nil, nil)
	wantScoped(t, resp, body, http.StatusOK, "scope2")
}
