//go:build sdkbench

package bench

import (
	"context"
	"errors"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azqueue"
)

// The SDK versions of the queue scenarios in scenarios_queue.go.

// messageText is the text of messageBody, which the SDK wraps in the same
// QueueMessage document.
const messageText = "bench-message-0123456789"

func sdkWithQueue(ctx context.Context, e *env) (*azqueue.QueueClient, func(context.Context), error) {
	qc := e.sdk.queue.NewQueueClient(e.prefix)
	if _, err := qc.Create(ctx, nil); err != nil {
		return nil, nil, err
	}
	return qc, func(ctx context.Context) { _, _ = qc.Delete(ctx, nil) }, nil
}

func sdkPutMessage(ctx context.Context, qc *azqueue.QueueClient) error {
	_, err := qc.EnqueueMessage(ctx, messageText, nil)
	return err
}

func sdkQueuePut(ctx context.Context, e *env) (op, func(context.Context), error) {
	qc, cleanup, err := sdkWithQueue(ctx, e)
	if err != nil {
		return nil, nil, err
	}
	return func(ctx context.Context, w, seq int) (int64, error) {
		return int64(len(messageBody)), sdkPutMessage(ctx, qc)
	}, cleanup, nil
}

// sdkQueueGetDelete keeps QueueDepth messages queued, as queueGetDelete
// does: receive one, delete it with its pop receipt, put one back.
func sdkQueueGetDelete(ctx context.Context, e *env) (op, func(context.Context), error) {
	depth := e.opts.QueueDepth
	if depth <= 0 {
		depth = 2000
	}
	qc, cleanup, err := sdkWithQueue(ctx, e)
	if err != nil {
		return nil, nil, err
	}
	if err := parallel(ctx, depth, 32, func(ctx context.Context, _ int) error { return sdkPutMessage(ctx, qc) }); err != nil {
		cleanup(ctx)
		return nil, nil, err
	}
	return func(ctx context.Context, w, seq int) (int64, error) {
		got, err := qc.DequeueMessage(ctx, &azqueue.DequeueMessageOptions{VisibilityTimeout: to.Ptr[int32](30)})
		if err != nil {
			return 0, err
		}
		if len(got.Messages) == 0 || got.Messages[0].MessageID == nil || got.Messages[0].PopReceipt == nil {
			// The null target answers with no message at all.
			if e.sdk.target.null == nil {
				return 0, errors.New("queue empty")
			}
		} else {
			m := got.Messages[0]
			if _, err := qc.DeleteMessage(ctx, *m.MessageID, *m.PopReceipt, nil); err != nil {
				return 0, err
			}
		}
		return 0, sdkPutMessage(ctx, qc)
	}, cleanup, nil
}
