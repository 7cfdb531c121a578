package bench

import (
	"context"
	"errors"
	"net/http"
	"net/url"

	"github.com/lazuli-storage/lazuli/internal/rule/auth"
)

func queueScenarios() []scenario {
	return []scenario{
		{name: "queue-put", svc: auth.Queue, setup: queuePut},
		{name: "queue-get-delete", svc: auth.Queue, setup: queueGetDelete},
	}
}

var messageBody = []byte(`<QueueMessage><MessageText>bench-message-0123456789</MessageText></QueueMessage>`)

func queueCall(method, path string, q url.Values, body []byte) call {
	return call{svc: auth.Queue, method: method, path: path, query: q, body: body,
		header: http.Header{"Content-Type": {"application/xml"}}}
}

func withQueue(ctx context.Context, e *env) (string, func(context.Context), error) {
	name := e.prefix
	if _, err := e.c.do(ctx, queueCall("PUT", "/"+name, nil, nil)); err != nil {
		return "", nil, err
	}
	return name, func(ctx context.Context) { _, _ = e.c.do(ctx, queueCall("DELETE", "/"+name, nil, nil)) }, nil
}

func putMessage(ctx context.Context, c *client, queue string) error {
	_, err := c.do(ctx, queueCall("POST", "/"+queue+"/messages", nil, messageBody))
	return err
}

func queuePut(ctx context.Context, e *env) (op, func(context.Context), error) {
	queue, cleanup, err := withQueue(ctx, e)
	if err != nil {
		return nil, nil, err
	}
	return func(ctx context.Context, w, seq int) (int64, error) {
		return int64(len(messageBody)), putMessage(ctx, e.c, queue)
	}, cleanup, nil
}

// queueGetDelete keeps QueueDepth messages queued: each op receives one
// message, deletes it with its pop receipt, and puts one back.
func queueGetDelete(ctx context.Context, e *env) (op, func(context.Context), error) {
	depth := e.opts.QueueDepth
	if depth <= 0 {
		depth = 2000
	}
	queue, cleanup, err := withQueue(ctx, e)
	if err != nil {
		return nil, nil, err
	}
	if err := parallel(ctx, depth, 32, func(ctx context.Context, _ int) error { return putMessage(ctx, e.c, queue) }); err != nil {
		cleanup(ctx)
		return nil, nil, err
	}
	return func(ctx context.Context, w, seq int) (int64, error) {
		r, err := e.c.do(ctx, call{svc: auth.Queue, method: "GET", path: "/" + queue + "/messages",
			query: url.Values{"numofmessages": {"1"}, "visibilitytimeout": {"30"}}, sink: keepBody})
		if err != nil {
			return 0, err
		}
		id, receipt := xmlElement(r.body, "MessageId"), xmlElement(r.body, "PopReceipt")
		if id == "" && e.c.target.null == nil {
			return 0, errors.New("queue empty")
		}
		if id != "" {
			q := url.Values{"popreceipt": {receipt}}
			if _, err := e.c.do(ctx, queueCall("DELETE", "/"+queue+"/messages/"+id, q, nil)); err != nil {
				return 0, err
			}
		}
		return 0, putMessage(ctx, e.c, queue)
	}, cleanup, nil
}
