package cluster_test

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/data/aztables"
)

func (c *cluster) table(n int, name string) *aztables.Client {
	return c.tables[n%nodes].NewClient(name)
}

func entityJSON(t testing.TB, props map[string]any) []byte {
	t.Helper()
	b, err := json.Marshal(props)
	must(t, err)
	return b
}

func decodeEntity(t testing.TB, raw []byte) map[string]any {
	t.Helper()
	var m map[string]any
	must(t, json.Unmarshal(raw, &m))
	return m
}

// Sixteen writers increment one entity with read, merge-if-match and retry
// on 412, alternating nodes: no update is lost.
func TestTableMergeRaceAcrossNodes(t *testing.T) {
	c := startCluster(t, "table")
	_, err := c.tables[0].CreateTable(c.ctx, "counters", nil)
	must(t, err)
	_, err = c.table(0, "counters").AddEntity(c.ctx, entityJSON(t, map[string]any{"PartitionKey": "c", "RowKey": "c", "N": 0}), nil)
	must(t, err)
	const writers, increments = 16, 6
	var wg sync.WaitGroup
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range increments {
				if err := incrementEntity(t, c.table(w+i, "counters"), w); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	for n := range nodes {
		got, err := c.table(n, "counters").GetEntity(c.ctx, "c", "c", nil)
		must(t, err)
		if v := decodeEntity(t, got.Value)["N"]; v != float64(writers*increments) {
			t.Fatalf("node %d reads N = %v, want %d", n+1, v, writers*increments)
		}
	}
}

func incrementEntity(t testing.TB, tc *aztables.Client, writer int) error {
	for {
		got, err := tc.GetEntity(context.Background(), "c", "c", nil)
		if err != nil {
			return err
		}
		n := decodeEntity(t, got.Value)["N"].(float64)
		body := entityJSON(t, map[string]any{"PartitionKey": "c", "RowKey": "c", "N": int(n) + 1, "Last": writer})
		_, err = tc.UpdateEntity(context.Background(), body, &aztables.UpdateEntityOptions{IfMatch: &got.ETag, UpdateMode: aztables.UpdateModeMerge})
		if status(err) == 412 {
			continue
		}
		return err
	}
}

// A batch committed through node 1 is seen whole or not at all through
// node 2: a batch with a failing operation leaves nothing, and readers on
// node 2 never see a partition half-way through a batch that rewrites it.
func TestTableBatchAtomicAcrossNodes(t *testing.T) {
	c := startCluster(t, "table")
	_, err := c.tables[0].CreateTable(c.ctx, "batches", nil)
	must(t, err)
	writer, reader := c.table(0, "batches"), c.table(1, "batches")
	const rows = 10
	row := func(kind aztables.TransactionType, i int, props map[string]any) aztables.TransactionAction {
		e := map[string]any{"PartitionKey": "p", "RowKey": fmt.Sprintf("r%02d", i)}
		for k, v := range props {
			e[k] = v
		}
		return aztables.TransactionAction{ActionType: kind, Entity: entityJSON(t, e)}
	}
	_, err = writer.AddEntity(c.ctx, entityJSON(t, map[string]any{"PartitionKey": "p", "RowKey": "r05", "V": -1}), nil)
	must(t, err)
	// Inserting r05 again fails the whole batch.
	var failing []aztables.TransactionAction
	for i := range rows {
		failing = append(failing, row(aztables.TransactionTypeAdd, i, map[string]any{"V": 0}))
	}
	if _, err := writer.SubmitTransaction(c.ctx, failing, nil); err == nil {
		t.Fatal("a batch inserting an existing entity succeeded")
	}
	if got := partition(t, c, reader); len(got) != 1 {
		t.Fatalf("node 2 sees %d entities after a failed batch, want the 1 inserted before", len(got))
	}

	const rounds = 15
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer close(done)
		for v := range rounds {
			var batch []aztables.TransactionAction
			for i := range rows {
				batch = append(batch, row(aztables.TransactionTypeInsertReplace, i, map[string]any{"V": v}))
			}
			if _, err := writer.SubmitTransaction(c.ctx, batch, nil); err != nil {
				t.Error(err)
				return
			}
		}
	}()
	reads := 0
	for stop := false; !stop; reads++ {
		select {
		case <-done:
			stop = true // one more read after the last batch
		default:
		}
		got := partition(t, c, reader)
		if len(got) == 1 {
			continue // before the first batch
		}
		if len(got) != rows {
			t.Fatalf("node 2 sees %d entities, want %d", len(got), rows)
		}
		for _, v := range got[1:] {
			if v != got[0] {
				t.Fatalf("node 2 sees a partial batch: V = %v", got)
			}
		}
		if stop && got[0] != float64(rounds-1) {
			t.Fatalf("node 2 sees V = %v after the last batch, want %d", got[0], rounds-1)
		}
	}
	wg.Wait()
	t.Logf("%d reads on node 2 during %d batches on node 1", reads, rounds)
}

// partition lists partition p through tc and returns each entity's V.
func partition(t testing.TB, c *cluster, tc *aztables.Client) []any {
	t.Helper()
	var out []any
	pager := tc.NewListEntitiesPager(&aztables.ListEntitiesOptions{Filter: ptr("PartitionKey eq 'p'")})
	for pager.More() {
		page, err := pager.NextPage(c.ctx)
		must(t, err)
		for _, raw := range page.Entities {
			out = append(out, decodeEntity(t, raw)["V"])
		}
	}
	return out
}

func ptr[T any](v T) *T { return &v }
