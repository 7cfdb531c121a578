package auth

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/data/aztables"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blockblob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/container"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azfile/file"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azfile/service"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azfile/share"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azqueue"

	"github.com/lazuli-storage/lazuli/internal/rule/azerr"
)

var noRetry = azcore.ClientOptions{Retry: policy.RetryOptions{MaxRetries: -1}}

// trickyMeta has metadata names whose order differs between byte order and
// Azure's header collation, and a value with inner whitespace runs.
var trickyMeta = map[string]*string{
	"a_b": to.Ptr("1"), "a-b": to.Ptr("2"), "ab": to.Ptr("3"), "a1": to.Ptr("4"),
	"A.b": to.Ptr("x  y"), "a'b": to.Ptr("5"), "zz": to.Ptr(""),
}

// sdkCalls drives one SDK against serviceURL with a Shared Key credential
// for key and returns how many requests it made. Errors from the calls are
// ignored: the test server answers minimal responses, and what is checked
// is what Authenticate decided.
type sdkCalls func(t *testing.T, serviceURL, key string) int

func blobCalls(t *testing.T, serviceURL, key string) int {
	cred, err := azblob.NewSharedKeyCredential(DevAccountName, key)
	if err != nil {
		t.Fatal(err)
	}
	client, err := azblob.NewClientWithSharedKeyCredential(serviceURL, cred, &azblob.ClientOptions{ClientOptions: noRetry})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	_, _ = client.CreateContainer(ctx, "c1", &container.CreateOptions{Metadata: trickyMeta})
	bb := client.ServiceClient().NewContainerClient("c1").NewBlockBlobClient("dir/blob name+%ü.txt")
	_, _ = bb.Upload(ctx, nopCloser{bytes.NewReader([]byte("hello"))}, &blockblob.UploadOptions{Metadata: trickyMeta})
	_, _ = bb.GetProperties(ctx, nil)
	pager := client.NewListBlobsFlatPager("c1", &container.ListBlobsFlatOptions{Prefix: to.Ptr("dir/"), MaxResults: to.Ptr(int32(5))})
	_, _ = pager.NextPage(ctx)
	_, _ = client.DeleteBlob(ctx, "c1", "dir/blob name+%ü.txt", nil)
	return 5
}

func queueCalls(t *testing.T, serviceURL, key string) int {
	cred, err := azqueue.NewSharedKeyCredential(DevAccountName, key)
	if err != nil {
		t.Fatal(err)
	}
	client, err := azqueue.NewServiceClientWithSharedKeyCredential(serviceURL, cred, &azqueue.ClientOptions{ClientOptions: noRetry})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	q := client.NewQueueClient("q1")
	_, _ = q.Create(ctx, &azqueue.CreateOptions{Metadata: trickyMeta})
	_, _ = q.EnqueueMessage(ctx, "hello", nil)
	_, _ = q.PeekMessages(ctx, &azqueue.PeekMessagesOptions{NumberOfMessages: to.Ptr(int32(3))})
	_, _ = q.GetProperties(ctx, nil)
	return 4
}

func tableCalls(t *testing.T, serviceURL, key string) int {
	cred, err := aztables.NewSharedKeyCredential(DevAccountName, key)
	if err != nil {
		t.Fatal(err)
	}
	client, err := aztables.NewServiceClientWithSharedKey(serviceURL, cred, &aztables.ClientOptions{ClientOptions: noRetry})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	_, _ = client.CreateTable(ctx, "t1", nil)
	tc := client.NewClient("t1")
	_, _ = tc.AddEntity(ctx, []byte(`{"PartitionKey":"p","RowKey":"r","V":1}`), nil)
	_, _ = tc.GetEntity(ctx, "p", "r 'quoted'", nil)
	_, _ = tc.GetAccessPolicy(ctx, nil)
	return 4
}

func fileCalls(t *testing.T, serviceURL, key string) int {
	cred, err := service.NewSharedKeyCredential(DevAccountName, key)
	if err != nil {
		t.Fatal(err)
	}
	client, err := service.NewClientWithSharedKeyCredential(serviceURL, cred, &service.ClientOptions{ClientOptions: noRetry})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	sh := client.NewShareClient("s1")
	_, _ = sh.Create(ctx, &share.CreateOptions{Metadata: trickyMeta})
	f := sh.NewRootDirectoryClient().NewFileClient("a b.txt")
	_, _ = f.Create(ctx, 5, &file.CreateOptions{Metadata: trickyMeta})
	_, _ = f.UploadRange(ctx, 0, nopCloser{bytes.NewReader([]byte("hello"))}, nil)
	_, _ = f.GetProperties(ctx, nil)
	return 4
}

func TestSharedKeySDKs(t *testing.T) {
	services := []struct {
		svc   Service
		calls sdkCalls
	}{
		{Blob, blobCalls}, {Queue, queueCalls}, {Table, tableCalls}, {File, fileCalls},
	}
	keys := []struct {
		name string
		key  string
		ok   bool
	}{
		{"account key", devKey, true},
		{"second key", otherKey, true},
		{"unknown key", "c29tZSBvdGhlciBrZXkgdGhhdCBpcyBub3QgY29uZmlndXJlZA==", false},
	}
	for _, s := range services {
		for _, k := range keys {
			t.Run(string(s.svc)+"/"+k.name, func(t *testing.T) {
				a, _ := devAuthenticator()
				a.Accounts = rotatedAccounts(t)
				srv := newAuthServer(t, s.svc, a)
				want := s.calls(t, srv.URL+"/"+DevAccountName, k.key)
				got := srv.take()
				if len(got) != want {
					t.Fatalf("server saw %d requests, want %d", len(got), want)
				}
				for _, o := range got {
					switch {
					case k.ok && o.err != nil:
						t.Errorf("%s %s: %v", o.method, o.path, detail(o.err))
					case k.ok && o.id.Kind != SharedKey:
						t.Errorf("%s %s: kind %v, want sharedkey", o.method, o.path, o.id.Kind)
					case !k.ok && !azerr.Is(o.err, azerr.AuthenticationFailed):
						t.Errorf("%s %s: err %v, want AuthenticationFailed", o.method, o.path, o.err)
					}
				}
			})
		}
	}
}

// rotatedAccounts is the dev account holding two keys, as after a rotation.
func rotatedAccounts(t *testing.T) *Accounts {
	t.Helper()
	accts, err := ParseAccountsEnv(DevAccountName + ":" + devKey + ":" + otherKey)
	if err != nil {
		t.Fatal(err)
	}
	return accts
}

// detail renders an Azure error with its detail elements for test output.
func detail(err error) string {
	e, ok := azerr.As(err)
	if !ok {
		return err.Error()
	}
	s := e.Error()
	for _, d := range e.Details {
		s += "\n" + d.Name + ": " + d.Value
	}
	return s
}

func TestSharedKeyRequestDateTooOld(t *testing.T) {
	for _, tc := range []struct {
		skew time.Duration
		ok   bool
	}{
		{0, true},
		{14 * time.Minute, true},
		{16 * time.Minute, false},
	} {
		t.Run(tc.skew.String(), func(t *testing.T) {
			a, clk := devAuthenticator()
			clk.Advance(tc.skew)
			srv := newAuthServer(t, Queue, a)
			queueCalls(t, srv.URL+"/"+DevAccountName, devKey)
			for _, o := range srv.take() {
				if tc.ok && o.err != nil {
					t.Errorf("%s: %v", o.method, detail(o.err))
				}
				if !tc.ok && !hasDetailPrefix(o.err, "Request date header too old") {
					t.Errorf("%s: err %v, want a too-old date", o.method, detail(o.err))
				}
			}
		})
	}
}

func hasDetailPrefix(err error, prefix string) bool {
	e, ok := azerr.As(err)
	if !ok {
		return false
	}
	for _, d := range e.Details {
		if d.Name == "AuthenticationErrorDetail" && len(d.Value) >= len(prefix) && d.Value[:len(prefix)] == prefix {
			return true
		}
	}
	return false
}

type nopCloser struct{ *bytes.Reader }

func (nopCloser) Close() error { return nil }
