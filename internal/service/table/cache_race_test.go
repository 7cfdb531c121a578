package table_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/data/aztables"
)

// Invariant of the concurrency test: partition p holds invRows entities of
// Kind "inv", which every changeset rewrites together with one generation
// number and amounts summing to invTotal.
const (
	invRows  = 20
	invTotal = 1000
)

// TestQueryCacheUnderConcurrentWrites runs writers and queriers on two
// nodes over one store at once. A generation writer rewrites the inv rows
// in changesets with increasing generations, through both nodes in turn,
// while another writer merges other rows of the same partition and a third
// writes another partition. Every answer, cached or not, must show the inv
// rows of one committed changeset, never a mix; no querier may see the
// generation go back; and once writing stops, every node must answer with
// the last generation.
func TestQueryCacheUnderConcurrentWrites(t *testing.T) {
	for name, st := range sharedStores(t) {
		t.Run(name, func(t *testing.T) {
			nodes := startNodes(t, st, 2)
			tc := nodes[0].client.NewClient("inv")
			noErr(t)(tc.CreateTable(context.Background(), nil))
			// Static rows make the partition big enough for indexes.
			seed(t, tc, model{}, "p", 30, 10)
			if err := writeGeneration(tc, 0, rand.New(rand.NewPCG(0, 0))); err != nil {
				t.Fatal(err)
			}
			last := runConcurrently(t, nodes)
			for _, n := range nodes {
				gen, err := checkGeneration(n.client.NewClient("inv"), "Kind eq 'inv'")
				if err != nil || gen != last {
					t.Fatalf("after the writes, generation %d (%v), want %d", gen, err, last)
				}
				if n.svc.QueryCacheHits() == 0 {
					t.Errorf("a node never answered from its cache")
				}
			}
		})
	}
}

// runConcurrently runs the writers and queriers and returns the last
// generation written.
func runConcurrently(t *testing.T, nodes []*node) int {
	const generations, readers = 20, 4
	var wg sync.WaitGroup
	var writing atomic.Int32
	writing.Store(3)
	fail := func(err error) { t.Error(err) }
	writer := func(write func(i int) error) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer writing.Add(-1)
			for i := 1; i <= generations; i++ {
				if err := write(i); err != nil {
					fail(err)
					return
				}
			}
		}()
	}
	r := rand.New(rand.NewPCG(1, 1))
	writer(func(i int) error {
		return writeGeneration(nodes[i%len(nodes)].client.NewClient("inv"), i, r)
	})
	writer(func(i int) error {
		// Other rows of the partition: versions move under the queries.
		body, _ := json.Marshal(map[string]any{"PartitionKey": "p", "RowKey": fmt.Sprintf("r%04d", i%30), "Touched": i})
		_, err := nodes[(i+1)%len(nodes)].client.NewClient("inv").UpsertEntity(context.Background(), body, nil)
		return err
	})
	writer(func(i int) error {
		// Another partition, walked by whole-table queries.
		body, _ := json.Marshal(map[string]any{"PartitionKey": "q", "RowKey": fmt.Sprint(i % 5), "Kind": "noise", "N": i})
		_, err := nodes[0].client.NewClient("inv").UpsertEntity(context.Background(), body, nil)
		return err
	})
	filters := []string{"Kind eq 'inv'", "Amount ge 0", "PartitionKey eq 'p' and Kind eq 'inv' and Gen ge 0"}
	for rd := 0; rd < readers; rd++ {
		wg.Add(1)
		go func(rd int) {
			defer wg.Done()
			tc := nodes[rd%len(nodes)].client.NewClient("inv")
			seen := 0
			for i := 0; writing.Load() > 0 || i < 6; i++ {
				gen, err := checkGeneration(tc, filters[i%len(filters)])
				if err == nil && gen < seen {
					err = fmt.Errorf("generation went back from %d to %d", seen, gen)
				}
				if err != nil {
					fail(err)
					return
				}
				seen = gen
			}
		}(rd)
	}
	wg.Wait()
	return generations
}

// writeGeneration rewrites every inv row in one changeset.
func writeGeneration(tc *aztables.Client, gen int, r *rand.Rand) error {
	actions := make([]aztables.TransactionAction, invRows)
	left := invTotal
	for i := range actions {
		amount := left
		if i < invRows-1 {
			amount = r.IntN(left + 1)
		}
		left -= amount
		body, err := json.Marshal(map[string]any{"PartitionKey": "p", "RowKey": fmt.Sprintf("inv%02d", i),
			"Kind": "inv", "Gen": gen, "Amount": amount})
		if err != nil {
			return err
		}
		actions[i] = aztables.TransactionAction{ActionType: aztables.TransactionTypeInsertReplace, Entity: body}
	}
	_, err := tc.SubmitTransaction(context.Background(), actions, nil)
	return err
}

// checkGeneration runs one single-page query, checks the invariant and
// returns the generation it shows.
func checkGeneration(tc *aztables.Client, filter string) (int, error) {
	pager := tc.NewListEntitiesPager(&aztables.ListEntitiesOptions{Filter: &filter})
	resp, err := pager.NextPage(context.Background())
	if err != nil {
		return 0, err
	}
	if pager.More() {
		return 0, fmt.Errorf("%q: more than one page", filter)
	}
	gens := map[int]int{}
	sum, gen := 0, 0
	for _, raw := range resp.Entities {
		var e struct{ Gen, Amount int }
		if err := json.Unmarshal(raw, &e); err != nil {
			return 0, err
		}
		gens[e.Gen]++
		sum += e.Amount
		gen = e.Gen
	}
	if len(resp.Entities) != invRows || len(gens) != 1 || sum != invTotal {
		return 0, fmt.Errorf("%q: %d rows, generations %v, sum %d: not one committed changeset", filter, len(resp.Entities), gens, sum)
	}
	return gen, nil
}
