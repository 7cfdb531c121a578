package blob_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blockblob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/container"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/sas"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/service"

	"github.com/lazuli-storage/lazuli/internal/check/lazulitest"
)

// copySourceTags sets x-ms-copy-source-tag-option: COPY on the requests
// that carry a copy source: azblob v1.8.3 has the option for Put Blob From
// URL only, not for Copy Blob From URL.
type copySourceTags struct{}

func (copySourceTags) Do(req *policy.Request) (*http.Response, error) {
	// The generated client keys its headers in lower case, outside
	// Header.Get's canonical form.
	for k := range req.Raw().Header {
		if strings.EqualFold(k, "x-ms-copy-source") {
			req.Raw().Header.Set("x-ms-copy-source-tag-option", "COPY")
			break
		}
	}
	return req.Next()
}

// TestCopySourceTagsFromAnotherServer: x-ms-copy-source-tag-option: COPY
// with a source on another server reads the source's tags with Get Blob
// Tags under the source URL's SAS, which must grant the tags permission
// (the source answers 403 otherwise, reported as CannotVerifyCopySource).
// The SDK's unrecorded TestPutBlobFromURLWithCopySourceTagsCopy is the
// scenario; here the source is a second server.
func TestCopySourceTagsFromAnotherServer(t *testing.T) {
	remote := start(t)
	rc := remote.container("origin")
	must(rc.NewBlockBlobClient("doc").Upload(remote.ctx, nopCloser([]byte("remote bytes")),
		&blockblob.UploadOptions{Tags: map[string]string{"source": "tags", "n": "1"}})).on(t)
	withTags := sasURL(t, remote, sas.BlobSignatureValues{ContainerName: "origin", BlobName: "doc",
		Permissions: (&sas.BlobPermissions{Read: true, Tag: true}).String()})
	readOnly := sasURL(t, remote, sas.BlobSignatureValues{ContainerName: "origin", BlobName: "doc",
		Permissions: (&sas.BlobPermissions{Read: true}).String()})

	e := start(t)
	c := e.container("local")
	put := c.NewBlockBlobClient("put")
	must(put.UploadBlobFromURL(e.ctx, withTags, &blockblob.UploadBlobFromURLOptions{
		CopySourceTags: to.Ptr(blockblob.BlobCopySourceTagsCopy)})).on(t)
	if got := e.tagsOf(put.BlobClient()); got != "n=1,source=tags" {
		t.Fatalf("Put Blob From URL tags: %q", got)
	}
	if got := e.read(put.BlobClient()); got != "remote bytes" {
		t.Fatalf("Put Blob From URL content: %q", got)
	}
	// REPLACE (the default) takes x-ms-tags instead.
	must(put.UploadBlobFromURL(e.ctx, withTags, &blockblob.UploadBlobFromURLOptions{Tags: map[string]string{"mine": "x"}})).on(t)
	if got := e.tagsOf(put.BlobClient()); got != "mine=x" {
		t.Fatalf("REPLACE tags: %q", got)
	}

	// Copy Blob From URL, through a client that asks for COPY.
	cred := must(service.NewSharedKeyCredential(lazulitest.Account, lazulitest.Key)).on(t)
	opts := &container.ClientOptions{ClientOptions: clientOptions().ClientOptions}
	opts.PerCallPolicies = []policy.Policy{copySourceTags{}}
	copier := must(container.NewClientWithSharedKeyCredential(c.URL(), cred, opts)).on(t)
	dst := copier.NewBlobClient("copied")
	resp := must(dst.CopyFromURL(e.ctx, withTags, nil)).on(t)
	if *resp.CopyStatus != string(blob.CopyStatusTypeSuccess) {
		t.Fatalf("copy status %s", *resp.CopyStatus)
	}
	if got := e.tagsOf(c.NewBlobClient("copied")); got != "n=1,source=tags" {
		t.Fatalf("Copy Blob From URL tags: %q", got)
	}

	// Without the tags permission the source refuses Get Blob Tags, and
	// nothing is written.
	_, err := copier.NewBlobClient("refused").CopyFromURL(e.ctx, readOnly, nil)
	wantCode(t, err, 403, "CannotVerifyCopySource")
	_, err = c.NewBlockBlobClient("refused").UploadBlobFromURL(e.ctx, readOnly, &blockblob.UploadBlobFromURLOptions{
		CopySourceTags: to.Ptr(blockblob.BlobCopySourceTagsCopy)})
	wantCode(t, err, 403, "CannotVerifyCopySource")
	_, err = c.NewBlobClient("refused").GetProperties(e.ctx, nil)
	wantCode(t, err, 404, "BlobNotFound")
}
