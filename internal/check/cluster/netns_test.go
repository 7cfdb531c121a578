package cluster_test

import (
	"net/http"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/lazuli-storage/lazuli/internal/check/netns"
	"github.com/lazuli-storage/lazuli/internal/check/s3test"
)

// netnsEnv, set in a re-executed test binary, starts every cluster of
// startCluster as two node processes, each alone in a network namespace
// of its own with its own address, joined to the host's by a veth pair.
// The test's PostgreSQL and S3 servers stay on the host's loopback; each
// node reaches them through relays on its link's host address, so that
// nothing a node says to the store, to S3 or to a client crosses loopback,
// as between machines.
const netnsEnv = "LAZULI_CLUSTER_NETNS"

// inNamespacesTests are the cross-node scenarios the namespaced pass runs:
// writes on one node read on the other, leases and conditional writes
// across nodes, for blobs, queues, tables and files.
var inNamespacesTests = []string{
	"TestBlobCounterAcrossNodes", "TestBlobLeaseAcrossNodes", "TestBlocksStagedOnOneNodeCommittedOnAnother",
	"TestETagsIncreaseAcrossNodes", "TestQueueDrainAcrossNodes", "TestQueueVisibilityAcrossNodes",
	"TestTableMergeRaceAcrossNodes", "TestTableBatchAtomicAcrossNodes", "TestFileRangesAcrossNodes",
	"TestFileLeaseAcrossNodes", "TestDirectoryCreateRaceAcrossNodes",
}

// TestClusterInNetworkNamespaces runs the cross-node scenarios again in a
// pass of this test binary whose two nodes each run in a network
// namespace of their own, over one PostgreSQL and one S3 server on the
// host, and requires every one of them to pass there.
func TestClusterInNetworkNamespaces(t *testing.T) {
	if os.Getenv(netnsEnv) != "" || os.Getenv(extentsEnv) != "" {
		t.Skip("this is a second pass itself")
	}
	netns.Require(t)
	s3test.S3Extents(t) // skips, or fails in CI, without a server
	runPass(t, inNamespacesTests, netnsEnv+"=1", extentsEnv+"=s3")
}

// startNamespacedNodes starts c's nodes as processes, each in a new
// network namespace, serving the database db and c's extents through
// relays on the namespace's link. Their fake clocks start at one instant
// and move only through their admin listeners (cluster.advance).
func (c *cluster) startNamespacedNodes(t *testing.T, db string, services []string) {
	t.Helper()
	exe, err := os.Executable()
	must(t, err)
	if len(services) == 0 {
		services = []string{"blob", "queue", "table", "file"}
	}
	at := time.Now()
	for range nodes {
		ns := netns.New(t)
		spec := childSpec{store: relayedStore(t, db, ns.HostIP), extents: relayedExtents(t, c.extents, ns.HostIP),
			services: strings.Join(services, ","), at: at, host: ns.NSIP}
		node := startChildCommand(t, ns.Command(exe, "-test.run=^$"), spec)
		if !strings.Contains(node.connStr, "//"+ns.NSIP+":") {
			t.Fatalf("a node in namespace %s serves %s, not at its address %s", ns.Name, node.connStr, ns.NSIP)
		}
		c.connect(t, node.connStr)
		c.admins = append(c.admins, node.adminURL)
	}
}

// relayedStore is the postgres:// URL db with its server reached through a
// relay on host.
func relayedStore(t *testing.T, db, host string) string {
	t.Helper()
	u, err := url.Parse(db)
	if err != nil || u.Scheme != "postgres" && u.Scheme != "postgresql" {
		t.Fatalf("the namespaced pass needs the database as a postgres:// URL, not %q (%v)", db, err)
	}
	u.Host = netns.Relay(t, host, u.Host)
	return u.String()
}

// relayedExtents is the s3:// URL extents with its endpoint reached
// through a relay on host; "" stays "".
func relayedExtents(t *testing.T, extents, host string) string {
	t.Helper()
	if extents == "" {
		return ""
	}
	u, err := url.Parse(extents)
	must(t, err)
	q := u.Query()
	q.Set("endpoint", netns.Relay(t, host, q.Get("endpoint")))
	u.RawQuery = q.Encode()
	return u.String()
}

// advance moves the cluster's clock on by d: the fake clock the nodes in
// this process share, and each node process's through its admin listener
// (POST /clock/advance), as an operator would.
func (c *cluster) advance(t *testing.T, d time.Duration) {
	t.Helper()
	if len(c.nodes) > 0 {
		c.nodes[0].Fake.Advance(d)
	}
	for _, admin := range c.admins {
		req, err := http.NewRequest(http.MethodPost, admin+"/clock/advance?by="+d.String(), nil)
		must(t, err)
		req.Header.Set("Authorization", "Bearer "+childAdminToken)
		resp, err := http.DefaultClient.Do(req)
		must(t, err)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("advance the clock of %s: %s", admin, resp.Status)
		}
	}
}
