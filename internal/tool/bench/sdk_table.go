//go:build sdkbench

package bench

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/data/aztables"
)

// The SDK versions of the table scenarios in scenarios_table.go.

func sdkWithTable(ctx context.Context, e *env) (*aztables.Client, func(context.Context), error) {
	tc := e.sdk.table.NewClient("t" + e.prefix)
	if _, err := tc.CreateTable(ctx, nil); err != nil {
		return nil, nil, err
	}
	return tc, func(ctx context.Context) { _, _ = tc.Delete(ctx, nil) }, nil
}

func sdkInsertEntity(ctx context.Context, tc *aztables.Client, pk, rk string, group int) error {
	_, err := tc.AddEntity(ctx, entityJSON(pk, rk, group), nil)
	return err
}

func sdkTableInsert(ctx context.Context, e *env) (op, func(context.Context), error) {
	tc, cleanup, err := sdkWithTable(ctx, e)
	if err != nil {
		return nil, nil, err
	}
	return func(ctx context.Context, w, seq int) (int64, error) {
		return 0, sdkInsertEntity(ctx, tc, fmt.Sprintf("p%d", w), fmt.Sprintf("r%08d", seq), seq%100)
	}, cleanup, nil
}

func sdkTablePointGet(ctx context.Context, e *env) (op, func(context.Context), error) {
	rows := e.size(1000, 100)
	tc, cleanup, err := sdkWithTable(ctx, e)
	if err != nil {
		return nil, nil, err
	}
	if err := parallel(ctx, rows, 16, func(ctx context.Context, i int) error {
		return sdkInsertEntity(ctx, tc, "p", fmt.Sprintf("r%05d", i), i%100)
	}); err != nil {
		cleanup(ctx)
		return nil, nil, err
	}
	return func(ctx context.Context, w, seq int) (int64, error) {
		ctx, read := countBytes(ctx)
		_, err := tc.GetEntity(ctx, "p", fmt.Sprintf("r%05d", (w*37+seq)%rows), nil)
		return read.Load(), err
	}, cleanup, nil
}

// sdkTableMergeIfMatch merges into one entity per worker, each time with
// the ETag the previous write returned, as tableMergeIfMatch does.
func sdkTableMergeIfMatch(ctx context.Context, e *env) (op, func(context.Context), error) {
	tc, cleanup, err := sdkWithTable(ctx, e)
	if err != nil {
		return nil, nil, err
	}
	etags := make([]azcore.ETag, e.workers)
	for w := range etags {
		rk := fmt.Sprintf("w%d", w)
		if err := sdkInsertEntity(ctx, tc, "m", rk, w); err != nil {
			cleanup(ctx)
			return nil, nil, err
		}
		got, err := tc.GetEntity(ctx, "m", rk, nil)
		if err != nil {
			cleanup(ctx)
			return nil, nil, err
		}
		etags[w] = got.ETag
	}
	return func(ctx context.Context, w, seq int) (int64, error) {
		rk := fmt.Sprintf("w%d", w)
		entity, _ := json.Marshal(map[string]any{"PartitionKey": "m", "RowKey": rk, "Counter": seq})
		resp, err := tc.UpdateEntity(ctx, entity, &aztables.UpdateEntityOptions{IfMatch: &etags[w], UpdateMode: aztables.UpdateModeMerge})
		if err == nil {
			etags[w] = resp.ETag
			return 0, nil
		}
		// As in tableMergeIfMatch: re-read after a failure so that a merge
		// cut short by the end of the warm-up costs one error, not all.
		if cur, gerr := tc.GetEntity(ctx, "m", rk, nil); gerr == nil {
			etags[w] = cur.ETag
		}
		return 0, err
	}, cleanup, nil
}

// sdkTableQuery filters the same entities as tableQuery, following
// continuations with the SDK's pager.
func sdkTableQuery(ctx context.Context, e *env) (op, func(context.Context), error) {
	rows := e.size(20000, 2000)
	tc, cleanup, err := sdkWithTable(ctx, e)
	if err != nil {
		return nil, nil, err
	}
	if err := parallel(ctx, rows/100, 8, func(ctx context.Context, b int) error {
		return sdkSubmitBatch(ctx, tc, "q", b*100, 100)
	}); err != nil {
		cleanup(ctx)
		return nil, nil, err
	}
	return func(ctx context.Context, w, seq int) (int64, error) {
		ctx, read := countBytes(ctx)
		pager := tc.NewListEntitiesPager(&aztables.ListEntitiesOptions{Filter: to.Ptr("Group eq 42")})
		for page := 0; pager.More(); page++ {
			if page == 100 {
				return read.Load(), fmt.Errorf("table-query: more than 100 pages")
			}
			if _, err := pager.NextPage(ctx); err != nil {
				return read.Load(), err
			}
		}
		return read.Load(), nil
	}, cleanup, nil
}

func sdkTableBatch(ctx context.Context, e *env) (op, func(context.Context), error) {
	tc, cleanup, err := sdkWithTable(ctx, e)
	if err != nil {
		return nil, nil, err
	}
	return func(ctx context.Context, w, seq int) (int64, error) {
		return 0, sdkSubmitBatch(ctx, tc, fmt.Sprintf("b%d-%d", w, seq), 0, 100)
	}, cleanup, nil
}

// sdkSubmitBatch inserts the same entities as submitBatch in one
// SubmitTransaction.
func sdkSubmitBatch(ctx context.Context, tc *aztables.Client, pk string, first, n int) (err error) {
	// aztables slices the response body without checking its shape, and
	// panics on one that is not a multipart document (an empty body, say):
	// a malformed answer is a failed operation, not a crashed benchmark.
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("aztables: malformed batch response: %v", p)
		}
	}()
	actions := make([]aztables.TransactionAction, 0, n)
	for i := first; i < first+n; i++ {
		actions = append(actions, aztables.TransactionAction{ActionType: aztables.TransactionTypeAdd,
			Entity: entityJSON(pk, fmt.Sprintf("r%05d", i), i%100)})
	}
	_, err = tc.SubmitTransaction(ctx, actions, nil)
	return err
}
