package table_test

import (
	"fmt"
	"sort"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/data/aztables"
	"github.com/lazuli-storage/lazuli/internal/check/lazulitest"
)

// fill inserts n entities into partition pk with transactions of 100.
func fill(t *testing.T, e *env, tc *aztables.Client, pk string, n int) {
	t.Helper()
	var actions []aztables.TransactionAction
	flush := func() {
		if len(actions) == 0 {
			return
		}
		if _, err := tc.SubmitTransaction(e.ctx, actions, nil); err != nil {
			t.Fatalf("fill: %v", err)
		}
		actions = actions[:0]
	}
	for i := 0; i < n; i++ {
		ent := map[string]any{"PartitionKey": pk, "RowKey": fmt.Sprintf("%05d", i), "N": i, "Even": i%2 == 0,
			"Name": fmt.Sprintf("name%d", i%10)}
		actions = append(actions, aztables.TransactionAction{ActionType: aztables.TransactionTypeAdd, Entity: mustJSON(t, ent)})
		if len(actions) == 100 {
			flush()
		}
	}
	flush()
}

// listAll follows continuations and returns the row keys and page count.
func listAll(t *testing.T, e *env, tc *aztables.Client, opts *aztables.ListEntitiesOptions) ([]map[string]any, int) {
	t.Helper()
	pager := tc.NewListEntitiesPager(opts)
	var out []map[string]any
	pages := 0
	for pager.More() {
		pg, err := pager.NextPage(e.ctx)
		if err != nil {
			t.Fatal(err)
		}
		pages++
		if opts != nil && opts.Top != nil && len(pg.Entities) > int(*opts.Top) {
			t.Fatalf("page of %d entities with $top=%d", len(pg.Entities), *opts.Top)
		}
		for _, b := range pg.Entities {
			out = append(out, decode(t, b))
		}
	}
	return out, pages
}

func TestQueryPagingAndFilters(t *testing.T) {
	e := start(t, lazulitest.Options{InMemory: true})
	tc := e.table(t, "paged")
	fill(t, e, tc, "a", 1200)
	fill(t, e, tc, "b", 1300)

	all, pages := listAll(t, e, tc, nil)
	if len(all) != 2500 || pages != 3 {
		t.Fatalf("full scan: %d entities in %d pages", len(all), pages)
	}
	keys := make([]string, len(all))
	for i, m := range all {
		keys[i] = m["PartitionKey"].(string) + "/" + m["RowKey"].(string)
	}
	if !sort.StringsAreSorted(keys) {
		t.Fatal("results are not in PartitionKey, RowKey order")
	}

	cases := []struct {
		filter string
		top    int32
		want   int
	}{
		{"PartitionKey eq 'b'", 250, 1300},
		{"PartitionKey eq 'a' and RowKey ge '00100' and RowKey lt '00200'", 30, 100},
		{"PartitionKey eq 'a' and N lt 10", 1000, 10},
		{"N ge 1190 and N lt 1210", 5, 30},
		{"Even eq true and PartitionKey gt 'a'", 1000, 650},
		{"Name eq 'name3' or Name eq 'name4'", 100, 500},
		{"not (PartitionKey eq 'a') and N eq 5", 1000, 1},
		{"PartitionKey eq 'zzz'", 1000, 0},
		{"N eq 5L", 1000, 2}, // an Int64 literal widens to match Int32 properties
		{"N eq 5.0", 1000, 0},
	}
	for _, c := range cases {
		got, pages := listAll(t, e, tc, &aztables.ListEntitiesOptions{Filter: to.Ptr(c.filter), Top: to.Ptr(c.top)})
		if len(got) != c.want {
			t.Errorf("%q: %d entities in %d pages, want %d", c.filter, len(got), pages, c.want)
		}
	}

	// $select returns just the named properties (and null for missing ones).
	got, _ := listAll(t, e, tc, &aztables.ListEntitiesOptions{Filter: to.Ptr("PartitionKey eq 'a' and RowKey eq '00007'"),
		Select: to.Ptr("N,Missing")})
	if len(got) != 1 || got[0]["N"].(float64) != 7 || got[0]["Name"] != nil || got[0]["RowKey"] != nil {
		t.Fatalf("$select: %v", got)
	}
	if v, ok := got[0]["Missing"]; !ok || v != nil {
		t.Fatalf("$select of a missing property: %v", got[0])
	}

	_, err := tc.NewListEntitiesPager(&aztables.ListEntitiesOptions{Filter: to.Ptr("N eq")}).NextPage(e.ctx)
	wantCode(t, err, 400, "InvalidInput")
	_, err = tc.NewListEntitiesPager(&aztables.ListEntitiesOptions{Top: to.Ptr[int32](1001)}).NextPage(e.ctx)
	wantCode(t, err, 400, "InvalidInput")
	_, err = e.svc.NewClient("nosuch").NewListEntitiesPager(nil).NextPage(e.ctx)
	wantCode(t, err, 404, "TableNotFound")
}

func TestRestartKeepsData(t *testing.T) {
	e := start(t, lazulitest.Options{})
	tc := e.table(t, "durable")
	added, err := tc.AddEntity(e.ctx, mustJSON(t, map[string]any{"PartitionKey": "p", "RowKey": "r", "V": "kept"}), nil)
	if err != nil {
		t.Fatal(err)
	}
	e.in.Restart(t)
	e.svc = serviceClient(t, e.in)
	tc = e.svc.NewClient("durable")
	got, err := tc.GetEntity(e.ctx, "p", "r", nil)
	if err != nil {
		t.Fatal(err)
	}
	if got.ETag != added.ETag || decode(t, got.Value)["V"] != "kept" {
		t.Fatalf("after restart: %s %s", got.ETag, got.Value)
	}
	// The next write still moves the ETag forward.
	upd, err := tc.UpdateEntity(e.ctx, mustJSON(t, map[string]any{"PartitionKey": "p", "RowKey": "r", "V": "new"}),
		&aztables.UpdateEntityOptions{IfMatch: &got.ETag, UpdateMode: aztables.UpdateModeReplace})
	if err != nil || upd.ETag == got.ETag {
		t.Fatalf("update after restart: %v %s", err, upd.ETag)
	}
}
