package cluster_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/data/aztables"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/service"
	fileservice "github.com/Azure/azure-sdk-for-go/sdk/storage/azfile/service"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azqueue"

	"github.com/lazuli-storage/lazuli/internal/check/lazulitest"
	"github.com/lazuli-storage/lazuli/internal/engine/store/postgres/pgtest"
	"github.com/lazuli-storage/lazuli/internal/run/config"
)

func TestMain(m *testing.M) {
	if spec, ok, err := childSpecFromEnv(); err != nil {
		fmt.Fprintln(os.Stderr, "child node:", err)
		os.Exit(2)
	} else if ok {
		os.Exit(runChild(spec))
	}
	os.Exit(pgtest.Main(m))
}

// cluster is two nodes over one database, with clients for each.
type cluster struct {
	nodes  []*lazulitest.Instance
	blobs  []*service.Client
	queues []*azqueue.ServiceClient
	tables []*aztables.ServiceClient
	files  []*fileservice.Client
	ctx    context.Context
	// extents is the nodes' --extents URL, "" when content lives in the
	// database.
	extents string
	// admins are the admin listeners of node processes (the namespaced
	// pass's), through which their clocks move.
	admins []string
}

// nodes is how many nodes a cluster has; clients pick one with i%nodes.
const nodes = 2

// startCluster starts the nodes on a database of the test's own.
func startCluster(t *testing.T, services ...string) *cluster {
	t.Helper()
	return startClusterWith(t, nil, services...)
}

// startClusterWith starts the nodes with configure applied to each one's
// configuration.
func startClusterWith(t *testing.T, configure func(*config.Config), services ...string) *cluster {
	t.Helper()
	db := lazulitest.PostgresDatabase(t, pgtest.URL(t))
	c := &cluster{ctx: context.Background()}
	c.extents = clusterExtents(t)
	if os.Getenv(netnsEnv) != "" {
		if configure != nil {
			t.Fatal("a node in a network namespace is a process: its configuration cannot be edited in place")
		}
		c.startNamespacedNodes(t, db, services)
		return c
	}
	opts := lazulitest.Options{Store: db, Services: services, Configure: configure, Extents: c.extents}
	c.nodes = lazulitest.StartNodes(t, nodes, opts)
	for _, n := range c.nodes {
		c.connect(t, n.ConnectionString)
	}
	return c
}

// connect adds clients for the node with the given connection string.
func (c *cluster) connect(t *testing.T, connStr string) {
	t.Helper()
	noRetry := azcore.ClientOptions{Retry: policy.RetryOptions{MaxRetries: -1}}
	blobs, err := service.NewClientFromConnectionString(connStr, &service.ClientOptions{ClientOptions: noRetry})
	must(t, err)
	queues, err := azqueue.NewServiceClientFromConnectionString(connStr, &azqueue.ClientOptions{ClientOptions: noRetry})
	must(t, err)
	tables, err := aztables.NewServiceClientFromConnectionString(connStr, &aztables.ClientOptions{ClientOptions: noRetry})
	must(t, err)
	files, err := fileservice.NewClientFromConnectionString(connStr, &fileservice.ClientOptions{ClientOptions: noRetry})
	must(t, err)
	c.blobs, c.queues, c.tables = append(c.blobs, blobs), append(c.queues, queues), append(c.tables, tables)
	c.files = append(c.files, files)
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// status is the HTTP status of an SDK error, 0 for none or a non-HTTP one.
func status(err error) int {
	var re *azcore.ResponseError
	if errors.As(err, &re) {
		return re.StatusCode
	}
	return 0
}

// wantError fails t unless err is an error answer with the given status
// and error code.
func wantError(t testing.TB, err error, code int, errorCode string) {
	t.Helper()
	var re *azcore.ResponseError
	if !errors.As(err, &re) || re.StatusCode != code || re.ErrorCode != errorCode {
		t.Fatalf("got %v, want %d %s", err, code, errorCode)
	}
}
