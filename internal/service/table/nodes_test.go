package table_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http/httptest"
	"path/filepath"
	"sort"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/data/aztables"
	"github.com/lazuli-storage/lazuli/internal/base/clock"
	"github.com/lazuli-storage/lazuli/internal/check/lazulitest"
	"github.com/lazuli-storage/lazuli/internal/engine/store"
	"github.com/lazuli-storage/lazuli/internal/engine/store/memory"
	"github.com/lazuli-storage/lazuli/internal/engine/store/sqlite"
	"github.com/lazuli-storage/lazuli/internal/frame/server"
	"github.com/lazuli-storage/lazuli/internal/rule/auth"
	"github.com/lazuli-storage/lazuli/internal/service/table"
)

// node is one Table service with its own partition cache, served over
// HTTP with the production middleware, on a store other nodes may share:
// the in-process picture of a scaled-out deployment.
type node struct {
	svc    *table.Service
	client *aztables.ServiceClient
}

// smallPartition is the partition size from which the nodes track
// partitions and index cached ones: small, so that test tables do.
const smallPartition = 16

// startNodes starts n nodes over st.
func startNodes(t *testing.T, st store.Store, n int) []*node {
	t.Helper()
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	accounts := auth.DevAccounts()
	var nodes []*node
	for i := 0; i < n; i++ {
		svc, err := table.New(server.Deps{Store: st, Clock: clock.Real{}, Accounts: accounts, Logger: logger})
		if err != nil {
			t.Fatal(err)
		}
		svc.SetSmallPartitions(smallPartition)
		authn := &auth.Authenticator{Accounts: accounts, Clock: clock.Real{}, RequestClock: clock.Real{}, Logger: logger}
		srv := httptest.NewServer(server.Handler(svc, server.Options{Store: st, Auth: authn}))
		t.Cleanup(srv.Close)
		cred, err := aztables.NewSharedKeyCredential(lazulitest.Account, lazulitest.Key)
		if err != nil {
			t.Fatal(err)
		}
		opts := &aztables.ClientOptions{ClientOptions: azcore.ClientOptions{Retry: policy.RetryOptions{MaxRetries: -1}}}
		client, err := aztables.NewServiceClientWithSharedKey(srv.URL+"/"+lazulitest.Account, cred, opts)
		if err != nil {
			t.Fatal(err)
		}
		nodes = append(nodes, &node{svc: svc, client: client})
	}
	return nodes
}

// sharedStores are the engines the node tests run on: the memory engine,
// and one SQLite database (real snapshot transactions, as in production).
func sharedStores(t *testing.T) map[string]store.Store {
	t.Helper()
	sq, err := sqlite.Open(filepath.Join(t.TempDir(), "lazuli.db"), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sq.Close() })
	return map[string]store.Store{"memory": memory.New(), "sqlite": sq}
}

// row is an entity as the tests model it.
type row struct {
	G    int
	Name string
}

// model is what a table holds: partition -> row key -> row.
type model map[string]map[string]row

func (m model) put(pk, rk string, r row) {
	if m[pk] == nil {
		m[pk] = map[string]row{}
	}
	m[pk][rk] = r
}

// want renders the rows with G == g (every row when g < 0) in key order.
func (m model) want(g int) []string {
	var out []string
	for pk, rows := range m {
		for rk, r := range rows {
			if g < 0 || r.G == g {
				out = append(out, fmt.Sprintf("%s/%s G=%d %s", pk, rk, r.G, r.Name))
			}
		}
	}
	sort.Strings(out)
	return out
}

// query lists the entities a filter matches, following continuations, in
// the form model.want renders.
func query(t *testing.T, tc *aztables.Client, filter string, top int32) []string {
	t.Helper()
	opts := &aztables.ListEntitiesOptions{Filter: &filter}
	if top > 0 {
		opts.Top = &top
	}
	var out []string
	pager := tc.NewListEntitiesPager(opts)
	for pager.More() {
		resp, err := pager.NextPage(context.Background())
		if err != nil {
			t.Fatalf("query %q: %v", filter, err)
		}
		for _, raw := range resp.Entities {
			var e struct {
				PartitionKey, RowKey, Name string
				G                          int
			}
			if err := json.Unmarshal(raw, &e); err != nil {
				t.Fatal(err)
			}
			out = append(out, fmt.Sprintf("%s/%s G=%d %s", e.PartitionKey, e.RowKey, e.G, e.Name))
		}
	}
	return out
}

func entityBody(t *testing.T, pk, rk string, r row) []byte {
	return mustJSON(t, map[string]any{"PartitionKey": pk, "RowKey": rk, "G": r.G, "Name": r.Name})
}

// seed fills partition pk with n rows in changesets of 100.
func seed(t *testing.T, tc *aztables.Client, m model, pk string, n, groups int) {
	t.Helper()
	var actions []aztables.TransactionAction
	flush := func() {
		if len(actions) == 0 {
			return
		}
		if _, err := tc.SubmitTransaction(context.Background(), actions, nil); err != nil {
			t.Fatal(err)
		}
		actions = nil
	}
	for i := 0; i < n; i++ {
		rk, r := fmt.Sprintf("r%04d", i), row{G: i % groups, Name: fmt.Sprintf("n%d", i)}
		m.put(pk, rk, r)
		actions = append(actions, aztables.TransactionAction{ActionType: aztables.TransactionTypeAdd, Entity: entityBody(t, pk, rk, r)})
		if len(actions) == 100 {
			flush()
		}
	}
	flush()
}
