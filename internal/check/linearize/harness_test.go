package linearize

import (
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/anishathalye/porcupine"

	"github.com/lazuli-storage/lazuli/internal/check/lazulitest"
	"github.com/lazuli-storage/lazuli/internal/check/s3test"
	"github.com/lazuli-storage/lazuli/internal/engine/extent"
	"github.com/lazuli-storage/lazuli/internal/engine/store/postgres/pgtest"
	"github.com/lazuli-storage/lazuli/internal/run/config"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

// clients is how many SDK clients run concurrently in every history.
const clients = 8

// opsPerClient is the history's length per client: short in CI, longer
// with LAZULI_LINEARIZE_OPS (make torture).
func opsPerClient() int {
	if n, err := strconv.Atoi(os.Getenv("LAZULI_LINEARIZE_OPS")); err == nil && n > 0 {
		return n
	}
	return 40
}

// noRetry makes every SDK call one request: a retried call would be two
// operations in the history with one recorded answer.
var noRetry = azcore.ClientOptions{Retry: policy.RetryOptions{MaxRetries: -1}}

// TestOneNode checks every model on one node of the default durable engine
// (sqlite and files).
func TestOneNode(t *testing.T) {
	in := lazulitest.Start(t, lazulitest.Options{Configure: withHNS})
	checkAll(t, []string{in.ConnectionString}, 0)
}

// TestTwoNodes checks every model through two nodes sharing one PostgreSQL
// database, clients alternating between the nodes.
func TestTwoNodes(t *testing.T) {
	db := lazulitest.PostgresDatabase(t, pgtest.URL(t))
	nodes := lazulitest.StartNodes(t, 2, lazulitest.Options{Store: db, Services: []string{"blob", "queue", "table"}, Configure: withHNS})
	checkAll(t, []string{nodes[0].ConnectionString, nodes[1].ConnectionString}, 0)
}

// TestOneNodeOnS3 checks every model on one node keeping content on the S3
// server s3test.S3Env names (--extents s3://...), the register's blob
// written past the inline limit so that every write and read of it goes to
// the object store.
func TestOneNodeOnS3(t *testing.T) {
	extents := s3test.S3Extents(t)
	in := lazulitest.Start(t, lazulitest.Options{Extents: extents, Configure: withHNS})
	checkAll(t, []string{in.ConnectionString}, onS3ContentSize)
	s3test.WantObjects(t, extents)
}

// TestTwoNodesOnS3 checks every model through two nodes sharing one
// PostgreSQL database for records and one S3 prefix for content.
func TestTwoNodesOnS3(t *testing.T) {
	extents := s3test.S3Extents(t)
	db := lazulitest.PostgresDatabase(t, pgtest.URL(t))
	nodes := lazulitest.StartNodes(t, 2, lazulitest.Options{Store: db, Extents: extents, Services: []string{"blob", "queue", "table"}, Configure: withHNS})
	checkAll(t, []string{nodes[0].ConnectionString, nodes[1].ConnectionString}, onS3ContentSize)
	s3test.WantObjects(t, extents)
}

// withHNS serves the account with a hierarchical namespace
// (--hnsAccounts), which the Data Lake model's directory renames need; the
// blob, table and queue models see the same service either way.
func withHNS(c *config.Config) { c.HNSAccounts = []string{lazulitest.Account} }

// onS3ContentSize is the register blob's size when content lives on S3:
// over extent.DefaultInlineLimit, below which content stays in the record.
const onS3ContentSize = extent.DefaultInlineLimit + 4<<10

// checkAll records and checks one history per model against the nodes
// named by connStrs, the register's blob padded to contentSize bytes. The nodes' clock stands still (lazulitest's default
// fake clock), so fixed-duration leases and visibility timeouts never lapse
// and time enters none of the models; ETags still advance, each being
// issued above the object's previous one.
func checkAll(t *testing.T, connStrs []string, contentSize int) {
	t.Run("ConditionalWrites", func(t *testing.T) { checkRegister(t, connStrs, contentSize) })
	t.Run("Leases", func(t *testing.T) { checkLeases(t, connStrs) })
	t.Run("TableMerges", func(t *testing.T) { checkTableMerges(t, connStrs) })
	t.Run("QueueGetDelete", func(t *testing.T) { checkQueue(t, connStrs) })
	t.Run("LakeRenames", func(t *testing.T) { checkLake(t, connStrs, false) })
	t.Run("LakeRenamesAndCreates", func(t *testing.T) { checkLake(t, connStrs, true) })
}

// stepFunc performs one operation of client id (its i-th) and returns what
// the history records of it; an error ends the client and fails the test.
type stepFunc func(i int) (input, output any, err error)

// record runs the clients concurrently, each doing opsPerClient() steps,
// and returns their operations timed from one start.
func record(t *testing.T, steps []stepFunc) []porcupine.Operation {
	t.Helper()
	start := time.Now()
	var mu sync.Mutex
	var history []porcupine.Operation
	var wg sync.WaitGroup
	for id, step := range steps {
		wg.Go(func() {
			for i := 0; i < opsPerClient(); i++ {
				call := time.Since(start).Nanoseconds()
				in, out, err := step(i)
				if err != nil {
					t.Errorf("client %d, operation %d: %v", id, i, err)
					return
				}
				ret := time.Since(start).Nanoseconds()
				mu.Lock()
				history = append(history, porcupine.Operation{ClientId: id, Input: in, Call: call, Output: out, Return: ret})
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	return history
}

// clientRand is client id's own source of choices, so that clients do not
// contend on one generator.
func clientRand(id int) *rand.Rand {
	return rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), uint64(id)))
}

// check fails t unless history is linearizable under model. A refused
// history is drawn (porcupine's visualization) to a file named in the
// failure, for the next engineer to read.
// outcome names an operation's kind and result, to count them.
type outcome func(input, output any) string

func check(t *testing.T, model porcupine.Model, history []porcupine.Operation, what string, nodes int, kind outcome) {
	t.Helper()
	if t.Failed() {
		return // a client failed: the history is incomplete
	}
	result, info := porcupine.CheckOperationsVerbose(model, history, 2*time.Minute)
	if result != porcupine.Ok {
		drawing := filepath.Join(os.TempDir(), "lazuli-linearize-"+strconv.FormatInt(time.Now().UnixNano(), 36)+".html")
		if err := porcupine.VisualizePath(model, info, drawing); err != nil {
			drawing = "not drawn: " + err.Error()
		}
		t.Fatalf("the history of %d %s is not linearizable (%v); drawing: %s", len(history), what, result, drawing)
	}
	t.Logf("%d operations (%s) from %d clients over %d node(s): linearizable; %s", len(history), what, clients, nodes, tally(history, kind))
}

// result names an action with its success, or with the refusal given.
func result(action string, ok bool, refusal string) string {
	if ok {
		return action + " ok"
	}
	return action + " " + refusal
}

// tally counts the history's operations by outcome, so that a log shows
// the history exercised both sides of every rule.
func tally(history []porcupine.Operation, kind outcome) string {
	counts := map[string]int{}
	for _, op := range history {
		counts[kind(op.Input, op.Output)]++
	}
	keys := slices.Sorted(maps.Keys(counts))
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s %d", k, counts[k])
	}
	return strings.Join(parts, ", ")
}

// refusedWith reports whether err is the service refusing the operation
// with one of the given statuses (a legitimate outcome the model decides
// on), and passes any other error through.
func refusedWith(err error, statuses ...int) (bool, error) {
	if err == nil {
		return false, nil
	}
	var re *azcore.ResponseError
	if errors.As(err, &re) {
		for _, s := range statuses {
			if re.StatusCode == s {
				return true, nil
			}
		}
	}
	return false, err
}
