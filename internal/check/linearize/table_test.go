package linearize

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/data/aztables"
	"github.com/anishathalye/porcupine"
)

// entityState is the entity as the model knows it: its two properties and
// its ETag.
type entityState struct{ a, b, etag string }

// mergeInput is a read, or a Merge Entity setting one property (A or B)
// to value, conditional on ifMatch ("*" for an unconditional merge).
type mergeInput struct {
	merge    bool
	ifMatch  string
	property string
	value    string
}

// mergeOutput is a read's properties and ETag, or a merge's success (with
// the new ETag) or 412.
type mergeOutput struct {
	a, b, etag string
	ok         bool
}

// entityRegister is the sequential model of one entity under reads and
// merges: a read returns the current properties and ETag; a merge
// succeeds exactly when its If-Match is * or names the current ETag, and
// then sets its one property, keeps the other, and gives the entity the
// ETag the service answered with.
func entityRegister(initial entityState) porcupine.Model {
	return porcupine.Model{
		Init: func() any { return initial },
		Step: func(state, input, output any) (bool, any) {
			s, in, out := state.(entityState), input.(mergeInput), output.(mergeOutput)
			if !in.merge {
				return out.a == s.a && out.b == s.b && out.etag == s.etag, s
			}
			matches := in.ifMatch == "*" || in.ifMatch == s.etag
			if !out.ok {
				return !matches, s
			}
			next := s
			next.etag = out.etag
			if in.property == "A" {
				next.a = in.value
			} else {
				next.b = in.value
			}
			return matches, next
		},
		Equal: func(a, b any) bool { return a.(entityState) == b.(entityState) },
		DescribeOperation: func(input, output any) string {
			in, out := input.(mergeInput), output.(mergeOutput)
			if in.merge {
				return fmt.Sprintf("merge %s=%s if %s -> %v %s", in.property, in.value, in.ifMatch, out.ok, out.etag)
			}
			return fmt.Sprintf("read -> A=%s B=%s %s", out.a, out.b, out.etag)
		},
	}
}

// checkTableMerges records clients reading one entity and merging it,
// mostly with If-Match on the ETag they read, sometimes unconditionally,
// and checks the history against the entity model.
func checkTableMerges(t *testing.T, connStrs []string) {
	ctx := context.Background()
	owner, err := aztables.NewServiceClientFromConnectionString(connStrs[0], nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := owner.CreateTable(ctx, "merges", nil); err != nil {
		t.Fatal(err)
	}
	first, err := owner.NewClient("merges").AddEntity(ctx, entityJSON(map[string]string{"A": "v0", "B": "v0"}), nil)
	if err != nil {
		t.Fatal(err)
	}
	steps := make([]stepFunc, clients)
	for id := range steps {
		svc, err := aztables.NewServiceClientFromConnectionString(connStrs[id%len(connStrs)], &aztables.ClientOptions{ClientOptions: noRetry})
		if err != nil {
			t.Fatal(err)
		}
		tc, r := svc.NewClient("merges"), clientRand(id)
		steps[id] = func(i int) (any, any, error) { return mergeStep(ctx, tc, r, fmt.Sprintf("c%d-%d", id, i)) }
	}
	initial := entityState{"v0", "v0", string(first.ETag)}
	check(t, entityRegister(initial), record(t, steps), "entity reads and merges", len(connStrs), mergeOutcome)
}

// mergeOutcome names a read, or a merge (conditional or not) and its
// result.
func mergeOutcome(input, output any) string {
	in := input.(mergeInput)
	switch {
	case !in.merge:
		return "read"
	case in.ifMatch == "*":
		return result("merge *", output.(mergeOutput).ok, "412")
	}
	return result("merge if-match", output.(mergeOutput).ok, "412")
}

// mergeStep reads the entity, then either reports the read or merges
// value into property A or B: with If-Match on the ETag read (most often)
// or unconditionally (If-Match *).
func mergeStep(ctx context.Context, tc *aztables.Client, r *rand.Rand, value string) (mergeInput, mergeOutput, error) {
	got, err := tc.GetEntity(ctx, "p", "r", nil)
	if err != nil {
		return mergeInput{}, mergeOutput{}, err
	}
	var props map[string]any
	if err := json.Unmarshal(got.Value, &props); err != nil {
		return mergeInput{}, mergeOutput{}, err
	}
	read := mergeOutput{a: fmt.Sprint(props["A"]), b: fmt.Sprint(props["B"]), etag: string(got.ETag)}
	choice := r.IntN(5)
	if choice < 2 {
		return mergeInput{}, read, nil
	}
	in := mergeInput{merge: true, ifMatch: read.etag, property: []string{"A", "B"}[r.IntN(2)], value: value}
	opts := &aztables.UpdateEntityOptions{UpdateMode: aztables.UpdateModeMerge, IfMatch: &got.ETag}
	if choice == 4 {
		in.ifMatch = "*"
		opts.IfMatch = nil // the SDK sends If-Match: *
	}
	resp, err := tc.UpdateEntity(ctx, entityJSON(map[string]string{in.property: value}), opts)
	if refused, err := refusedWith(err, 412); err != nil || refused {
		return in, mergeOutput{}, err
	}
	return in, mergeOutput{ok: true, etag: string(resp.ETag)}, nil
}

// entityJSON is the entity p/r with the given string properties.
func entityJSON(props map[string]string) []byte {
	e := map[string]string{"PartitionKey": "p", "RowKey": "r"}
	for k, v := range props {
		e[k] = v
	}
	body, _ := json.Marshal(e)
	return body
}

// TestEntityModelRefusesLostUpdates: the entity model is not vacuous — a
// second merge conditional on an ETag a completed merge replaced is found
// not linearizable, and so is a read after merges of A and then B that
// lost A (a merge that replaced the entity).
func TestEntityModelRefusesLostUpdates(t *testing.T) {
	initial := entityState{"v0", "v0", "e0"}
	mergeA := porcupine.Operation{ClientId: 0, Input: mergeInput{merge: true, ifMatch: "e0", property: "A", value: "a1"},
		Call: 0, Output: mergeOutput{ok: true, etag: "e1"}, Return: 10}
	staleMerge := porcupine.Operation{ClientId: 1, Input: mergeInput{merge: true, ifMatch: "e0", property: "B", value: "b1"},
		Call: 20, Output: mergeOutput{ok: true, etag: "e2"}, Return: 30}
	if porcupine.CheckOperations(entityRegister(initial), []porcupine.Operation{mergeA, staleMerge}) {
		t.Fatal("a merge on a replaced ETag was accepted")
	}
	mergeB := staleMerge
	mergeB.Input = mergeInput{merge: true, ifMatch: "*", property: "B", value: "b1"}
	read := porcupine.Operation{ClientId: 2, Input: mergeInput{}, Call: 40, Output: mergeOutput{a: "v0", b: "b1", etag: "e2"}, Return: 50}
	if porcupine.CheckOperations(entityRegister(initial), []porcupine.Operation{mergeA, mergeB, read}) {
		t.Fatal("a read that lost a merged property was accepted")
	}
	read.Output = mergeOutput{a: "a1", b: "b1", etag: "e2"}
	if !porcupine.CheckOperations(entityRegister(initial), []porcupine.Operation{mergeA, mergeB, read}) {
		t.Fatal("a read of both merges was refused")
	}
}
