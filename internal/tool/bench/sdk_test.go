//go:build sdkbench

package bench

import (
	"context"
	"fmt"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blob"

	"github.com/lazuli-storage/lazuli/internal/rule/auth"
)

const sdkBuilt = true

// TestSDKErrorKeys checks that a failed SDK request is reported under the
// same "<status> <code>" key as the lean client's.
func TestSDKErrorKeys(t *testing.T) {
	target := startLazuli(t)
	c, err := newSDKClient(target, auth.Blob, 2)
	if err != nil {
		t.Fatal(err)
	}
	cc := c.blob.NewContainerClient("errkeys")
	ctx := context.Background()
	if _, err := cc.Create(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if err := sdkPutBlob(ctx, cc, "b", payload(16), nil); err != nil {
		t.Fatal(err)
	}
	stale := azcore.ETag(`"0x1"`)
	err = sdkPutBlob(ctx, cc, "b", payload(16), &blob.AccessConditions{
		ModifiedAccessConditions: &blob.ModifiedAccessConditions{IfMatch: &stale}})
	if got := errorKey(err); got != "412 ConditionNotMet" {
		t.Errorf("stale If-Match: key %q (%v)", got, err)
	}
	_, err = cc.Create(ctx, nil)
	if got := errorKey(err); got != "409 ContainerAlreadyExists" {
		t.Errorf("second create: key %q (%v)", got, err)
	}
	_, err = cc.NewBlockBlobClient("missing").DownloadStream(ctx, &blob.DownloadStreamOptions{RangeGetContentMD5: to.Ptr(false)})
	if got := errorKey(err); got != "404 BlobNotFound" {
		t.Errorf("missing blob: key %q (%v)", got, err)
	}
}

// An SDK error is keyed by its status and code, as the lean client's are.
func TestSDKErrorKey(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want string
	}{
		{&azcore.ResponseError{StatusCode: 409, ErrorCode: "LeaseAlreadyPresent"}, "409 LeaseAlreadyPresent"},
		{fmt.Errorf("put: %w", &azcore.ResponseError{StatusCode: 404, ErrorCode: "BlobNotFound"}), "404 BlobNotFound"},
		{&azcore.ResponseError{StatusCode: 503}, "503"},
	} {
		if got := errorKey(tc.err); got != tc.want {
			t.Errorf("errorKey(%v) = %q, want %q", tc.err, got, tc.want)
		}
	}
}
