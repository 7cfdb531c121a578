package lazulitest_test

import (
	"context"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/data/aztables"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/bloberror"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/lease"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azqueue"

	"github.com/lazuli-storage/lazuli/lazulitest"
)

// The package documentation's test, with its checks.
func TestLeaseAndRetry(t *testing.T) {
	srv := lazulitest.Start(t, lazulitest.Options{ClientOptions: lazulitest.ClientOptions{
		Retry: policy.RetryOptions{RetryDelay: time.Millisecond, MaxRetryDelay: time.Millisecond}}})
	ctx := context.Background()
	client := srv.BlobClient(t)
	if _, err := client.CreateContainer(ctx, "jobs", nil); err != nil {
		t.Fatal(err)
	}
	if _, err := client.UploadBuffer(ctx, "jobs", "lock", nil, nil); err != nil {
		t.Fatal(err)
	}
	blob := client.ServiceClient().NewContainerClient("jobs").NewBlobClient("lock")
	leaser, _ := lease.NewBlobClient(blob, nil)
	if _, err := leaser.AcquireLease(ctx, 60, nil); err != nil {
		t.Fatal(err)
	}
	before := time.Now()
	srv.Advance(61 * time.Second)
	props, err := blob.GetProperties(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if *props.LeaseState != "expired" {
		t.Fatalf("lease %s after advancing past it", *props.LeaseState)
	}
	if srv.Now().Sub(before) < time.Minute {
		t.Fatalf("clock %v did not move", srv.Now())
	}
	f := srv.InjectFault(t, lazulitest.Fault{Operation: "GetBlob", Count: 1, Status: 503})
	if _, err := client.DownloadStream(ctx, "jobs", "lock", nil); err != nil {
		t.Fatalf("the retry policy did not ride over the 503: %v", err)
	}
	if got := srv.Faults(); len(got) != 1 || got[0].ID != f.ID || got[0].Injected != 1 {
		t.Fatalf("faults %+v", got)
	}
	srv.ClearFaults()
}

// Without retries the injected error reaches the caller with its code.
func TestInjectedErrorReachesCaller(t *testing.T) {
	srv := lazulitest.Start(t, lazulitest.Options{Services: []string{"blob"},
		ClientOptions: lazulitest.ClientOptions{Retry: policy.RetryOptions{MaxRetries: -1}}})
	srv.InjectFault(t, lazulitest.Fault{Service: "blob", Operation: "CreateContainer", Code: "InternalError"})
	_, err := srv.BlobClient(t).CreateContainer(context.Background(), "ccc", nil)
	if !bloberror.HasCode(err, bloberror.InternalError) {
		t.Fatalf("got %v, want the injected InternalError", err)
	}
}

// Every service's client works; a frozen clock moves only by Advance;
// Reset empties the account; a persistent server keeps data over Restart.
func TestClientsClockResetRestart(t *testing.T) {
	start := time.Date(2030, 6, 1, 12, 0, 0, 0, time.UTC)
	srv := lazulitest.Start(t, lazulitest.Options{Persistent: true, StartAt: start, Frozen: true})
	ctx := context.Background()
	if !srv.Now().Equal(start) {
		t.Fatalf("clock %v, want %v", srv.Now(), start)
	}
	if got := srv.Advance(time.Hour); !got.Equal(start.Add(time.Hour)) {
		t.Fatalf("advanced to %v", got)
	}
	q := srv.QueueClient(t).NewQueueClient("qqq")
	if _, err := q.Create(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := q.EnqueueMessage(ctx, "m", &azqueue.EnqueueMessageOptions{TimeToLive: to.Ptr(int32(60))}); err != nil {
		t.Fatal(err)
	}
	if _, err := srv.TableClient(t).CreateTable(ctx, "ttt", nil); err != nil {
		t.Fatal(err)
	}
	if _, err := srv.FileClient(t).CreateShare(ctx, "sss", nil); err != nil {
		t.Fatal(err)
	}
	srv.Restart(t)
	if peek, err := srv.QueueClient(t).NewQueueClient("qqq").PeekMessages(ctx, nil); err != nil || len(peek.Messages) != 1 {
		t.Fatalf("after restart: %v %v", peek, err)
	}
	srv.Advance(61 * time.Second)
	if peek, _ := srv.QueueClient(t).NewQueueClient("qqq").PeekMessages(ctx, nil); len(peek.Messages) != 0 {
		t.Fatal("a message outlived its TTL on the moved clock")
	}
	srv.Reset(t, lazulitest.Account)
	pager := srv.TableClient(t).NewListTablesPager(&aztables.ListTablesOptions{})
	page, err := pager.NextPage(ctx)
	if err != nil || len(page.Tables) != 0 {
		t.Fatalf("tables after reset: %v %v", page.Tables, err)
	}
	// The account is as new: its $logs system container is back.
	containers, err := srv.BlobClient(t).NewListContainersPager(&azblob.ListContainersOptions{
		Include: azblob.ListContainersInclude{System: true}}).NextPage(ctx)
	if err != nil || len(containers.ContainerItems) != 1 || *containers.ContainerItems[0].Name != "$logs" {
		t.Fatalf("system containers after reset: %v", err)
	}
}
