package tablecluster_test

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/data/aztables"

	"github.com/lazuli-storage/lazuli/internal/check/lazulitest"
	"github.com/lazuli-storage/lazuli/internal/engine/store/postgres/pgtest"
)

// invRows entities of partition p are rewritten together, each changeset
// with the next generation.
const invRows = 10

// TestQueryCacheConcurrentPostgresNodes writes generations through both
// nodes while other writes hit the same partition and queries on both
// nodes make it tracked and cached: every answer must be one whole
// generation, no querier may see generations go back, and once writing
// stops both nodes must answer with the last one. On PostgreSQL this runs
// tracking and version bumps against concurrent writers under serializable
// isolation.
func TestQueryCacheConcurrentPostgresNodes(t *testing.T) {
	db := lazulitest.PostgresDatabase(t, pgtest.URL(t))
	nodes := lazulitest.StartNodes(t, 2, lazulitest.Options{Store: db, Services: []string{"table"}})
	var clients []*aztables.Client
	for _, n := range nodes {
		// Retries on: concurrent writes to one partition may be told to
		// retry, as the service answers busy partitions.
		svc, err := aztables.NewServiceClientFromConnectionString(n.ConnectionString,
			&aztables.ClientOptions{ClientOptions: azcore.ClientOptions{Retry: policy.RetryOptions{MaxRetries: 3}}})
		if err != nil {
			t.Fatal(err)
		}
		clients = append(clients, svc.NewClient("gens"))
	}
	ctx := context.Background()
	ok(t)(clients[0].CreateTable(ctx, nil))
	seed(t, clients[0], 90, 3) // static rows: the partition is worth tracking
	if err := writeGeneration(clients[0], 0); err != nil {
		t.Fatal(err)
	}
	const generations = 15
	var wg sync.WaitGroup
	var writing atomic.Int32
	writing.Store(2)
	writer := func(write func(i int) error) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer writing.Add(-1)
			for i := 1; i <= generations; i++ {
				if err := write(i); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	writer(func(i int) error { return writeGeneration(clients[i%2], i) })
	writer(func(i int) error {
		_, err := clients[(i+1)%2].UpsertEntity(ctx, body(t, fmt.Sprintf("r%03d", i), 2), nil)
		return err
	})
	for rd := 0; rd < 4; rd++ {
		wg.Add(1)
		go func(tc *aztables.Client) {
			defer wg.Done()
			seen := 0
			for i := 0; writing.Load() > 0 || i < 4; i++ {
				gen, err := checkGeneration(tc)
				if err == nil && gen < seen {
					err = fmt.Errorf("generation went back from %d to %d", seen, gen)
				}
				if err != nil {
					t.Error(err)
					return
				}
				seen = gen
			}
		}(clients[rd%2])
	}
	wg.Wait()
	for _, tc := range clients {
		if gen, err := checkGeneration(tc); err != nil || gen != generations {
			t.Fatalf("after the writes: generation %d (%v), want %d", gen, err, generations)
		}
	}
}

// writeGeneration rewrites the inv rows in one changeset.
func writeGeneration(tc *aztables.Client, gen int) error {
	var actions []aztables.TransactionAction
	for i := 0; i < invRows; i++ {
		b, err := json.Marshal(map[string]any{"PartitionKey": "p", "RowKey": fmt.Sprintf("inv%02d", i), "Kind": "inv", "Gen": gen})
		if err != nil {
			return err
		}
		actions = append(actions, aztables.TransactionAction{ActionType: aztables.TransactionTypeInsertReplace, Entity: b})
	}
	_, err := tc.SubmitTransaction(context.Background(), actions, nil)
	return err
}

// checkGeneration queries the inv rows and returns their one generation.
func checkGeneration(tc *aztables.Client) (int, error) {
	f := "Kind eq 'inv'"
	pager := tc.NewListEntitiesPager(&aztables.ListEntitiesOptions{Filter: &f})
	resp, err := pager.NextPage(context.Background())
	if err != nil {
		return 0, err
	}
	gens := map[int]int{}
	gen := 0
	for _, raw := range resp.Entities {
		var e struct{ Gen int }
		if err := json.Unmarshal(raw, &e); err != nil {
			return 0, err
		}
		gens[e.Gen]++
		gen = e.Gen
	}
	if len(resp.Entities) != invRows || len(gens) != 1 {
		return 0, fmt.Errorf("%d inv rows of generations %v: not one changeset", len(resp.Entities), gens)
	}
	return gen, nil
}
