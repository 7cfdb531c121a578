package cluster_test

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azqueue"
)

func (c *cluster) queue(n int, name string) *azqueue.QueueClient {
	return c.queues[n%nodes].NewQueueClient(name)
}

// Sixteen consumers, half on each node, drain a thousand messages that
// producers on both nodes enqueued: every message is delivered exactly
// once (no duplicate while its visibility timeout holds, none lost).
func TestQueueDrainAcrossNodes(t *testing.T) {
	c := startCluster(t, "queue")
	_, err := c.queue(0, "drain").Create(c.ctx, nil)
	must(t, err)
	const total, producers, consumers = 1000, 8, 16
	var wg sync.WaitGroup
	for p := range producers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			q := c.queue(p, "drain")
			for i := p; i < total; i += producers {
				if _, err := q.EnqueueMessage(c.ctx, fmt.Sprint(i), nil); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	if t.Failed() {
		return
	}

	var mu sync.Mutex
	seen := map[string]int{}
	for n := range consumers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			q := c.queue(n, "drain")
			for {
				resp, err := q.DequeueMessages(c.ctx, &azqueue.DequeueMessagesOptions{
					NumberOfMessages: to.Ptr(int32(16)), VisibilityTimeout: to.Ptr(int32(300))})
				if err != nil {
					t.Error(err)
					return
				}
				if len(resp.Messages) == 0 {
					return
				}
				for _, m := range resp.Messages {
					mu.Lock()
					seen[*m.MessageText]++
					mu.Unlock()
					if _, err := q.DeleteMessage(c.ctx, *m.MessageID, *m.PopReceipt, nil); err != nil {
						t.Error(err)
						return
					}
				}
			}
		}()
	}
	wg.Wait()
	if len(seen) != total {
		t.Fatalf("%d distinct messages delivered, want %d", len(seen), total)
	}
	for text, k := range seen {
		if k != 1 {
			t.Fatalf("message %s delivered %d times", text, k)
		}
	}
	for n := range nodes {
		props, err := c.queue(n, "drain").GetProperties(c.ctx, nil)
		must(t, err)
		if *props.ApproximateMessagesCount != 0 {
			t.Fatalf("node %d counts %d messages left", n+1, *props.ApproximateMessagesCount)
		}
	}
}

// A message received through node 1 is invisible through node 2 until its
// visibility timeout passes by the shared clock; its pop receipt works on
// either node until a new delivery replaces it.
func TestQueueVisibilityAcrossNodes(t *testing.T) {
	c := startCluster(t, "queue")
	q1, q2 := c.queue(0, "vis"), c.queue(1, "vis")
	_, err := q1.Create(c.ctx, nil)
	must(t, err)
	_, err = q2.EnqueueMessage(c.ctx, "hello", nil)
	must(t, err)
	got, err := q1.DequeueMessage(c.ctx, &azqueue.DequeueMessageOptions{VisibilityTimeout: to.Ptr(int32(30))})
	must(t, err)
	if len(got.Messages) != 1 {
		t.Fatalf("node 1 received %d messages", len(got.Messages))
	}
	first := got.Messages[0]
	none, err := q2.DequeueMessage(c.ctx, nil)
	must(t, err)
	if len(none.Messages) != 0 {
		t.Fatal("node 2 delivered a message node 1 holds invisible")
	}
	upd, err := q2.UpdateMessage(c.ctx, *first.MessageID, *first.PopReceipt, "hello again",
		&azqueue.UpdateMessageOptions{VisibilityTimeout: to.Ptr(int32(30))})
	must(t, err)

	c.advance(t, 31*time.Second)
	again, err := q2.DequeueMessage(c.ctx, nil)
	must(t, err)
	if len(again.Messages) != 1 || *again.Messages[0].MessageText != "hello again" || *again.Messages[0].DequeueCount != 2 {
		t.Fatalf("node 2 after the timeout: %+v", again.Messages)
	}
	_, err = q1.DeleteMessage(c.ctx, *first.MessageID, *upd.PopReceipt, nil)
	wantError(t, err, 404, "MessageNotFound")
	_, err = q1.DeleteMessage(c.ctx, *first.MessageID, *again.Messages[0].PopReceipt, nil)
	must(t, err)
}
