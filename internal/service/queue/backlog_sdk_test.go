package queue_test

import (
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/storage/azqueue"

	"github.com/lazuli-storage/lazuli/internal/check/lazulitest"
	"github.com/lazuli-storage/lazuli/internal/service/queue"
)

// Over the wire, with the server's reaper running: a message that never
// expires behind thousands of expired ones is what the first Peek Messages
// and the first Get Messages answer (Azure REST "Peek Messages", "Get
// Messages"), and the approximate count is not lower than the one live
// message (Azure REST "Get Queue Metadata").
func TestLiveMessageBehindExpiredBacklog(t *testing.T) {
	const backlog = 5000
	e := start(t, lazulitest.Options{InMemory: true})
	for _, name := range []string{"peeked", "dequeued"} {
		e.queue(name)
		if err := queue.PutBacklog(e.ctx, e.in.App.Store, lazulitest.Account, name, backlog, e.in.Fake.Now(), time.Second); err != nil {
			t.Fatal(err)
		}
		e.put(e.svc.NewQueueClient(name), "live", &azqueue.EnqueueMessageOptions{TimeToLive: ptr(int32(-1))})
	}
	e.advance(2 * time.Second)

	peeked := e.svc.NewQueueClient("peeked")
	if got := e.peek(peeked, 32); len(got) != 1 || *got[0].MessageText != "live" {
		t.Fatalf("first peek: %d messages", len(got))
	}
	if n := e.count(peeked); n < 1 {
		t.Fatalf("approximate count %d with a live message", n)
	}

	dequeued := e.svc.NewQueueClient("dequeued")
	got := e.get(dequeued, 32, 30)
	if len(got) != 1 || *got[0].MessageText != "live" || *got[0].DequeueCount != 1 {
		t.Fatalf("first get: %d messages", len(got))
	}
	if want := e.in.Fake.Now().Add(30 * time.Second); !got[0].TimeNextVisible.Equal(want.Truncate(time.Second)) {
		t.Fatalf("next visible %v, want %v", got[0].TimeNextVisible, want)
	}
	if again := e.peek(dequeued, 32); len(again) != 0 {
		t.Fatalf("peek of the hidden message: %d messages", len(again))
	}
}
