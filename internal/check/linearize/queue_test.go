package linearize

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azqueue"
	"github.com/anishathalye/porcupine"
)

// hideFor is the visibility timeout of every get and hiding update, in
// seconds: with the nodes' clock standing still it never runs out, so a
// message becomes visible again only when an update says so.
const hideFor = 3600

// messagePhase is where one message is in its life.
type messagePhase int

const (
	unsent  messagePhase = iota // not yet put
	visible                     // deliverable
	hidden                      // delivered (or updated) and invisible
	deleted                     // gone for good
)

// messageState is one message as the model knows it.
type messageState struct {
	phase    messagePhase
	content  string
	receipt  string // of the latest get or update
	dequeues int64
}

// queueAction is a Put, Get, Delete or Update Message.
type queueAction string

const (
	queuePut    queueAction = "put"
	queueGet    queueAction = "get"
	queueDelete queueAction = "delete"
	queueUpdate queueAction = "update"
)

// queueInput is an action; delete and update name a message and the pop
// receipt they send, put and update the content they send, and update
// whether it hides the message again or makes it visible at once.
type queueInput struct {
	action      queueAction
	id, receipt string
	content     string
	hide        bool
}

// queueOutput is what the service answered: the ID of a put message; the
// message a get delivered (none when found is false); the new receipt of
// an update; whether a delete or update succeeded.
type queueOutput struct {
	ok       bool
	found    bool
	id       string
	content  string
	receipt  string
	dequeues int64
}

// queueModel is the sequential model of a queue under puts, gets (one
// message each), deletes and updates with pop receipts, partitioned by
// message: messages are independent, since the service promises no order.
// A get delivers a visible message and hides it with a new receipt, one
// more dequeue; a get that finds nothing needs every message not visible,
// so it belongs to every partition. Delete and update succeed exactly
// when they send the latest receipt of a message not deleted; a deleted
// message is never delivered again.
func queueModel() porcupine.Model {
	return porcupine.Model{
		Partition: partitionByMessage,
		Init:      func() any { return messageState{} },
		Step: func(state, input, output any) (bool, any) {
			s, in, out := state.(messageState), input.(queueInput), output.(queueOutput)
			switch in.action {
			case queuePut:
				return s.phase == unsent, messageState{phase: visible, content: in.content}
			case queueGet:
				if !out.found {
					return s.phase != visible, s
				}
				next := messageState{phase: hidden, content: s.content, receipt: out.receipt, dequeues: s.dequeues + 1}
				return s.phase == visible && out.content == s.content && out.dequeues == next.dequeues, next
			}
			current := (s.phase == visible || s.phase == hidden) && in.receipt == s.receipt
			if !out.ok {
				return !current, s
			}
			if in.action == queueDelete {
				return current, messageState{phase: deleted}
			}
			next := messageState{phase: visible, content: in.content, receipt: out.receipt, dequeues: s.dequeues}
			if in.hide {
				next.phase = hidden
			}
			return current, next
		},
		Equal: func(a, b any) bool { return a.(messageState) == b.(messageState) },
		DescribeOperation: func(input, output any) string {
			in, out := input.(queueInput), output.(queueOutput)
			switch in.action {
			case queuePut:
				return fmt.Sprintf("put %s -> %s", in.content, out.id)
			case queueGet:
				if !out.found {
					return "get -> nothing"
				}
				return fmt.Sprintf("get -> %s %s %s #%d", out.id, out.content, out.receipt, out.dequeues)
			}
			return fmt.Sprintf("%s %s %s hide=%v -> %v %s", in.action, in.id, in.receipt, in.hide, out.ok, out.receipt)
		},
	}
}

// partitionByMessage splits a queue history into one history per message:
// its put, the gets that delivered it, the deletes and updates naming it,
// and the gets that found nothing during its life. A get that returned
// before the put was called saw it unsent, and one called after a delete
// of it returned saw it deleted: in every linearization, so leaving them
// out keeps the partitions short without changing the verdict.
func partitionByMessage(history []porcupine.Operation) [][]porcupine.Operation {
	byID := map[string][]porcupine.Operation{}
	var empty []porcupine.Operation
	for _, op := range history {
		in, out := op.Input.(queueInput), op.Output.(queueOutput)
		switch {
		case in.action == queuePut, in.action == queueGet && out.found:
			byID[out.id] = append(byID[out.id], op)
		case in.action == queueGet:
			empty = append(empty, op)
		default:
			byID[in.id] = append(byID[in.id], op)
		}
	}
	partitions := make([][]porcupine.Operation, 0, len(byID))
	for _, ops := range byID {
		born, gone := lifetime(ops)
		for _, get := range empty {
			if get.Return >= born && get.Call <= gone {
				ops = append(ops, get)
			}
		}
		partitions = append(partitions, ops)
	}
	return partitions
}

// lifetime is when one message's operations start (its put's call) and
// when it is certainly deleted (a successful delete's return).
func lifetime(ops []porcupine.Operation) (born, gone int64) {
	born, gone = math.MaxInt64, math.MaxInt64
	for _, op := range ops {
		born = min(born, op.Call)
		if op.Input.(queueInput).action == queueDelete && op.Output.(queueOutput).ok {
			gone = min(gone, op.Return)
		}
	}
	return born, gone
}

// delivery is a message and a pop receipt some client was given for it:
// what deletes and updates send.
type delivery struct{ id, receipt string }

// deliveries is the pool of receipts clients have seen, shared so that
// clients delete and update messages others got, and send receipts an
// update has since replaced.
type deliveries struct {
	mu   sync.Mutex
	seen []delivery
}

func (d *deliveries) add(v delivery) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.seen = append(d.seen, v)
}

// pick returns one of the latest deliveries, where contention is.
func (d *deliveries) pick(r *rand.Rand) (delivery, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if len(d.seen) == 0 {
		return delivery{}, false
	}
	recent := min(len(d.seen), 16)
	return d.seen[len(d.seen)-1-r.IntN(recent)], true
}

// checkQueue records clients putting, getting, deleting and updating
// messages of one queue and checks the history against the queue model.
func checkQueue(t *testing.T, connStrs []string) {
	ctx := context.Background()
	owner, err := azqueue.NewServiceClientFromConnectionString(connStrs[0], nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := owner.CreateQueue(ctx, "getdelete", nil); err != nil {
		t.Fatal(err)
	}
	pool := &deliveries{}
	steps := make([]stepFunc, clients)
	for id := range steps {
		svc, err := azqueue.NewServiceClientFromConnectionString(connStrs[id%len(connStrs)], &azqueue.ClientOptions{ClientOptions: noRetry})
		if err != nil {
			t.Fatal(err)
		}
		q, r := svc.NewQueueClient("getdelete"), clientRand(id)
		steps[id] = func(i int) (any, any, error) { return queueStep(ctx, q, r, pool, fmt.Sprintf("c%d-%d", id, i)) }
	}
	history := record(t, steps)
	check(t, queueModel(), history, "puts, gets, deletes and updates", len(connStrs), queueOutcome)
}

// queueOutcome names an action and its result: a get that found nothing
// is a refusal; an update says whether it hid the message again.
func queueOutcome(input, output any) string {
	in, out := input.(queueInput), output.(queueOutput)
	switch in.action {
	case queuePut:
		return "put"
	case queueGet:
		return result("get", out.found, "empty")
	case queueUpdate:
		if in.hide {
			return result("update hide", out.ok, "404")
		}
		return result("update show", out.ok, "404")
	}
	return result(string(in.action), out.ok, "404")
}

// queueStep does one random action: put, get, or a delete or update of a
// delivery from the pool. Gets outnumber puts, so that the queue is often
// empty and gets that find nothing are checked too.
func queueStep(ctx context.Context, q *azqueue.QueueClient, r *rand.Rand, pool *deliveries, content string) (queueInput, queueOutput, error) {
	choice := r.IntN(10)
	d, picked := pool.pick(r)
	switch {
	case choice < 2 || choice >= 6 && !picked:
		return putMessage(ctx, q, content)
	case choice < 6:
		return getMessage(ctx, q, pool)
	case choice < 8:
		in := queueInput{action: queueDelete, id: d.id, receipt: d.receipt}
		_, err := q.DeleteMessage(ctx, d.id, d.receipt, nil)
		refused, err := refusedWith(err, 404)
		return in, queueOutput{ok: !refused}, err
	}
	return updateMessage(ctx, q, pool, d, content, r.IntN(3) > 0)
}

func putMessage(ctx context.Context, q *azqueue.QueueClient, content string) (queueInput, queueOutput, error) {
	in := queueInput{action: queuePut, content: content}
	resp, err := q.EnqueueMessage(ctx, content, nil)
	if err != nil {
		return in, queueOutput{}, err
	}
	return in, queueOutput{ok: true, id: *resp.Messages[0].MessageID}, nil
}

func getMessage(ctx context.Context, q *azqueue.QueueClient, pool *deliveries) (queueInput, queueOutput, error) {
	in := queueInput{action: queueGet}
	resp, err := q.DequeueMessage(ctx, &azqueue.DequeueMessageOptions{VisibilityTimeout: to.Ptr(int32(hideFor))})
	if err != nil || len(resp.Messages) == 0 {
		return in, queueOutput{}, err
	}
	m := resp.Messages[0]
	out := queueOutput{ok: true, found: true, id: *m.MessageID, content: *m.MessageText, receipt: *m.PopReceipt, dequeues: *m.DequeueCount}
	pool.add(delivery{out.id, out.receipt})
	return in, out, nil
}

// updateMessage replaces the content of a delivered message and either
// hides it again or makes it visible at once (visibility timeout 0), to be
// delivered again.
func updateMessage(ctx context.Context, q *azqueue.QueueClient, pool *deliveries, d delivery, content string, hide bool) (queueInput, queueOutput, error) {
	in := queueInput{action: queueUpdate, id: d.id, receipt: d.receipt, content: content, hide: hide}
	visibility := int32(0)
	if hide {
		visibility = hideFor
	}
	resp, err := q.UpdateMessage(ctx, d.id, d.receipt, content, &azqueue.UpdateMessageOptions{VisibilityTimeout: &visibility})
	if refused, err := refusedWith(err, 404); err != nil || refused {
		return in, queueOutput{}, err
	}
	out := queueOutput{ok: true, receipt: *resp.PopReceipt}
	pool.add(delivery{d.id, out.receipt})
	return in, out, nil
}

// TestQueueModelRefusesBadHistories: the queue model is not vacuous — each
// history below breaks one promise of the queue and is found not
// linearizable, while the same history with the step that makes it legal
// is accepted.
func TestQueueModelRefusesBadHistories(t *testing.T) {
	put := op(0, 0, queueInput{action: queuePut, content: "m"}, queueOutput{ok: true, id: "1"})
	got := op(1, 1, queueInput{action: queueGet}, queueOutput{ok: true, found: true, id: "1", content: "m", receipt: "r1", dequeues: 1})
	gotAgain := op(2, 3, queueInput{action: queueGet}, queueOutput{ok: true, found: true, id: "1", content: "m", receipt: "r2", dequeues: 2})
	gotNothing := op(2, 3, queueInput{action: queueGet}, queueOutput{})
	shown := op(0, 2, queueInput{action: queueUpdate, id: "1", receipt: "r1", content: "m"}, queueOutput{ok: true, receipt: "r1b"})
	deleted := op(0, 2, queueInput{action: queueDelete, id: "1", receipt: "r1"}, queueOutput{ok: true})
	deletedAgain := op(2, 3, queueInput{action: queueDelete, id: "1", receipt: "r1"}, queueOutput{ok: true})
	for _, c := range []struct {
		name      string
		bad, good []porcupine.Operation
	}{
		{"delivered twice while invisible", hist(put, got, gotAgain), hist(put, got, shown, gotAgain)},
		{"nothing delivered while a message is visible", hist(put, gotNothing), hist(put, got, gotNothing)},
		{"deleted twice with one receipt", hist(put, got, deleted, deletedAgain), hist(put, got, deleted, refused(deletedAgain))},
		{"delivered after its delete", hist(put, got, deleted, gotAgain), hist(put, got, shown, gotAgain)},
		{"deleted with a replaced receipt", hist(put, got, shown, deletedAgain), hist(put, got, deleted)},
	} {
		if porcupine.CheckOperations(queueModel(), c.bad) {
			t.Errorf("%s: accepted", c.name)
		}
		if !porcupine.CheckOperations(queueModel(), c.good) {
			t.Errorf("%s: the legal history was refused", c.name)
		}
	}
}

// op is operation number n of client, taking the n-th slot of ten units.
func op(client, n int, in queueInput, out queueOutput) porcupine.Operation {
	return porcupine.Operation{ClientId: client, Input: in, Call: int64(n) * 10, Output: out, Return: int64(n)*10 + 5}
}

func hist(ops ...porcupine.Operation) []porcupine.Operation { return ops }

// refused is o answered with a refusal.
func refused(o porcupine.Operation) porcupine.Operation {
	o.Output = queueOutput{}
	return o
}
