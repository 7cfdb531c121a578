package linearize

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blockblob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/lease"
	"github.com/anishathalye/porcupine"
)

// leasePhase is the lease state a client can observe when time stands
// still: breaks have period 0 and fixed leases never run out, so the
// breaking and expired states of the lease table do not occur.
type leasePhase string

const (
	available leasePhase = "available"
	leased    leasePhase = "leased"
	broken    leasePhase = "broken"
)

// leaseState is the blob's lease as the model knows it: its phase and the
// ID it was acquired (or changed) with, kept while broken.
type leaseState struct {
	phase leasePhase
	id    string
}

// leaseAction is one of the Lease Blob actions, or a read of the blob's
// lease state.
type leaseAction string

const (
	leaseRead    leaseAction = "read"
	leaseAcquire leaseAction = "acquire"
	leaseRenew   leaseAction = "renew"
	leaseChange  leaseAction = "change"
	leaseRelease leaseAction = "release"
	leaseBreak   leaseAction = "break"
)

// leaseInput is an action with the lease ID it sends (the proposed ID of
// an acquire, the current ID otherwise) and the ID a change proposes.
type leaseInput struct {
	action leaseAction
	id, to string
}

// leaseOutput is whether the action succeeded, or the error code of its
// 409; or the state a read saw.
type leaseOutput struct {
	ok    bool
	code  string
	state leasePhase
}

// The error codes of refused lease actions (the Azure reference page "Blob
// service error codes", learn.microsoft.com/rest/api/storageservices/
// blob-service-error-codes, as the SDKs' recorded tests see them).
const (
	leaseAlreadyPresent = "LeaseAlreadyPresent"
	leaseIDMismatch     = "LeaseIdMismatchWithLeaseOperation"
	leaseNotPresent     = "LeaseNotPresentWithLeaseOperation"
	leaseIsBroken       = "LeaseIsBrokenAndCannotBeRenewed"
)

// leaseModel is the sequential model of one blob's lease (Lease Blob's
// "Outcomes of lease operations on blobs by lease state" table and its
// error codes, with break period 0): acquire succeeds unless another ID
// holds the lease; renew needs the holder's ID; change needs the holder's
// ID or proposes the ID already held; release needs the current ID, held
// or broken; break needs a lease, held or broken, and leaves it broken. A
// refusal carries the code that says which rule refused it.
func leaseModel() porcupine.Model {
	return porcupine.Model{
		Init: func() any { return leaseState{phase: available} },
		Step: func(state, input, output any) (bool, any) {
			s, in, out := state.(leaseState), input.(leaseInput), output.(leaseOutput)
			if in.action == leaseRead {
				return out.state == s.phase, s
			}
			refusal, next := leaseTransition(s, in)
			if !out.ok {
				return refusal != "" && out.code == refusal, s
			}
			return refusal == "", next
		},
		Equal: func(a, b any) bool { return a.(leaseState) == b.(leaseState) },
		DescribeOperation: func(input, output any) string {
			in, out := input.(leaseInput), output.(leaseOutput)
			if in.action == leaseRead {
				return "read -> " + string(out.state)
			}
			return fmt.Sprintf("%s %s %s -> %v %s", in.action, in.id, in.to, out.ok, out.code)
		},
		DescribeState: func(state any) string {
			s := state.(leaseState)
			return string(s.phase) + " " + s.id
		},
	}
}

// leaseTransition is the error code with which the service must refuse
// action in from state s, or "" and the state the action leaves.
func leaseTransition(s leaseState, in leaseInput) (refusal string, next leaseState) {
	held, mine := s.phase == leased, s.id == in.id // an available lease has no ID
	switch in.action {
	case leaseAcquire:
		if held && !mine {
			return leaseAlreadyPresent, s
		}
		return "", leaseState{leased, in.id}
	case leaseRenew:
		switch {
		case !mine:
			return leaseIDMismatch, s
		case !held:
			return leaseIsBroken, s
		}
		return "", s
	case leaseChange:
		switch {
		case !held:
			return leaseNotPresent, s
		case !mine && s.id != in.to:
			return leaseIDMismatch, s
		}
		return "", leaseState{leased, in.to}
	case leaseRelease:
		if !mine {
			return leaseIDMismatch, s
		}
		return "", leaseState{phase: available}
	case leaseBreak:
		if s.phase == available {
			return leaseNotPresent, s
		}
		return "", leaseState{broken, s.id}
	}
	panic("unknown lease action " + in.action)
}

// leaseIDs are the IDs clients propose and send: few, so that clients
// often hold, renew or release the lease another client acquired.
var leaseIDs = []string{
	"6b1f8a6e-0c4d-4b7e-9a51-3f2d1c0b9a01",
	"6b1f8a6e-0c4d-4b7e-9a51-3f2d1c0b9a02",
	"6b1f8a6e-0c4d-4b7e-9a51-3f2d1c0b9a03",
}

// checkLeases records clients doing random lease actions and lease-state
// reads on one blob and checks the history against the lease model.
func checkLeases(t *testing.T, connStrs []string) {
	ctx := context.Background()
	owner, _ := azblob.NewClientFromConnectionString(connStrs[0], nil)
	if _, err := owner.CreateContainer(ctx, "lease", nil); err != nil {
		t.Fatal(err)
	}
	if _, err := owner.UploadBuffer(ctx, "lease", "l", []byte("leased"), nil); err != nil {
		t.Fatal(err)
	}
	steps := make([]stepFunc, clients)
	for id := range steps {
		c, err := azblob.NewClientFromConnectionString(connStrs[id%len(connStrs)], &azblob.ClientOptions{ClientOptions: noRetry})
		if err != nil {
			t.Fatal(err)
		}
		b := c.ServiceClient().NewContainerClient("lease").NewBlockBlobClient("l")
		r := clientRand(id)
		steps[id] = func(int) (any, any, error) { return leaseStep(ctx, b, r) }
	}
	check(t, leaseModel(), record(t, steps), "lease actions and reads", len(connStrs), leaseOutcome)
}

// leaseOutcome names a read and the state it saw, or an action and its
// result.
func leaseOutcome(input, output any) string {
	in, out := input.(leaseInput), output.(leaseOutput)
	if in.action == leaseRead {
		return "read " + string(out.state)
	}
	return result(string(in.action), out.ok, "409 "+out.code)
}

// leaseStep does one random lease action, or reads the lease state.
func leaseStep(ctx context.Context, b *blockblob.Client, r *rand.Rand) (leaseInput, leaseOutput, error) {
	actions := []leaseAction{leaseRead, leaseAcquire, leaseAcquire, leaseRenew, leaseChange, leaseRelease, leaseBreak}
	in := leaseInput{action: actions[r.IntN(len(actions))], id: leaseIDs[r.IntN(len(leaseIDs))]}
	if in.action == leaseRead {
		props, err := b.GetProperties(ctx, nil)
		if err != nil {
			return in, leaseOutput{}, err
		}
		return in, leaseOutput{state: leasePhase(*props.LeaseState)}, nil
	}
	lc, err := lease.NewBlobClient(b, &lease.BlobClientOptions{LeaseID: to.Ptr(in.id)})
	if err != nil {
		return in, leaseOutput{}, err
	}
	switch in.action {
	case leaseAcquire:
		// Infinite or fixed: with time standing still both last until
		// released or broken, and the service must treat them alike.
		duration := int32(-1)
		if r.IntN(2) == 0 {
			duration = int32(15 + r.IntN(46))
		}
		_, err = lc.AcquireLease(ctx, duration, nil)
	case leaseRenew:
		_, err = lc.RenewLease(ctx, nil)
	case leaseChange:
		in.to = leaseIDs[r.IntN(len(leaseIDs))]
		_, err = lc.ChangeLease(ctx, in.to, nil)
	case leaseRelease:
		_, err = lc.ReleaseLease(ctx, nil)
	case leaseBreak:
		in.id = ""
		_, err = lc.BreakLease(ctx, &lease.BlobBreakOptions{BreakPeriod: to.Ptr(int32(0))})
	}
	var re *azcore.ResponseError
	if errors.As(err, &re) && re.StatusCode == 409 {
		return in, leaseOutput{code: re.ErrorCode}, nil
	}
	return in, leaseOutput{ok: err == nil}, err
}

// TestLeaseModelRefusesTwoHolders: the lease model is not vacuous — a
// second acquire with another ID succeeding after the first completed,
// with no release or break between, is found not linearizable; a break
// between them makes the history linearizable, and then the first
// holder's renew must be refused, with the code that says the lease is
// broken.
func TestLeaseModelRefusesTwoHolders(t *testing.T) {
	a, b := leaseIDs[0], leaseIDs[1]
	history := []porcupine.Operation{
		{ClientId: 0, Input: leaseInput{action: leaseAcquire, id: a}, Call: 0, Output: leaseOutput{ok: true}, Return: 10},
		{ClientId: 1, Input: leaseInput{action: leaseAcquire, id: b}, Call: 20, Output: leaseOutput{ok: true}, Return: 30},
	}
	if porcupine.CheckOperations(leaseModel(), history) {
		t.Fatal("two holders of one lease were accepted")
	}
	withBreak := append(history[:1:1],
		porcupine.Operation{ClientId: 2, Input: leaseInput{action: leaseBreak}, Call: 12, Output: leaseOutput{ok: true}, Return: 18},
		history[1])
	if !porcupine.CheckOperations(leaseModel(), withBreak) {
		t.Fatal("acquiring a broken lease was refused")
	}
	renewAfterBreak := append(withBreak[:2:2],
		porcupine.Operation{ClientId: 0, Input: leaseInput{action: leaseRenew, id: a}, Call: 19, Output: leaseOutput{ok: true}, Return: 19})
	if porcupine.CheckOperations(leaseModel(), renewAfterBreak) {
		t.Fatal("renewing a broken lease was accepted")
	}
	renewAfterBreak[2].Output = leaseOutput{code: leaseIDMismatch}
	if porcupine.CheckOperations(leaseModel(), renewAfterBreak) {
		t.Fatal("the holder's renew of a broken lease was accepted as refused for another ID")
	}
	renewAfterBreak[2].Output = leaseOutput{code: leaseIsBroken}
	if !porcupine.CheckOperations(leaseModel(), renewAfterBreak) {
		t.Fatal("the holder's renew of a broken lease, refused as broken, was refused")
	}
}
