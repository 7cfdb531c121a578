package queue

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/lazuli-storage/lazuli/internal/base/clock"
	"github.com/lazuli-storage/lazuli/internal/engine/store"
	"github.com/lazuli-storage/lazuli/internal/engine/store/memory"
	"github.com/lazuli-storage/lazuli/internal/frame/server"
)

// putBacklog stores count messages visible at now and expiring ttl later,
// straight into the store a batch per transaction (far faster than Put
// Message), with insertion sequences below any enqueue issues, so they sort
// ahead of every message put afterwards.
func putBacklog(ctx context.Context, st store.Store, account, queue string, count int, now time.Time, ttl time.Duration) error {
	const batch = 5000
	prefix := msgPrefix(account, queue)
	at := nanos(now)
	for start := 0; start < count; start += batch {
		err := st.Update(ctx, func(tx store.Tx) error {
			for i := start; i < min(start+batch, count); i++ {
				m := message{VisibleAt: at, Seq: uint64(i), Inserted: at, Expires: at + uint64(ttl), Text: []byte("expired")}
				m.ID[0], m.ID[1], m.ID[2] = byte(i>>16), byte(i>>8), byte(i)
				if err := tx.Put(msgKey(prefix, m.VisibleAt, m.Seq, &m.ID), encodeValue(&m)); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// backlogQueue is a service on st (its reaper not running) with queue
// "a/q" holding count messages that expired a second ago ahead of one that
// never expires.
func backlogQueue(t *testing.T, st store.Store, count int) (*Service, *clock.Fake) {
	t.Helper()
	fake := clock.NewFake(time.Now())
	s, err := New(server.Deps{Store: st, Clock: fake})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := st.Update(ctx, func(tx store.Tx) error { return tx.Put(queueKey("a", "q"), queueRecord{}.encode()) }); err != nil {
		t.Fatal(err)
	}
	if err := putBacklog(ctx, st, "a", "q", count, fake.Now(), time.Second); err != nil {
		t.Fatal(err)
	}
	if _, err := s.enqueue(ctx, "a", "q", []byte("live"), putParams{TTL: -1}); err != nil {
		t.Fatal(err)
	}
	fake.Advance(2 * time.Second)
	return s, fake
}

// A visible message that never expires, behind many times expiredBound
// expired ones, is what Peek and Get answer on their first call, with no
// reaper to clear the way (Azure REST "Peek Messages", "Get Messages": an
// expired message is never returned, a visible one is). Get hides it for
// its visibility timeout and counts the delivery.
func TestPeekAndGetReachPastExpiredBacklog(t *testing.T) {
	const backlog = 20 * expiredBound
	s, fake := backlogQueue(t, memory.New(), backlog)
	ctx := context.Background()
	for _, n := range []int{1, 32} {
		got, err := s.peek(ctx, "a", "q", n)
		if err != nil || len(got) != 1 || string(got[0].Text) != "live" || got[0].Dequeues != 0 {
			t.Fatalf("peek %d: %d messages %v", n, len(got), err)
		}
	}

	got, err := s.dequeue(ctx, "a", "q", 32, 30*time.Second)
	if err != nil || len(got) != 1 || string(got[0].Text) != "live" {
		t.Fatalf("get: %d messages %v", len(got), err)
	}
	if m := got[0]; m.Dequeues != 1 || m.VisibleAt != nanos(fake.Now().Add(30*time.Second)) {
		t.Fatalf("delivered with dequeue count %d, visible at %v", m.Dequeues, instant(m.VisibleAt))
	}
	if again, err := s.peek(ctx, "a", "q", 32); err != nil || len(again) != 0 {
		t.Fatalf("peek of the hidden message: %d messages %v", len(again), err)
	}

	fake.Advance(31 * time.Second)
	got, err = s.dequeue(ctx, "a", "q", 1, time.Second)
	if err != nil || len(got) != 1 || got[0].Dequeues != 2 {
		t.Fatalf("second delivery: %+v %v", got, err)
	}
}

// The same while the reaper clears the backlog concurrently: whatever it
// has deleted so far, Peek and Get find the live message.
func TestPeekAndGetWhileReaping(t *testing.T) {
	s, _ := backlogQueue(t, memory.New(), 20*expiredBound)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan struct{})
	go func() { defer close(done); s.Run(ctx) }()
	defer func() { cancel(); <-done }()
	s.reaper.request("a", "q")

	for i := 0; i < 3; i++ {
		got, err := s.peek(ctx, "a", "q", 1)
		if err != nil || len(got) != 1 || string(got[0].Text) != "live" {
			t.Fatalf("peek %d: %d messages %v", i, len(got), err)
		}
	}
	got, err := s.dequeue(ctx, "a", "q", 1, time.Minute)
	if err != nil || len(got) != 1 || string(got[0].Text) != "live" || got[0].Dequeues != 1 {
		t.Fatalf("get: %+v %v", got, err)
	}
}

// Consumers racing behind a backlog each receive distinct live messages,
// and together all of them: a consumer that skipped the backlog and finds
// the message it aimed at taken goes on to the next one, and none answers
// "empty" while a live message is still visible.
func TestConsumersRaceBehindBacklog(t *testing.T) {
	const live, consumers = 50, 8
	st := memory.New()
	s, fake := backlogQueue(t, st, 20*expiredBound)
	ctx := context.Background()
	// The other live messages lie behind a second backlog, visible since a
	// second ago and expired half a second later.
	if err := putBacklog(ctx, st, "a", "q", 20*expiredBound, fake.Now().Add(-time.Second), time.Second/2); err != nil {
		t.Fatal(err)
	}
	for i := 1; i < live; i++ {
		if _, err := s.enqueue(ctx, "a", "q", []byte("live"), putParams{TTL: time.Hour}); err != nil {
			t.Fatal(err)
		}
	}
	var mu sync.Mutex
	seen := map[[idLen]byte]int{}
	var wg sync.WaitGroup
	for c := 0; c < consumers; c++ {
		wg.Go(func() {
			for {
				got, err := s.dequeue(ctx, "a", "q", 3, time.Minute)
				if err != nil {
					t.Error(err)
					return
				}
				if len(got) == 0 {
					return
				}
				mu.Lock()
				for _, m := range got {
					seen[m.ID]++
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if len(seen) != live {
		t.Fatalf("%d distinct messages delivered, want %d", len(seen), live)
	}
	for id, n := range seen {
		if n != 1 {
			t.Fatalf("message %x delivered %d times", id, n)
		}
	}
}
