package blob_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/sas"
)

// TestBlobBatchAccountSASObjectOnly replays Azurite's "SubmitBatch with SAS
// token - batch deleting" (tests/blob/apis/blobbatch.test.ts): the
// JavaScript SDK's BlobBatchClient, from a path-style service URL holding
// an account SAS with srt=o and sp=d, posts
// /<account>?<sas>&comp=batch&restype=container with each Delete Blob
// carrying the same SAS, and every sub-request succeeds. The envelope is
// no operation of its own (Blob Batch: each sub-request is authorized as
// the lone request would be), so an account SAS of any resource type
// opens it; each Delete Blob is still checked against srt=o and sp=d. An
// account SAS of another service, and a container's service SAS, still
// cannot send a service-level batch.
func TestBlobBatchAccountSASObjectOnly(t *testing.T) {
	e := start(t)
	c := e.container("srto")
	e.upload(c, "a", []byte("a"))
	e.upload(c, "b", []byte("b"))
	objectOnly := "?" + accountSASQuery(t, e, sas.AccountPermissions{Delete: true}, sas.AccountResourceTypes{Object: true})
	base := strings.TrimSuffix(e.in.BlobURL, "/")
	for _, target := range []string{base + objectOnly + "&comp=batch&restype=container", e.in.BlobURL + objectOnly + "&comp=batch"} {
		e.upload(c, "a", []byte("a"))
		r := rawBatch(t, e, target, nil, []subReq{{method: "DELETE", path: "srto/a" + objectOnly}})
		if got := batchAnswers(t, r); fmt.Sprint(got) != "[202]" {
			t.Fatalf("%s: answers %v (status %d %s)", target, got, r.StatusCode, r.Header.Get("x-ms-error-code"))
		}
	}
	// The sub-request is still held to the SAS's resource types.
	containerOnly := "?" + accountSASQuery(t, e, sas.AccountPermissions{Delete: true}, sas.AccountResourceTypes{Container: true})
	r := rawBatch(t, e, e.in.BlobURL+containerOnly+"&comp=batch", nil, []subReq{{method: "DELETE", path: "srto/b" + containerOnly}})
	if got := batchAnswers(t, r); fmt.Sprint(got) != "[403 AuthorizationResourceTypeMismatch]" {
		t.Fatalf("srt=c sub-request: answers %v (status %d %s)", got, r.StatusCode, r.Header.Get("x-ms-error-code"))
	}
}
