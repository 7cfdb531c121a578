package dfs_test

import (
	"errors"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azdatalake"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azdatalake/directory"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azdatalake/file"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azdatalake/filesystem"

	"github.com/lazuli-storage/lazuli/internal/check/lazulitest"
)

// The Data Lake SDK's clients on the Blob endpoint's IP-style URL, as its
// users point it at the emulator: azdatalake sends the dfs operations and
// the Blob ones (Path Read, Get Properties) to the same address.

// startFlat runs a server whose dev account has a flat namespace.
func startFlat(t *testing.T) *env { return startWith(t, false) }

// options turn the SDK's retries off: a test must see each answer.
func options() azcore.ClientOptions {
	return azcore.ClientOptions{Retry: policy.RetryOptions{MaxRetries: -1}}
}

// sdkOptions are options() with the env's HTTP client, when it has one.
func (e *env) sdkOptions() azcore.ClientOptions {
	o := options()
	if e.client != nil {
		o.Transport = e.client
	}
	return o
}

func (e *env) cred() *azdatalake.SharedKeyCredential {
	cred, err := azdatalake.NewSharedKeyCredential(lazulitest.Account, lazulitest.Key)
	if err != nil {
		e.t.Fatal(err)
	}
	return cred
}

// filesystem creates filesystem name and returns its client.
func (e *env) filesystem(name string) *filesystem.Client {
	e.t.Helper()
	fs, err := filesystem.NewClientWithSharedKeyCredential(e.url(name), e.cred(), &filesystem.ClientOptions{ClientOptions: e.sdkOptions()})
	if err != nil {
		e.t.Fatal(err)
	}
	if _, err := fs.Create(e.ctx, nil); err != nil {
		e.t.Fatalf("create filesystem %s: %v", name, err)
	}
	return fs
}

// dir is the client of directory path in filesystem fs.
func (e *env) dir(fs, path string) *directory.Client {
	e.t.Helper()
	d, err := directory.NewClientWithSharedKeyCredential(e.url(fs+"/"+path), e.cred(), &directory.ClientOptions{ClientOptions: e.sdkOptions()})
	if err != nil {
		e.t.Fatal(err)
	}
	return d
}

// file is the client of file path in filesystem fs.
func (e *env) file(fs, path string) *file.Client {
	e.t.Helper()
	f, err := file.NewClientWithSharedKeyCredential(e.url(fs+"/"+path), e.cred(), &file.ClientOptions{ClientOptions: e.sdkOptions()})
	if err != nil {
		e.t.Fatal(err)
	}
	return f
}

// wantCode asserts err is an Azure error with the given status and code.
func wantCode(t *testing.T, err error, status int, code string) {
	t.Helper()
	var re *azcore.ResponseError
	if !errors.As(err, &re) {
		t.Fatalf("want %d %s, got %v", status, code, err)
	}
	if re.StatusCode != status || (code != "" && re.ErrorCode != code) {
		t.Fatalf("want %d %s, got %d %s", status, code, re.StatusCode, re.ErrorCode)
	}
}
