package table_test

import (
	"errors"
	"sync"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/data/aztables"
	"github.com/lazuli-storage/lazuli/internal/check/lazulitest"
)

// TestConcurrentMergeLosesNoUpdate runs 16 writers that each increment a
// counter with read, merge-with-If-Match and retry on 412: optimistic
// concurrency must serialise them so the final count is exact.
func TestConcurrentMergeLosesNoUpdate(t *testing.T) {
	e := start(t, lazulitest.Options{})
	tc := e.table(t, "counter")
	if _, err := tc.AddEntity(e.ctx, mustJSON(t, map[string]any{"PartitionKey": "c", "RowKey": "c", "N": 0}), nil); err != nil {
		t.Fatal(err)
	}
	const writers, increments = 16, 10
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; i < increments; i++ {
				if err := increment(e, tc, w); err != nil {
					errs <- err
					return
				}
			}
		}(w)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	got, err := tc.GetEntity(e.ctx, "c", "c", nil)
	if err != nil {
		t.Fatal(err)
	}
	if n := decode(t, got.Value)["N"].(float64); n != writers*increments {
		t.Fatalf("counter = %v, want %d", n, writers*increments)
	}
}

func increment(e *env, tc *aztables.Client, writer int) error {
	for {
		got, err := tc.GetEntity(e.ctx, "c", "c", nil)
		if err != nil {
			return err
		}
		var ent map[string]any
		if err := jsonUnmarshal(got.Value, &ent); err != nil {
			return err
		}
		n := int(ent["N"].(float64))
		body, _ := jsonMarshal(map[string]any{"PartitionKey": "c", "RowKey": "c", "N": n + 1, "Last": writer})
		_, err = tc.UpdateEntity(e.ctx, body, &aztables.UpdateEntityOptions{IfMatch: &got.ETag, UpdateMode: aztables.UpdateModeMerge})
		var re *azcore.ResponseError
		if errors.As(err, &re) && re.StatusCode == 412 {
			continue
		}
		return err
	}
}
