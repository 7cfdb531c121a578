package cluster_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/lazuli-storage/lazuli/internal/check/netns"
	"github.com/lazuli-storage/lazuli/internal/check/s3test"
	"github.com/lazuli-storage/lazuli/internal/engine/store/postgres/pgtest"
)

// netnsEnv, set in a re-executed test binary, starts every cluster of
// startCluster as two node processes, each alone in a network namespace
// of its own with its own address, joined to the host's by a veth pair.
// The pass's PostgreSQL and S3 servers listen on a host address
// (netns.HostAddress) that each node reaches across its link, so that
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
// namespace of their own, over one PostgreSQL and one S3 server that this
// test starts on a host address (scripts/postgres.sh and scripts/s3.sh
// with their ADDRESS), and requires every one of them to pass there.
func TestClusterInNetworkNamespaces(t *testing.T) {
	if os.Getenv(netnsEnv) != "" || os.Getenv(extentsEnv) != "" {
		t.Skip("this is a second pass itself")
	}
	netns.Require(t)
	s3test.S3Extents(t) // skips, or fails in CI, where no S3 server (nor its build) is at hand
	host := netns.HostAddress(t)
	env := append(startS3At(t, host), pgtest.EnvURL+"="+startPostgresAt(t, host))
	runPass(t, inNamespacesTests, append(env, netnsEnv+"=1", extentsEnv+"=s3")...)
}

// startNamespacedNodes starts c's nodes as processes, each in a new
// network namespace, serving the database db and c's extents, which must
// be on a host address a namespace reaches: the host's loopback is not
// the namespace's. Their fake clocks start at one instant and move only
// through their admin listeners (cluster.advance).
func (c *cluster) startNamespacedNodes(t *testing.T, db string, services []string) {
	t.Helper()
	exe, err := os.Executable()
	must(t, err)
	if len(services) == 0 {
		services = []string{"blob", "queue", "table", "file"}
	}
	wantReachable(t, "the database", db, "")
	wantReachable(t, "the extents", c.extents, "endpoint")
	at := time.Now()
	for range nodes {
		ns := netns.New(t)
		spec := childSpec{store: db, extents: c.extents, services: strings.Join(services, ","), at: at, host: ns.NSIP}
		node := startChildCommand(t, ns.Command(exe, "-test.run=^$"), spec)
		if !strings.Contains(node.connStr, "//"+ns.NSIP+":") {
			t.Fatalf("a node in namespace %s serves %s, not at its address %s", ns.Name, node.connStr, ns.NSIP)
		}
		c.connect(t, node.connStr)
		c.admins = append(c.admins, node.adminURL)
	}
}

// wantReachable fails t if the server the URL raw names (its host, or its
// query parameter param's host:port) is on loopback, which a node in a
// namespace would not reach; "" is content kept in the database.
func wantReachable(t *testing.T, what, raw, param string) {
	t.Helper()
	if raw == "" {
		return
	}
	u, err := url.Parse(raw)
	must(t, err)
	host := u.Hostname()
	if param != "" {
		host, _, err = net.SplitHostPort(u.Query().Get(param))
		must(t, err)
	}
	if ip := net.ParseIP(host); host == "localhost" || ip != nil && ip.IsLoopback() {
		t.Fatalf("%s (%s) is on loopback, which a node in a network namespace does not reach: the namespaced pass starts its servers on netns.HostAddress", what, raw)
	}
}

// startPostgresAt starts a PostgreSQL server listening on host for t
// alone, stopped when t ends, and returns its URL.
func startPostgresAt(t *testing.T, host string) string {
	t.Helper()
	script := repoScript(t, "postgres.sh")
	// /tmp: the server runs as user postgres, which must reach the directory.
	dir, err := os.MkdirTemp("/tmp", "lazuli-pgnetns-")
	must(t, err)
	t.Cleanup(func() { os.RemoveAll(dir) })
	port := freePorts(t, host, 1, 65536)
	out, err := exec.Command(script, "start", dir, strconv.Itoa(port), host).Output()
	t.Cleanup(func() { _ = exec.Command(script, "stop", dir).Run() })
	if err != nil {
		t.Fatalf("postgres.sh start: %v", scriptErr(err))
	}
	fields := strings.Fields(string(out))
	if len(fields) == 0 {
		t.Fatal("postgres.sh start printed no URL")
	}
	return fields[len(fields)-1]
}

// startS3At starts an S3 server listening on host for t alone, stopped
// when t ends, with its bucket made, and returns the environment that
// names it to a test pass: the variables s3.sh prints.
func startS3At(t *testing.T, host string) []string {
	t.Helper()
	script := repoScript(t, "s3.sh")
	dir, err := os.MkdirTemp("", "lazuli-s3netns-")
	must(t, err)
	t.Cleanup(func() { os.RemoveAll(dir) })
	// s3.sh listens on port to port+3 and each one's port+10000: below
	// Linux's ephemeral ports (32768 and up), which a connection that any
	// process opens may take between this check and the server's start.
	port := freePorts(t, host, 4, 32768-10004)
	out, err := exec.Command(script, "start", dir, strconv.Itoa(port), host).Output()
	t.Cleanup(func() { _ = exec.Command(script, "stop", dir).Run() })
	if err != nil {
		t.Fatalf("s3.sh start: %v", scriptErr(err))
	}
	var env []string
	for line := range strings.Lines(string(out)) {
		name, value, ok := strings.Cut(strings.TrimPrefix(strings.TrimSpace(line), "export "), "=")
		if ok {
			env = append(env, name+"="+strings.Trim(value, "'"))
		}
	}
	if !slices.ContainsFunc(env, func(v string) bool { return strings.HasPrefix(v, s3test.S3Env+"=") }) {
		t.Fatalf("s3.sh start printed no %s: %s", s3test.S3Env, out)
	}
	return env
}

// freePorts is the first of n consecutive ports that, with each one's
// port+10000 when n > 1 (s3.sh's gRPC ports), nobody listens on at host,
// all below limit.
func freePorts(t *testing.T, host string, n, limit int) int {
	t.Helper()
	for range 100 {
		base := 20000 + rand.IntN(limit-n-20000)
		free := true
		for p := base; p < base+n && free; p++ {
			free = portFree(host, p) && (n == 1 || portFree(host, p+10000))
		}
		if free {
			return base
		}
	}
	t.Fatalf("no %d free ports at %s between 20000 and %d", n, host, limit)
	return 0
}

// portFree reports whether port can be listened on at host now.
func portFree(host string, port int) bool {
	l, err := net.Listen("tcp", net.JoinHostPort(host, strconv.Itoa(port)))
	if err != nil {
		return false
	}
	l.Close()
	return true
}

// repoScript is the path of one of the repository's scripts.
func repoScript(t *testing.T, name string) string {
	t.Helper()
	path, err := filepath.Abs(filepath.Join("..", "..", "..", "scripts", name))
	must(t, err)
	_, err = os.Stat(path)
	must(t, err)
	return path
}

// scriptErr is err with what the script wrote to its standard error.
func scriptErr(err error) error {
	var exit *exec.ExitError
	if errors.As(err, &exit) && len(exit.Stderr) > 0 {
		return fmt.Errorf("%w: %s", err, strings.TrimSpace(string(exit.Stderr)))
	}
	return err
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
