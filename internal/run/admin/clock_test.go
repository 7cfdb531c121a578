package admin_test

import (
	"context"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/lease"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azqueue"

	"github.com/lazuli-storage/lazuli/internal/base/clock"
	"github.com/lazuli-storage/lazuli/internal/check/lazulitest"
)

type clockAnswer struct {
	Now time.Time `json:"now"`
}

// The server's own clock (the one lazuli runs with) moves through the API.
func TestClockEndpoints(t *testing.T) {
	in := lazulitest.Start(t, lazulitest.Options{InMemory: true, Clock: clock.NewControlled(), Services: []string{"blob"}})
	var c clockAnswer
	call(t, in, "GET", "/clock", "", 200, &c)
	if d := time.Since(c.Now); d < -time.Minute || d > time.Minute {
		t.Fatalf("GET /clock = %v, far from the system clock", c.Now)
	}
	call(t, in, "POST", "/clock/advance?by=36h", "", 200, &c)
	if d := time.Until(c.Now); d < 35*time.Hour {
		t.Fatalf("after advancing 36h the clock is only %v ahead", d)
	}
	at := "2031-02-03T04:05:06Z"
	call(t, in, "POST", "/clock/pin?at="+at, "", 200, &c)
	if c.Now.Format(time.RFC3339) != at {
		t.Fatalf("pinned at %v, want %s", c.Now, at)
	}
	call(t, in, "POST", "/clock/advance?by=90s", "", 200, &c)
	if c.Now.Format(time.RFC3339) != "2031-02-03T04:06:36Z" {
		t.Fatalf("pinned clock advanced by 90s = %v", c.Now)
	}
	call(t, in, "GET", "/clock", "", 200, &c)
	if c.Now.Format(time.RFC3339) != "2031-02-03T04:06:36Z" {
		t.Fatalf("a pinned clock moved by itself: %v", c.Now)
	}
	call(t, in, "POST", "/clock/release", "", 200, &c)
	if c.Now.Before(time.Date(2031, 2, 3, 4, 6, 36, 0, time.UTC)) {
		t.Fatalf("released clock went back: %v", c.Now)
	}
	for _, bad := range []string{"/clock/advance?by=-5s", "/clock/advance?by=soon", "/clock/advance", "/clock/pin?at=yesterday"} {
		call(t, in, "POST", bad, "", 400, nil)
	}
	call(t, in, "PUT", "/clock", "", 405, nil)
}

// Advancing the clock past a lease's duration expires it at once: another
// caller acquires it without waiting.
func TestAdvanceExpiresLease(t *testing.T) {
	in := lazulitest.Start(t, lazulitest.Options{InMemory: true, Clock: clock.NewControlled(), Services: []string{"blob"}})
	ctx := context.Background()
	client := blobClient(t, in, noRetry)
	if _, err := client.CreateContainer(ctx, "leases", nil); err != nil {
		t.Fatal(err)
	}
	if _, err := client.UploadBuffer(ctx, "leases", "b", []byte("x"), nil); err != nil {
		t.Fatal(err)
	}
	blob := client.ServiceClient().NewContainerClient("leases").NewBlobClient("b")
	first, _ := lease.NewBlobClient(blob, &lease.BlobClientOptions{LeaseID: to.Ptr("11111111-1111-1111-1111-111111111111")})
	second, _ := lease.NewBlobClient(blob, &lease.BlobClientOptions{LeaseID: to.Ptr("22222222-2222-2222-2222-222222222222")})
	if _, err := first.AcquireLease(ctx, 60, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := second.AcquireLease(ctx, 60, nil); err == nil {
		t.Fatal("a second lease was granted while the first was active")
	}
	call(t, in, "POST", "/clock/advance?by=61s", "", 200, nil)
	props, err := blob.GetProperties(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if *props.LeaseState != "expired" {
		t.Fatalf("lease state %s after advancing past its duration", *props.LeaseState)
	}
	if _, err := second.AcquireLease(ctx, 15, nil); err != nil {
		t.Fatalf("acquire after expiry: %v", err)
	}
	// A break period runs on the same clock.
	if _, err := second.BreakLease(ctx, &lease.BlobBreakOptions{BreakPeriod: to.Ptr(int32(30))}); err != nil {
		t.Fatal(err)
	}
	if props, _ := blob.GetProperties(ctx, nil); *props.LeaseState != "breaking" {
		t.Fatalf("lease state %s during the break period", *props.LeaseState)
	}
	call(t, in, "POST", "/clock/advance?by=31s", "", 200, nil)
	if props, _ := blob.GetProperties(ctx, nil); *props.LeaseState != "broken" {
		t.Fatalf("lease state %s after the break period", *props.LeaseState)
	}
}

// Advancing the clock past a message's visibility timeout makes it visible
// again at once, and past its time-to-live removes it.
func TestAdvanceEndsVisibilityTimeoutAndTTL(t *testing.T) {
	in := lazulitest.Start(t, lazulitest.Options{InMemory: true, Services: []string{"queue"}})
	ctx := context.Background()
	q := queueClient(t, in).NewQueueClient("work")
	if _, err := q.Create(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := q.EnqueueMessage(ctx, "job", &azqueue.EnqueueMessageOptions{TimeToLive: to.Ptr(int32(3600))}); err != nil {
		t.Fatal(err)
	}
	got, err := q.DequeueMessage(ctx, &azqueue.DequeueMessageOptions{VisibilityTimeout: to.Ptr(int32(300))})
	if err != nil || len(got.Messages) != 1 {
		t.Fatalf("first dequeue: %v %v", got, err)
	}
	if again, _ := q.DequeueMessage(ctx, nil); len(again.Messages) != 0 {
		t.Fatal("an invisible message was dequeued")
	}
	call(t, in, "POST", "/clock/advance?by=301s", "", 200, nil)
	again, err := q.DequeueMessage(ctx, &azqueue.DequeueMessageOptions{VisibilityTimeout: to.Ptr(int32(1))})
	if err != nil || len(again.Messages) != 1 {
		t.Fatalf("dequeue after the visibility timeout: %v %v", again, err)
	}
	if n := *again.Messages[0].DequeueCount; n != 2 {
		t.Fatalf("dequeue count %d, want 2", n)
	}
	call(t, in, "POST", "/clock/advance?by=1h", "", 200, nil)
	if peek, _ := q.PeekMessages(ctx, nil); len(peek.Messages) != 0 {
		t.Fatal("a message outlived its time-to-live")
	}
}
