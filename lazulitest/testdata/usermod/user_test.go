// Package usermod is a user's module outside Lazuli's: its test imports the
// public test package exactly as a user's would.
package usermod

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/lease"

	"github.com/lazuli-storage/lazuli/lazulitest"
)

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

	srv.Advance(61 * time.Second) // no sleeping: the lease is expired now
	props, err := blob.GetProperties(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Println("lease state:", *props.LeaseState)
	if *props.LeaseState != "expired" {
		t.Fatalf("lease %s", *props.LeaseState)
	}

	srv.InjectFault(t, lazulitest.Fault{Operation: "GetBlob", Count: 1, Status: 503})
	if _, err := client.DownloadStream(ctx, "jobs", "lock", nil); err != nil {
		t.Fatal(err) // the SDK retried the injected 503 ServerBusy
	}
	if f := srv.Faults()[0]; f.Injected != 1 {
		t.Fatalf("fault %+v", f)
	}
}
