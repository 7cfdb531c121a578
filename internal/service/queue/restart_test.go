package queue_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/storage/azqueue"

	"github.com/lazuli-storage/lazuli/internal/check/lazulitest"
)

// Queues, messages, receipts and visibility survive a restart.
func TestRestart(t *testing.T) {
	e := start(t, lazulitest.Options{})
	q := e.queue("durable")
	if _, err := q.SetMetadata(e.ctx, &azqueue.SetMetadataOptions{Metadata: map[string]*string{"k": ptr("v")}}); err != nil {
		t.Fatal(err)
	}
	e.put(q, "first", nil)
	e.put(q, "second", nil)
	e.put(q, "hidden", &azqueue.EnqueueMessageOptions{VisibilityTimeout: ptr(int32(600))})
	taken := e.get(q, 1, 60)[0]

	e.in.Restart(t)
	e.connect()
	q = e.svc.NewQueueClient("durable")

	props, err := q.GetProperties(e.ctx, nil)
	if err != nil || *props.ApproximateMessagesCount != 3 || *props.Metadata["K"] != "v" {
		t.Fatalf("after restart: %+v %v", props, err)
	}
	// "first" is still hidden; "second" is next.
	got := e.get(q, 32, 60)
	if len(got) != 1 || *got[0].MessageText != "second" {
		t.Fatalf("visible after restart: %+v", got)
	}
	// The receipt from before the restart still deletes its message.
	if _, err := q.DeleteMessage(e.ctx, *taken.MessageID, *taken.PopReceipt, nil); err != nil {
		t.Fatalf("delete with a receipt from before the restart: %v", err)
	}
	_, err = q.DeleteMessage(e.ctx, *taken.MessageID, *taken.PopReceipt, nil)
	wantError(t, err, http.StatusNotFound, "MessageNotFound")
	e.advance(10 * time.Minute)
	got = e.get(q, 32, 60)
	if len(got) != 2 || *got[0].MessageText != "second" || *got[1].MessageText != "hidden" {
		t.Fatalf("after the timeouts: %+v", got)
	}
}
