package file_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azfile/file"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azfile/sas"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azfile/service"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azfile/share"

	"github.com/lazuli-storage/lazuli/internal/check/lazulitest"
)

func sasFileClient(t *testing.T, url string) *file.Client {
	t.Helper()
	c, err := file.NewClientWithNoCredential(url, &file.ClientOptions{ClientOptions: clientOptions().ClientOptions})
	must(t, err)
	return c
}

func sasShareClient(t *testing.T, url string) *share.Client {
	t.Helper()
	c, err := share.NewClientWithNoCredential(url, &share.ClientOptions{ClientOptions: clientOptions().ClientOptions})
	must(t, err)
	return c
}

func TestFileServiceSAS(t *testing.T) {
	_, svc := start(t, lazulitest.Options{InMemory: true})
	sh := newShare(t, svc, "sas")
	f := sh.NewRootDirectoryClient().NewFileClient("f")
	_, err := f.Create(ctx, 3, nil)
	must(t, err)
	_, err = f.UploadRange(ctx, 0, streamOf([]byte("sas")), nil)
	must(t, err)
	expiry := time.Now().Add(time.Hour)

	// sr=f, read only.
	readURL, err := f.GetSASURL(sas.FilePermissions{Read: true}, expiry, nil)
	must(t, err)
	rf := sasFileClient(t, readURL)
	if got := download(t, rf); got != "sas" {
		t.Fatalf("read through SAS %q", got)
	}
	_, err = rf.UploadRange(ctx, 0, streamOf([]byte("no")), nil)
	wantCode(t, err, http.StatusForbidden, "AuthorizationPermissionMismatch")
	_, err = rf.Delete(ctx, nil)
	wantCode(t, err, http.StatusForbidden, "AuthorizationPermissionMismatch")

	// sr=f with create and write reaches that file only.
	other := sh.NewRootDirectoryClient().NewFileClient("other")
	writeURL, err := other.GetSASURL(sas.FilePermissions{Create: true, Write: true}, expiry, nil)
	must(t, err)
	wf := sasFileClient(t, writeURL)
	_, err = wf.Create(ctx, 2, nil)
	must(t, err)
	_, err = wf.UploadRange(ctx, 0, streamOf([]byte("ok")), nil)
	must(t, err)
	// The signature covers the file it was made for.
	_, err = sasFileClient(t, f.URL()+"?"+splitQuery(writeURL)).UploadRange(ctx, 0, streamOf([]byte("xx")), nil)
	wantCode(t, err, http.StatusForbidden, "AuthenticationFailed")

	// sr=s, read and list: the share's directories and files.
	listURL, err := sh.GetSASURL(sas.SharePermissions{Read: true, List: true}, expiry, nil)
	must(t, err)
	ls := sasShareClient(t, listURL)
	page, err := ls.NewRootDirectoryClient().NewListFilesAndDirectoriesPager(nil).NextPage(ctx)
	must(t, err)
	if len(page.Segment.Files) != 2 {
		t.Fatalf("listed %d files", len(page.Segment.Files))
	}
	if got := download(t, ls.NewRootDirectoryClient().NewFileClient("other")); got != "ok" {
		t.Fatalf("read through share SAS %q", got)
	}
	_, err = ls.NewRootDirectoryClient().NewFileClient("new").Create(ctx, 1, nil)
	wantCode(t, err, http.StatusForbidden, "AuthorizationPermissionMismatch")
	// A service SAS never reaches share-level management.
	_, err = ls.SetMetadata(ctx, nil)
	wantCode(t, err, http.StatusForbidden, "AuthorizationFailure")
}

func splitQuery(u string) string {
	for i := 0; i < len(u); i++ {
		if u[i] == '?' {
			return u[i+1:]
		}
	}
	return ""
}

func TestStoredAccessPolicySAS(t *testing.T) {
	_, svc := start(t, lazulitest.Options{InMemory: true})
	sh := newShare(t, svc, "policies")
	f := sh.NewRootDirectoryClient().NewFileClient("f")
	_, err := f.Create(ctx, 1, nil)
	must(t, err)
	_, err = sh.SetAccessPolicy(ctx, &share.SetAccessPolicyOptions{ShareACL: []*share.SignedIdentifier{{ID: to.Ptr("readers"),
		AccessPolicy: &share.AccessPolicy{Expiry: to.Ptr(time.Now().Add(time.Hour)), Permission: to.Ptr("r")}}}})
	must(t, err)
	cred, err := service.NewSharedKeyCredential(lazulitest.Account, lazulitest.Key)
	must(t, err)
	q, err := sas.SignatureValues{Identifier: "readers", ShareName: "policies", FilePath: "f"}.SignWithSharedKey(cred)
	must(t, err)
	pf := sasFileClient(t, f.URL()+"?"+q.Encode())
	_, err = pf.GetProperties(ctx, nil)
	must(t, err)
	_, err = pf.SetMetadata(ctx, nil)
	wantCode(t, err, http.StatusForbidden, "AuthorizationPermissionMismatch")
	// Removing the policy revokes the SAS.
	_, err = sh.SetAccessPolicy(ctx, nil)
	must(t, err)
	_, err = pf.GetProperties(ctx, nil)
	wantCode(t, err, http.StatusForbidden, "AuthenticationFailed")
}

func TestAccountSAS(t *testing.T) {
	_, svc := start(t, lazulitest.Options{InMemory: true})
	expiry := time.Now().Add(time.Hour)
	all, err := svc.GetSASURL(sas.AccountResourceTypes{Service: true, Container: true, Object: true},
		sas.AccountPermissions{Read: true, Write: true, Delete: true, List: true, Create: true}, expiry, nil)
	must(t, err)
	as, err := service.NewClientWithNoCredential(all, clientOptions())
	must(t, err)
	_, err = as.CreateShare(ctx, "viasas", nil)
	must(t, err)
	_, err = as.NewListSharesPager(nil).NextPage(ctx)
	must(t, err)
	f := as.NewShareClient("viasas").NewRootDirectoryClient().NewFileClient("f")
	_, err = f.Create(ctx, 1, nil)
	must(t, err)

	objOnly, err := svc.GetSASURL(sas.AccountResourceTypes{Object: true}, sas.AccountPermissions{Read: true, List: true}, expiry, nil)
	must(t, err)
	os, err := service.NewClientWithNoCredential(objOnly, clientOptions())
	must(t, err)
	_, err = os.NewListSharesPager(nil).NextPage(ctx)
	wantCode(t, err, http.StatusForbidden, "AuthorizationResourceTypeMismatch")
	_, err = os.NewShareClient("viasas").NewRootDirectoryClient().NewFileClient("f").GetProperties(ctx, nil)
	must(t, err)

	anon, err := file.NewClientWithNoCredential(f.URL()[:len(f.URL())-len(splitQuery(f.URL()))-1], &file.ClientOptions{ClientOptions: clientOptions().ClientOptions})
	must(t, err)
	_, err = anon.GetProperties(ctx, nil)
	if _, status := code(err); status != http.StatusUnauthorized {
		t.Fatalf("anonymous request: %v", err)
	}
}

// TestCreateOnlySASCannotReplaceAFile: Create File on an existing file
// replaces it (and zeroes its content), which the create permission alone
// does not allow: 403 AuthorizationPermissionMismatch; a new file it may
// create. Before, the existing file was replaced with 201.
func TestCreateOnlySASCannotReplaceAFile(t *testing.T) {
	_, svc := start(t, lazulitest.Options{InMemory: true})
	sh := newShare(t, svc, "conly")
	existing := sh.NewRootDirectoryClient().NewFileClient("keep")
	_, err := existing.Create(ctx, 4, nil)
	must(t, err)
	_, err = existing.UploadRange(ctx, 0, streamOf([]byte("keep")), nil)
	must(t, err)
	expiry := time.Now().Add(time.Hour)
	shareURL, err := sh.GetSASURL(sas.SharePermissions{Create: true}, expiry, nil)
	must(t, err)
	base, query, _ := strings.Cut(shareURL, "?")
	_, err = sasFileClient(t, base+"/keep?"+query).Create(ctx, 4, nil)
	wantCode(t, err, http.StatusForbidden, "AuthorizationPermissionMismatch")
	if got := download(t, existing); got != "keep" {
		t.Fatalf("the file now reads %q", got)
	}
	_, err = sasFileClient(t, base+"/new?"+query).Create(ctx, 4, nil)
	must(t, err)
}

// TestCreateOnlySASCannotCopyOverAFile: Copy File with the create
// permission makes a new file ("copy a file to a new file"); onto an
// existing file it is a replacement, which needs write.
func TestCreateOnlySASCannotCopyOverAFile(t *testing.T) {
	_, svc := start(t, lazulitest.Options{InMemory: true})
	sh := newShare(t, svc, "conlycopy")
	existing := sh.NewRootDirectoryClient().NewFileClient("keep")
	_, err := existing.Create(ctx, 4, nil)
	must(t, err)
	_, err = existing.UploadRange(ctx, 0, streamOf([]byte("keep")), nil)
	must(t, err)
	shareURL, err := sh.GetSASURL(sas.SharePermissions{Read: true, Create: true}, time.Now().Add(time.Hour), nil)
	must(t, err)
	base, query, _ := strings.Cut(shareURL, "?")
	source := base + "/keep?" + query
	_, err = sasFileClient(t, base+"/copied?"+query).StartCopyFromURL(ctx, source, nil)
	must(t, err)
	_, err = sasFileClient(t, base+"/keep?"+query).StartCopyFromURL(ctx, source, nil)
	wantCode(t, err, http.StatusForbidden, "AuthorizationPermissionMismatch")
}

// TestFileSASResponseOverrides: a service SAS's rscc, rscd, rsce, rscl and
// rsct replace those response headers on Get File and on Get File
// Properties (HEAD). Reference: "Create a service SAS", section "Specify
// query parameters to override response headers (Azure Blob Storage and
// Azure Files only)": the File service answers them for read requests.
func TestFileSASResponseOverrides(t *testing.T) {
	in, svc := start(t, lazulitest.Options{InMemory: true})
	sh := newShare(t, svc, "overrides")
	f := sh.NewRootDirectoryClient().NewFileClient("f")
	_, err := f.Create(ctx, 3, &file.CreateOptions{HTTPHeaders: &file.HTTPHeaders{CacheControl: to.Ptr("no-cache"), ContentType: to.Ptr("text/plain")}})
	must(t, err)
	cred, err := service.NewSharedKeyCredential(lazulitest.Account, lazulitest.Key)
	must(t, err)
	q, err := sas.SignatureValues{ExpiryTime: time.Now().Add(time.Hour), Permissions: (&sas.FilePermissions{Read: true}).String(),
		ShareName: "overrides", FilePath: "f", CacheControl: "max-age=60", ContentDisposition: "attachment; filename=x.txt",
		ContentEncoding: "identity", ContentLanguage: "fr", ContentType: "application/x-test"}.SignWithSharedKey(cred)
	must(t, err)
	want := map[string]string{"Cache-Control": "max-age=60", "Content-Disposition": "attachment; filename=x.txt",
		"Content-Encoding": "identity", "Content-Language": "fr", "Content-Type": "application/x-test"}
	for _, method := range []string{http.MethodGet, http.MethodHead} {
		req, err := http.NewRequest(method, in.FileURL+"overrides/f?"+q.Encode(), nil)
		must(t, err)
		req.Header.Set("x-ms-version", "2025-05-05")
		resp, err := (&http.Client{Transport: transport}).Do(req)
		must(t, err)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("%s: %d", method, resp.StatusCode)
		}
		for name, v := range want {
			if got := resp.Header.Get(name); got != v {
				t.Errorf("%s %s = %q, want %q", method, name, got, v)
			}
		}
	}
}
