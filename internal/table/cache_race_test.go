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
// nodes over one store at once: every answer, cached or not, must show the
// inv rows of one committed changeset, never a mix of two.
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
			runConcurrently(t, nodes)
			for _, n := range nodes {
				if n.svc.QueryCacheHits() == 0 {
					t.Errorf("a node never answered from its cache")
				}
			}
		})
	}
}

func runConcurrently(t *testing.T, nodes []*node) {
	const writers, generations, readers = 2, 10, 4
	var wg sync.WaitGroup
	var writing atomic.Int32
	writing.Store(writers + 1)
	fail := func(err error) { t.Error(err) }
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			defer writing.Add(-1)
			tc := nodes[w%len(nodes)].client.NewClient("inv")
			r := rand.New(rand.NewPCG(uint64(w), 1))
			for g := 1; g <= generations; g++ {
				if err := writeGeneration(tc, w*1000+g, r); err != nil {
					fail(err)
					return
				}
			}
		}(w)
	}
	wg.Add(1)
	go func() {
		// Writes in another partition move its version while whole-table
		// queries walk both.
		defer wg.Done()
		defer writing.Add(-1)
		tc := nodes[0].client.NewClient("inv")
		for i := 0; i < 2*generations; i++ {
			body, _ := json.Marshal(map[string]any{"PartitionKey": "q", "RowKey": fmt.Sprint(i % 5), "Kind": "noise", "N": i})
			if _, err := tc.UpsertEntity(context.Background(), body, nil); err != nil {
				fail(err)
				return
			}
		}
	}()
	filters := []string{"Kind eq 'inv'", "Amount ge 0", "PartitionKey eq 'p' and Kind eq 'inv' and Gen ge 0"}
	for rd := 0; rd < readers; rd++ {
		wg.Add(1)
		go func(rd int) {
			defer wg.Done()
			tc := nodes[rd%len(nodes)].client.NewClient("inv")
			for i := 0; writing.Load() > 0 || i < 6; i++ {
				if err := checkGeneration(tc, filters[i%len(filters)]); err != nil {
					fail(err)
					return
				}
			}
		}(rd)
	}
	wg.Wait()
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

// checkGeneration runs one single-page query and checks the invariant.
func checkGeneration(tc *aztables.Client, filter string) error {
	pager := tc.NewListEntitiesPager(&aztables.ListEntitiesOptions{Filter: &filter})
	resp, err := pager.NextPage(context.Background())
	if err != nil {
		return err
	}
	if pager.More() {
		return fmt.Errorf("%q: more than one page", filter)
	}
	gens := map[int]int{}
	sum := 0
	for _, raw := range resp.Entities {
		var e struct{ Gen, Amount int }
		if err := json.Unmarshal(raw, &e); err != nil {
			return err
		}
		gens[e.Gen]++
		sum += e.Amount
	}
	if len(resp.Entities) != invRows || len(gens) != 1 || sum != invTotal {
		return fmt.Errorf("%q: %d rows, generations %v, sum %d: not one committed changeset", filter, len(resp.Entities), gens, sum)
	}
	return nil
}
