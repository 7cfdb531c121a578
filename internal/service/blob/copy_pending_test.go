package blob_test

import (
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/sas"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/service"

	"github.com/lazuli-storage/lazuli/internal/check/lazulitest"
	"github.com/lazuli-storage/lazuli/internal/rule/auth"
	"github.com/lazuli-storage/lazuli/internal/run/config"
)

// TestCrossAccountCopyPending: with --crossAccountCopyRate, Copy Blob from
// another account answers pending, as Azure's asynchronous copy between
// accounts does (the SDK's TestBlobAbortCopyInProgress), until copying
// the bytes at that rate would have finished; it can be aborted
// meanwhile; a copy within the account stays immediate.
func TestCrossAccountCopyPending(t *testing.T) {
	accounts := must(auth.ParseAccountsEnv(lazulitest.Account + ":" + lazulitest.Key + ";other:" + lazulitest.Key)).on(t)
	e := startWith(t, lazulitest.Options{InMemory: true, Configure: func(c *config.Config) {
		c.Accounts, c.CrossAccountCopyRate = accounts, 1 // MiB/s
	}})
	c := e.container("src")
	data := strings.Repeat("x", 1<<20) // one second at 1 MiB/s
	src := e.upload(c, "big", []byte(data)).BlobClient()
	readable := must(src.GetSASURL(sas.BlobPermissions{Read: true}, time.Now().Add(time.Hour), nil)).on(t)

	local := must(c.NewBlobClient("local").StartCopyFromURL(e.ctx, src.URL(), nil)).on(t)
	if *local.CopyStatus != blob.CopyStatusTypeSuccess {
		t.Fatalf("a copy within the account answered %s", *local.CopyStatus)
	}

	cred := must(service.NewSharedKeyCredential("other", lazulitest.Key)).on(t)
	other := must(service.NewClientWithSharedKeyCredential(strings.Replace(e.in.BlobURL, lazulitest.Account, "other", 1), cred, clientOptions())).on(t)
	oc := other.NewContainerClient("dest")
	must(oc.Create(e.ctx, nil)).on(t)

	// Pending, then done once the simulated transfer time has passed.
	done := oc.NewBlobClient("done")
	resp := must(done.StartCopyFromURL(e.ctx, readable, nil)).on(t)
	if *resp.CopyStatus != blob.CopyStatusTypePending {
		t.Fatalf("a copy from another account answered %s", *resp.CopyStatus)
	}
	p := e.props(done)
	if *p.CopyStatus != blob.CopyStatusTypePending || *p.CopyProgress != "0/1048576" || p.CopyCompletionTime != nil {
		t.Fatalf("pending copy: %s %s", *p.CopyStatus, *p.CopyProgress)
	}
	_, err := done.SetMetadata(e.ctx, map[string]*string{"a": to.Ptr("b")}, nil)
	wantCode(t, err, 409, "PendingCopyOperation")
	e.in.Fake.Advance(2 * time.Second)
	p = e.props(done)
	if *p.CopyStatus != blob.CopyStatusTypeSuccess || *p.CopyProgress != "1048576/1048576" || e.read(done) != data {
		t.Fatalf("after the transfer time: %s %s", *p.CopyStatus, *p.CopyProgress)
	}

	// Aborted while pending: empty, status aborted; a finished copy
	// cannot be aborted.
	aborted := oc.NewBlobClient("aborted")
	resp = must(aborted.StartCopyFromURL(e.ctx, readable, nil)).on(t)
	must(aborted.AbortCopyFromURL(e.ctx, *resp.CopyID, nil)).on(t)
	p = e.props(aborted)
	if *p.CopyStatus != blob.CopyStatusTypeAborted || *p.ContentLength != 0 {
		t.Fatalf("aborted copy: %s, %d bytes", *p.CopyStatus, *p.ContentLength)
	}
	_, err = done.AbortCopyFromURL(e.ctx, *p.CopyID, nil)
	wantCode(t, err, 409, "NoPendingCopyOperation")
}
