package table_test

import (
	"context"
	"fmt"
	"sort"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/data/aztables"
)

// The query path keeps decoded partitions in memory (see partcache.go).
// These tests warm that cache, write in every way the service allows,
// possibly through another node over the same store, and check that the
// next query sees the write.

const cachedRows = 60 // above minIndexRows: partitions get indexes

// pick returns up to n row keys of partition p with G == g, in key order.
func (m model) pick(g, n int) []string {
	var out []string
	for rk, r := range m["p"] {
		if r.G == g {
			out = append(out, rk)
		}
	}
	sort.Strings(out)
	return out[:min(n, len(out))]
}

// cacheWrite is one kind of write: it changes which rows have G == 1 or
// what they hold, through tc, and records the change in m.
type cacheWrite struct {
	name string
	do   func(t *testing.T, tc *aztables.Client, m model, step int)
}

var anyETag = azcore.ETagAny

var cacheWrites = []cacheWrite{
	{"insert", func(t *testing.T, tc *aztables.Client, m model, step int) {
		r := row{G: 1, Name: fmt.Sprintf("ins%d", step)}
		noErr(t)(tc.AddEntity(context.Background(), entityBody(t, "p", fmt.Sprintf("i%d", step), r), nil))
		m.put("p", fmt.Sprintf("i%d", step), r)
	}},
	{"replace", func(t *testing.T, tc *aztables.Client, m model, step int) {
		rk := m.pick(1, 1)[0]
		r := row{G: 2, Name: fmt.Sprintf("rep%d", step)}
		noErr(t)(tc.UpdateEntity(context.Background(), entityBody(t, "p", rk, r), &aztables.UpdateEntityOptions{IfMatch: &anyETag, UpdateMode: aztables.UpdateModeReplace}))
		m.put("p", rk, r)
	}},
	{"merge", func(t *testing.T, tc *aztables.Client, m model, step int) {
		rk := m.pick(1, 1)[0]
		body := mustJSON(t, map[string]any{"PartitionKey": "p", "RowKey": rk, "G": 3})
		noErr(t)(tc.UpdateEntity(context.Background(), body, &aztables.UpdateEntityOptions{IfMatch: &anyETag, UpdateMode: aztables.UpdateModeMerge}))
		m.put("p", rk, row{G: 3, Name: m["p"][rk].Name})
	}},
	{"delete", func(t *testing.T, tc *aztables.Client, m model, step int) {
		rk := m.pick(1, 1)[0]
		noErr(t)(tc.DeleteEntity(context.Background(), "p", rk, nil))
		delete(m["p"], rk)
	}},
	{"upsert-replace", func(t *testing.T, tc *aztables.Client, m model, step int) {
		rk := m.pick(1, 1)[0]
		r := row{G: 4, Name: fmt.Sprintf("ur%d", step)}
		noErr(t)(tc.UpsertEntity(context.Background(), entityBody(t, "p", rk, r), &aztables.UpsertEntityOptions{UpdateMode: aztables.UpdateModeReplace}))
		m.put("p", rk, r)
	}},
	{"upsert-merge", func(t *testing.T, tc *aztables.Client, m model, step int) {
		rk := m.pick(1, 1)[0]
		body := mustJSON(t, map[string]any{"PartitionKey": "p", "RowKey": rk, "G": 5})
		noErr(t)(tc.UpsertEntity(context.Background(), body, &aztables.UpsertEntityOptions{UpdateMode: aztables.UpdateModeMerge}))
		m.put("p", rk, row{G: 5, Name: m["p"][rk].Name})
	}},
	{"upsert-insert", func(t *testing.T, tc *aztables.Client, m model, step int) {
		rk, r := fmt.Sprintf("u%d", step), row{G: 1, Name: fmt.Sprintf("ui%d", step)}
		noErr(t)(tc.UpsertEntity(context.Background(), entityBody(t, "p", rk, r), &aztables.UpsertEntityOptions{UpdateMode: aztables.UpdateModeMerge}))
		m.put("p", rk, r)
	}},
	{"batch", func(t *testing.T, tc *aztables.Client, m model, step int) {
		rks := m.pick(1, 3)
		added, replaced := row{G: 1, Name: fmt.Sprintf("ba%d", step)}, row{G: 1, Name: fmt.Sprintf("br%d", step)}
		_, err := tc.SubmitTransaction(context.Background(), []aztables.TransactionAction{
			{ActionType: aztables.TransactionTypeAdd, Entity: entityBody(t, "p", fmt.Sprintf("b%d", step), added)},
			{ActionType: aztables.TransactionTypeUpdateMerge, Entity: mustJSON(t, map[string]any{"PartitionKey": "p", "RowKey": rks[0], "G": 6})},
			{ActionType: aztables.TransactionTypeDelete, Entity: mustJSON(t, map[string]any{"PartitionKey": "p", "RowKey": rks[1]})},
			{ActionType: aztables.TransactionTypeInsertReplace, Entity: entityBody(t, "p", rks[2], replaced)},
		}, nil)
		if err != nil {
			t.Fatal(err)
		}
		m.put("p", fmt.Sprintf("b%d", step), added)
		m.put("p", rks[0], row{G: 6, Name: m["p"][rks[0]].Name})
		delete(m["p"], rks[1])
		m.put("p", rks[2], replaced)
	}},
}

// noErr fails t on an SDK call's error: noErr(t)(client.Call(...)).
func noErr(t *testing.T) func(any, error) {
	return func(_ any, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
}

// cacheFilters are a filter the partition index answers and one that walks
// every entity, with the model rows each matches (-1: all).
var cacheFilters = []struct {
	filter string
	g      int
}{{"G eq 1", 1}, {"G ge 0", -1}}

// warm queries until the reader answers from its cache.
func warm(t *testing.T, reader *node, tc *aztables.Client, m model) {
	t.Helper()
	for _, f := range cacheFilters {
		before := reader.svc.QueryCacheHits()
		for i := 0; i < 3; i++ {
			if got, want := query(t, tc, f.filter, 0), m.want(f.g); !equal(got, want) {
				t.Fatalf("%q while warming: %d rows, want %d\n%v\n%v", f.filter, len(got), len(want), got, want)
			}
		}
		if reader.svc.QueryCacheHits() == before {
			t.Fatalf("%q: the cache did not serve the partition after three queries", f.filter)
		}
	}
}

// check queries every filter and compares with the model.
func check(t *testing.T, tc *aztables.Client, m model, after string) {
	t.Helper()
	for _, f := range cacheFilters {
		if got, want := query(t, tc, f.filter, 0), m.want(f.g); !equal(got, want) {
			t.Fatalf("after %s, %q returned a stale answer: %d rows, want %d\ngot  %v\nwant %v", after, f.filter, len(got), len(want), got, want)
		}
	}
	// Small pages walk the cached partition with continuations.
	if got, want := query(t, tc, "G eq 1", 7), m.want(1); !equal(got, want) {
		t.Fatalf("after %s, paged query: %v, want %v", after, got, want)
	}
}

func equal(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// runCacheWrites recreates the table, then applies every kind of write
// through writer and checks reader's next query after each, its cache warm.
func runCacheWrites(t *testing.T, writer, reader *node) {
	t.Helper()
	wt, rt := writer.client.NewClient("cached"), reader.client.NewClient("cached")
	noErr(t)(wt.CreateTable(context.Background(), nil))
	m := model{}
	seed(t, wt, m, "p", cachedRows, 5)
	warm(t, reader, rt, m)

	// A table deleted and created again reaches the same partition version
	// with other content: the cached partition of the old table must not
	// pass for it.
	noErr(t)(wt.Delete(context.Background(), nil))
	noErr(t)(wt.CreateTable(context.Background(), nil))
	m = model{}
	seed(t, wt, m, "p", cachedRows, 4)
	check(t, rt, m, "table delete and create")

	for step, w := range cacheWrites {
		warm(t, reader, rt, m)
		w.do(t, wt, m, step)
		check(t, rt, m, w.name)
	}
	noErr(t)(wt.Delete(context.Background(), nil))
}

func TestQueryCacheSeesEveryWrite(t *testing.T) {
	n := startNodes(t, sharedStores(t)["sqlite"], 1)[0]
	runCacheWrites(t, n, n)
}

// TestQueryCacheAcrossNodes: two nodes over one store, each with its own
// cache; writes on one are seen by the next query on the other, every time.
func TestQueryCacheAcrossNodes(t *testing.T) {
	for name, st := range sharedStores(t) {
		t.Run(name, func(t *testing.T) {
			nodes := startNodes(t, st, 2)
			if name == "memory" {
				nodes[0], nodes[1] = nodes[1], nodes[0]
			}
			runCacheWrites(t, nodes[0], nodes[1])
		})
	}
}
