package cluster_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lazuli-storage/lazuli/internal/base/clock"
	"github.com/lazuli-storage/lazuli/internal/check/lazulitest"
	"github.com/lazuli-storage/lazuli/internal/engine/store/postgres/pgtest"
	"github.com/lazuli-storage/lazuli/internal/rule/etag"
	"github.com/lazuli-storage/lazuli/internal/run/app"
	"github.com/lazuli-storage/lazuli/internal/run/config"
)

// Two nodes in one process share its package variables, so they cannot
// show that a node keeps no state another needs. The tests below run the
// second node as a separate process (this test binary, re-executed with
// childStoreEnv set) whose clock is also ten minutes behind the first
// node's: real nodes' clocks differ too.
const (
	childStoreEnv    = "LAZULI_CLUSTER_CHILD_STORE"
	childClockEnv    = "LAZULI_CLUSTER_CHILD_CLOCK"
	childServicesEnv = "LAZULI_CLUSTER_CHILD_SERVICES"
	childExtentsEnv  = "LAZULI_CLUSTER_CHILD_EXTENTS"
	childHostEnv     = "LAZULI_CLUSTER_CHILD_HOST"
	childSkew        = -10 * time.Minute
)

// childAdminToken admits the test to the admin listener of a child node
// that listens on another address than loopback.
const childAdminToken = "cluster-child-admin-token"

// childSpec is what a child node serves, and where.
type childSpec struct {
	store, extents, services string
	// at is where the child's fake clock stands at its start.
	at time.Time
	// host is the address the child's listeners bind, its admin listener
	// (admitting childAdminToken) among them; "" keeps them on loopback
	// with no admin listener.
	host string
}

// childSpecFromEnv is the spec a child node reads from its environment;
// ok is false in the test binary's ordinary run.
func childSpecFromEnv() (spec childSpec, ok bool, err error) {
	spec.store = os.Getenv(childStoreEnv)
	if spec.store == "" {
		return spec, false, nil
	}
	spec.services, spec.extents, spec.host = os.Getenv(childServicesEnv), os.Getenv(childExtentsEnv), os.Getenv(childHostEnv)
	if spec.services == "" {
		spec.services = "blob,queue,table"
	}
	spec.at, err = time.Parse(time.RFC3339Nano, os.Getenv(childClockEnv))
	return spec, true, err
}

// env is the environment that passes spec to a child.
func (spec childSpec) env() []string {
	return append(os.Environ(), childStoreEnv+"="+spec.store, childClockEnv+"="+spec.at.Format(time.RFC3339Nano),
		childServicesEnv+"="+spec.services, childExtentsEnv+"="+spec.extents, childHostEnv+"="+spec.host)
}

// args is the child's command line, as lazuli serve would take it.
func (spec childSpec) args() []string {
	args := []string{"--store", spec.store, "--services", spec.services}
	for _, svc := range []string{"blob", "queue", "table", "file", "smb"} {
		args = append(args, "--"+svc+"Port", "0")
		if spec.host != "" {
			args = append(args, "--"+svc+"Host", spec.host)
		}
	}
	if spec.host == "" {
		args = append(args, "--noAdmin")
	} else {
		args = append(args, "--adminHost", spec.host, "--adminPort", "0", "--adminToken", childAdminToken)
	}
	if spec.extents != "" {
		args = append(args, "--extents", spec.extents)
	}
	return args
}

// runChild serves spec from this process until stdin closes. It prints its
// connection string and, when it runs them, "SMB=host:port" and
// "ADMIN=url" before it.
func runChild(spec childSpec) int {
	cfg, err := config.Parse(spec.args(), func(string) string { return "" }, io.Discard)
	if err != nil {
		fmt.Fprintln(os.Stderr, "child node: config:", err)
		return 2
	}
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	a, err := app.Start(context.Background(), cfg, app.Options{Clock: clock.NewFake(spec.at), Logger: logger})
	if err != nil {
		fmt.Fprintln(os.Stderr, "child node: start:", err)
		return 1
	}
	if admin := a.AdminURL(); admin != "" {
		fmt.Println("ADMIN=" + admin)
	}
	fmt.Println(a.ConnectionString())
	if a.SMBAddr != "" {
		fmt.Println("SMB=" + a.SMBAddr)
	}
	_, _ = io.Copy(io.Discard, os.Stdin)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := a.Close(ctx); err != nil {
		fmt.Fprintln(os.Stderr, "child node: close:", err)
		return 1
	}
	return 0
}

// startMixedCluster starts node 1 in this process and node 2 as a child
// process over the same database.
func startMixedCluster(t *testing.T) *cluster {
	t.Helper()
	db := lazulitest.PostgresDatabase(t, pgtest.URL(t))
	c := &cluster{ctx: context.Background()}
	c.nodes = lazulitest.StartNodes(t, 1, lazulitest.Options{Store: db, Services: []string{"blob", "queue", "table"}})
	c.connect(t, c.nodes[0].ConnectionString)
	c.connect(t, startChild(t, db, c.nodes[0].Clock.Now().Add(childSkew)))
	return c
}

// startChild runs a node process and returns its connection string; the
// process ends when the test does.
func startChild(t *testing.T, url string, at time.Time) string {
	t.Helper()
	return startChildNode(t, url, at, "blob,queue,table").connStr
}

// childNode is a node running as a separate process.
type childNode struct {
	connStr, smbAddr, adminURL string
	cmd                        *exec.Cmd
	killed                     bool
}

// kill ends the process at once, as a crash would: nothing is released.
func (c *childNode) kill(t *testing.T) {
	t.Helper()
	c.killed = true
	must(t, c.cmd.Process.Kill())
	_ = c.cmd.Wait()
}

// startChildNode runs a node process with the given services; it stops
// when the test ends, unless killed before.
func startChildNode(t *testing.T, url string, at time.Time, services string) *childNode {
	t.Helper()
	exe, err := os.Executable()
	must(t, err)
	return startChildCommand(t, exec.Command(exe, "-test.run=^$"), childSpec{store: url, at: at, services: services})
}

// startChildCommand runs cmd, a command that runs this test binary, as a
// node serving spec.
func startChildCommand(t *testing.T, cmd *exec.Cmd, spec childSpec) *childNode {
	t.Helper()
	cmd.Env = spec.env()
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	must(t, err)
	stdout, err := cmd.StdoutPipe()
	must(t, err)
	must(t, cmd.Start())
	c := &childNode{cmd: cmd}
	t.Cleanup(func() {
		if c.killed {
			return
		}
		stdin.Close() // asks the child to stop
		if err := cmd.Wait(); err != nil {
			t.Errorf("child node: %v", err)
		}
	})
	ready := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(stdout)
		// The SMB line, when there is one, follows the connection string.
		for sc.Scan() {
			line := sc.Text()
			if strings.HasPrefix(line, "DefaultEndpointsProtocol=") {
				c.connStr = line
				if !strings.Contains(spec.services, "file") {
					close(ready)
				}
			} else if addr, ok := strings.CutPrefix(line, "SMB="); ok {
				c.smbAddr = addr
				close(ready)
			} else if url, ok := strings.CutPrefix(line, "ADMIN="); ok {
				c.adminURL = url
			}
		}
		_, _ = io.Copy(io.Discard, stdout)
	}()
	select {
	case <-ready:
		return c
	case <-time.After(60 * time.Second):
		t.Fatal("the child node did not print its endpoints within 60 s")
		return nil
	}
}

// Writes to one blob alternating between two processes whose clocks are
// ten minutes apart get strictly increasing ETags: the process behind
// continues from the blob's stored tick, not from its own clock.
func TestETagsIncreaseAcrossProcesses(t *testing.T) {
	c := startMixedCluster(t)
	c.container(t, "etags")
	var last etag.Tick
	for i := range 40 {
		tag, err := upload(c, c.blob(i, "etags", "b"), []byte{byte(i)}, nil)
		must(t, err)
		tick, ok := etag.Parse(string(tag))
		if !ok {
			t.Fatalf("ETag %s", tag)
		}
		if tick <= last {
			t.Fatalf("write %d on node %d got ETag %s, not after the previous %s", i, i%nodes+1, tag, last)
		}
		last = tick
	}
}

// The If-Match counters of blob and table end exact when the writers
// alternate between two processes.
func TestCountersAcrossProcesses(t *testing.T) {
	c := startMixedCluster(t)
	c.container(t, "counters")
	_, err := upload(c, c.blob(0, "counters", "n"), []byte("0"), nil)
	must(t, err)
	_, err = c.tables[0].CreateTable(c.ctx, "counters", nil)
	must(t, err)
	_, err = c.table(0, "counters").AddEntity(c.ctx, entityJSON(t, map[string]any{"PartitionKey": "c", "RowKey": "c", "N": 0}), nil)
	must(t, err)
	const writers, increments = 8, 4
	var wg sync.WaitGroup
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range increments {
				if _, err := incrementBlob(t, c, c.blob(w+i, "counters", "n")); err != nil {
					t.Error(err)
					return
				}
				if err := incrementEntity(t, c.table(w+i+1, "counters"), w); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	for n := range nodes {
		if data, _ := download(t, c, c.blob(n, "counters", "n")); string(data) != fmt.Sprint(writers*increments) {
			t.Errorf("node %d reads the blob counter as %s, want %d", n+1, data, writers*increments)
		}
		got, err := c.table(n, "counters").GetEntity(c.ctx, "c", "c", nil)
		must(t, err)
		if v := decodeEntity(t, got.Value)["N"]; v != float64(writers*increments) {
			t.Errorf("node %d reads the entity counter as %v, want %d", n+1, v, writers*increments)
		}
	}
}
