package auth

import (
	"bytes"
	"context"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blockblob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/container"
)

var noRetry = azcore.ClientOptions{Retry: policy.RetryOptions{MaxRetries: -1}}

func TestSharedKeyBlobSDK(t *testing.T) {
	a, _ := devAuthenticator()
	srv := newAuthServer(t, Blob, a)
	for _, tc := range []struct {
		name string
		key  string
		ok   bool
	}{
		{"right key", devKey, true},
		{"wrong key", otherKey, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cred, err := azblob.NewSharedKeyCredential(DevAccountName, tc.key)
			if err != nil {
				t.Fatal(err)
			}
			client, err := azblob.NewClientWithSharedKeyCredential(srv.URL+"/"+DevAccountName, cred, &azblob.ClientOptions{ClientOptions: noRetry})
			if err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			_, _ = client.CreateContainer(ctx, "c1", nil)
			meta := map[string]*string{"a_b": to.Ptr("1"), "a-b": to.Ptr("2"), "ab": to.Ptr("3"), "a1": to.Ptr("4"), "A.b": to.Ptr("x  y")}
			bb := client.ServiceClient().NewContainerClient("c1").NewBlockBlobClient("dir/blob name+%.txt")
			_, _ = bb.Upload(ctx, nopCloser{bytes.NewReader([]byte("hello"))}, &blockblob.UploadOptions{Metadata: meta})
			_, _ = bb.GetProperties(ctx, nil)
			pager := client.NewListBlobsFlatPager("c1", &container.ListBlobsFlatOptions{Prefix: to.Ptr("dir/"), MaxResults: to.Ptr(int32(5))})
			_, _ = pager.NextPage(ctx)
			got := srv.take()
			if len(got) != 4 {
				t.Fatalf("server saw %d requests, want 4", len(got))
			}
			for _, o := range got {
				if tc.ok && (o.err != nil || o.id.Kind != SharedKey) {
					t.Errorf("%s %s: err=%v", o.method, o.path, o.err)
				}
				if !tc.ok && o.err == nil {
					t.Errorf("%s %s: accepted with the wrong key", o.method, o.path)
				}
			}
		})
	}
}

type nopCloser struct{ *bytes.Reader }

func (nopCloser) Close() error { return nil }
