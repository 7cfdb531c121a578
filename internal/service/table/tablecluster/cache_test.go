package tablecluster_test

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/data/aztables"

	"github.com/lazuli-storage/lazuli/internal/check/lazulitest"
	"github.com/lazuli-storage/lazuli/internal/engine/store/postgres/pgtest"
)

// rows is partition p as the test models it: RowKey -> G.
type rows map[string]int

// ones lists the row keys with G == 1, as the filter returns them.
func (m rows) ones() []string {
	var out []string
	for rk, g := range m {
		if g == 1 {
			out = append(out, rk)
		}
	}
	sort.Strings(out)
	return out
}

func ok(t *testing.T) func(any, error) {
	return func(_ any, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
}

func body(t *testing.T, rk string, g int) []byte {
	b, err := json.Marshal(map[string]any{"PartitionKey": "p", "RowKey": rk, "G": g})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// ones queries G eq 1 through one node.
func ones(t *testing.T, tc *aztables.Client) []string {
	t.Helper()
	f := "G eq 1"
	var out []string
	pager := tc.NewListEntitiesPager(&aztables.ListEntitiesOptions{Filter: &f})
	for pager.More() {
		resp, err := pager.NextPage(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		for _, raw := range resp.Entities {
			var e struct{ RowKey string }
			if err := json.Unmarshal(raw, &e); err != nil {
				t.Fatal(err)
			}
			out = append(out, e.RowKey)
		}
	}
	return out
}

func same(a, b []string) bool {
	return fmt.Sprint(a) == fmt.Sprint(b)
}

// seed writes n rows with G = i % mod in one changeset.
func seed(t *testing.T, tc *aztables.Client, n, mod int) rows {
	m := rows{}
	var actions []aztables.TransactionAction
	for i := 0; i < n; i++ {
		rk := fmt.Sprintf("r%03d", i)
		m[rk] = i % mod
		actions = append(actions, aztables.TransactionAction{ActionType: aztables.TransactionTypeAdd, Entity: body(t, rk, m[rk])})
	}
	ok(t)(tc.SubmitTransaction(context.Background(), actions, nil))
	return m
}

// TestQueryCacheAcrossPostgresNodes writes through one node and queries
// through the other, each time after warming the reader's cache on the
// partition, for every kind of entity write and for a table deleted and
// created again.
func TestQueryCacheAcrossPostgresNodes(t *testing.T) {
	db := lazulitest.PostgresDatabase(t, pgtest.URL(t))
	nodes := lazulitest.StartNodes(t, 2, lazulitest.Options{Store: db, Services: []string{"table"}})
	var clients []*aztables.Client
	for _, n := range nodes {
		svc, err := aztables.NewServiceClientFromConnectionString(n.ConnectionString,
			&aztables.ClientOptions{ClientOptions: azcore.ClientOptions{Retry: policy.RetryOptions{MaxRetries: -1}}})
		if err != nil {
			t.Fatal(err)
		}
		clients = append(clients, svc.NewClient("shared"))
	}
	ctx, anyTag := context.Background(), azcore.ETagAny
	ok(t)(clients[0].CreateTable(ctx, nil))
	m := seed(t, clients[0], 40, 4)
	first := func() string { return m.ones()[0] }
	steps := []struct {
		name  string
		write func(tc *aztables.Client, step int)
	}{
		{"table delete and create", func(tc *aztables.Client, _ int) {
			// The same partition version, other content.
			ok(t)(tc.Delete(ctx, nil))
			ok(t)(tc.CreateTable(ctx, nil))
			m = seed(t, tc, 40, 3)
		}},
		{"insert", func(tc *aztables.Client, step int) {
			rk := fmt.Sprintf("i%d", step)
			ok(t)(tc.AddEntity(ctx, body(t, rk, 1), nil))
			m[rk] = 1
		}},
		{"replace", func(tc *aztables.Client, _ int) {
			rk := first()
			ok(t)(tc.UpdateEntity(ctx, body(t, rk, 2), &aztables.UpdateEntityOptions{IfMatch: &anyTag, UpdateMode: aztables.UpdateModeReplace}))
			m[rk] = 2
		}},
		{"merge", func(tc *aztables.Client, _ int) {
			rk := first()
			ok(t)(tc.UpdateEntity(ctx, body(t, rk, 3), &aztables.UpdateEntityOptions{IfMatch: &anyTag, UpdateMode: aztables.UpdateModeMerge}))
			m[rk] = 3
		}},
		{"delete", func(tc *aztables.Client, _ int) {
			rk := first()
			ok(t)(tc.DeleteEntity(ctx, "p", rk, nil))
			delete(m, rk)
		}},
		{"upsert", func(tc *aztables.Client, step int) {
			rk := fmt.Sprintf("u%d", step)
			ok(t)(tc.UpsertEntity(ctx, body(t, rk, 1), nil))
			m[rk] = 1
		}},
		{"batch", func(tc *aztables.Client, step int) {
			rk := first()
			ok(t)(tc.SubmitTransaction(ctx, []aztables.TransactionAction{
				{ActionType: aztables.TransactionTypeUpdateMerge, Entity: body(t, rk, 0)},
				{ActionType: aztables.TransactionTypeInsertReplace, Entity: body(t, fmt.Sprintf("b%d", step), 1)},
			}, nil))
			m[rk], m[fmt.Sprintf("b%d", step)] = 0, 1
		}},
	}
	for round := 0; round < 2; round++ {
		for i, s := range steps {
			step := round*len(steps) + i
			writer, reader := clients[step%2], clients[1-step%2]
			for warm := 0; warm < 3; warm++ {
				if got := ones(t, reader); !same(got, m.ones()) {
					t.Fatalf("before %s: %v, want %v", s.name, got, m.ones())
				}
			}
			s.write(writer, step)
			if got := ones(t, reader); !same(got, m.ones()) {
				t.Fatalf("after %s on the other node: stale answer %v, want %v", s.name, got, m.ones())
			}
		}
	}
}
