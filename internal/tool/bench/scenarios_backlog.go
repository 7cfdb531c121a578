package bench

import (
	"context"
	"net/url"
	"strconv"
	"sync"
	"time"

	"github.com/lazuli-storage/lazuli/internal/rule/auth"
)

// expiringScenarios measure one service while another's backlog is
// cleared: Put Blob while a queue's expired messages are reaped, which once
// stalled every service behind one transaction on the single SQLite writer.
func expiringScenarios() []scenario {
	return []scenario{
		{name: "blob-put-1k-expiring", svc: auth.Blob, setup: withExpiringBacklog(putBlobs(kib))},
	}
}

// expiringTTL is the time to live of the backlog's messages, in seconds:
// the shortest the service accepts, so that they expire while or soon
// after they are put.
const expiringTTL = 1

// consumerPoll is how often the backlog's consumer asks for a message.
const consumerPoll = 100 * time.Millisecond

// withExpiringBacklog wraps a scenario: before it, Options.ExpiringMessages
// messages with a one-second time to live are put into a queue of their
// own, and once they have expired and the measured window opens, a
// consumer polls that queue with Get Messages, as an application would.
// Its first get meets the expired messages, which the server then removes
// while the scenario is measured. With no messages it is the baseline:
// the same consumer polling an empty queue.
func withExpiringBacklog(inner setupFunc) setupFunc {
	return func(ctx context.Context, e *env) (op, func(context.Context), error) {
		c, err := e.lean()
		if err != nil {
			return nil, nil, err
		}
		queue, dropQueue, err := fillExpiring(ctx, e, c)
		if err != nil {
			return nil, nil, err
		}
		do, cleanup, err := inner(ctx, e)
		if err != nil {
			dropQueue(ctx)
			return nil, nil, err
		}
		consumer := startConsumer(c, queue)
		var once sync.Once
		return func(ctx context.Context, w, seq int) (int64, error) {
				if seq >= measuredSeq {
					once.Do(consumer.start)
				}
				return do(ctx, w, seq)
			}, func(ctx context.Context) {
				consumer.stop()
				if cleanup != nil {
					cleanup(ctx)
				}
				dropQueue(ctx)
			}, nil
	}
}

// fillExpiring creates the backlog's queue, puts the expiring messages and
// waits until the last of them has expired.
func fillExpiring(ctx context.Context, e *env, c *client) (string, func(context.Context), error) {
	queue := e.prefix + "backlog"
	if _, err := c.do(ctx, queueCall("PUT", "/"+queue, nil, nil)); err != nil {
		return "", nil, err
	}
	drop := func(ctx context.Context) { _, _ = c.do(ctx, queueCall("DELETE", "/"+queue, nil, nil)) }
	ttl := url.Values{"messagettl": {strconv.Itoa(expiringTTL)}}
	n := e.size(e.opts.ExpiringMessages, min(e.opts.ExpiringMessages, 50))
	if err := parallel(ctx, n, 32, func(ctx context.Context, _ int) error {
		_, err := c.do(ctx, queueCall("POST", "/"+queue+"/messages", ttl, messageBody))
		return err
	}); err != nil {
		drop(ctx)
		return "", nil, err
	}
	if n > 0 && !e.opts.small {
		select {
		case <-time.After(expiringTTL*time.Second + 100*time.Millisecond):
		case <-ctx.Done():
			drop(ctx)
			return "", nil, ctx.Err()
		}
	}
	return queue, drop, nil
}

// consumer polls one queue with Get Messages until stopped.
type consumer struct {
	c       *client
	queue   string
	ctx     context.Context
	cancel  context.CancelFunc
	stopped sync.WaitGroup
}

func startConsumer(c *client, queue string) *consumer {
	ctx, cancel := context.WithCancel(context.Background())
	return &consumer{c: c, queue: queue, ctx: ctx, cancel: cancel}
}

// start begins polling (once, when the measured window opens).
func (k *consumer) start() {
	k.stopped.Go(func() {
		tick := time.NewTicker(consumerPoll)
		defer tick.Stop()
		for {
			// The answer does not matter: the get is there for the work
			// it makes the server do.
			_, _ = k.c.do(k.ctx, call{svc: auth.Queue, method: "GET", path: "/" + k.queue + "/messages",
				query: url.Values{"numofmessages": {"1"}}})
			select {
			case <-k.ctx.Done():
				return
			case <-tick.C:
			}
		}
	})
}

// stop ends the polling and waits for the last get.
func (k *consumer) stop() {
	k.cancel()
	k.stopped.Wait()
}

// lean is the lean client, made for the side work of an SDK-driven
// scenario when the SDK drives the measured operations.
func (e *env) lean() (*client, error) {
	if e.c != nil {
		return e.c, nil
	}
	return newClient(e.target, 32)
}
