package queue_test

import (
	"fmt"
	"sync"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/storage/azqueue"

	"github.com/lazuli-storage/lazuli/internal/check/lazulitest"
)

// Sixteen consumers drain a thousand messages: each message is delivered to
// exactly one of them, none is lost.
func TestConcurrentConsumers(t *testing.T) {
	for _, mem := range []bool{true, false} {
		t.Run(fmt.Sprintf("inMemory=%v", mem), func(t *testing.T) {
			e := start(t, lazulitest.Options{InMemory: mem})
			q := e.queue("drain")
			const total, consumers = 1000, 16
			var wg sync.WaitGroup
			for p := 0; p < 8; p++ {
				wg.Add(1)
				go func(p int) {
					defer wg.Done()
					for i := p; i < total; i += 8 {
						if _, err := q.EnqueueMessage(e.ctx, fmt.Sprint(i), nil); err != nil {
							t.Error(err)
							return
						}
					}
				}(p)
			}
			wg.Wait()

			var mu sync.Mutex
			seen := map[string]int{}
			for c := 0; c < consumers; c++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for {
						resp, err := q.DequeueMessages(e.ctx, &azqueue.DequeueMessagesOptions{NumberOfMessages: ptr(int32(5)), VisibilityTimeout: ptr(int32(300))})
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
							if _, err := q.DeleteMessage(e.ctx, *m.MessageID, *m.PopReceipt, nil); err != nil {
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
			for text, n := range seen {
				if n != 1 {
					t.Fatalf("message %s delivered %d times", text, n)
				}
			}
			if n := e.count(q); n != 0 {
				t.Fatalf("%d messages left", n)
			}
		})
	}
}
