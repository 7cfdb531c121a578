package linearize

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blockblob"
	"github.com/anishathalye/porcupine"

	"github.com/lazuli-storage/lazuli/internal/clock"
	"github.com/lazuli-storage/lazuli/internal/lazulitest"
	"github.com/lazuli-storage/lazuli/internal/store/postgres/pgtest"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

// opsPerClient is the history's length per client: short in CI, longer
// with LAZULI_LINEARIZE_OPS (make torture).
func opsPerClient() int {
	if n, err := strconv.Atoi(os.Getenv("LAZULI_LINEARIZE_OPS")); err == nil && n > 0 {
		return n
	}
	return 40
}

// registerState is the blob as the model knows it: its content and ETag.
type registerState struct{ value, etag string }

// registerInput is a read, or a write conditional on an ETag.
type registerInput struct {
	write    bool
	ifMatch  string
	newValue string
}

// registerOutput is what the service answered: a read's content and ETag,
// or a write's success (with the new ETag) or 412.
type registerOutput struct {
	value, etag string
	ok          bool
}

// register is the sequential model of one blob under reads and If-Match
// writes: a read returns the current content and ETag; a write succeeds
// exactly when its If-Match names the current ETag, and then the blob has
// the new content and the ETag the service answered with.
func register(initial registerState) porcupine.Model {
	return porcupine.Model{
		Init: func() any { return initial },
		Step: func(state, input, output any) (bool, any) {
			s, in, out := state.(registerState), input.(registerInput), output.(registerOutput)
			if !in.write {
				return out.value == s.value && out.etag == s.etag, s
			}
			if out.ok {
				return in.ifMatch == s.etag, registerState{in.newValue, out.etag}
			}
			return in.ifMatch != s.etag, s
		},
		Equal: func(a, b any) bool { return a.(registerState) == b.(registerState) },
		DescribeOperation: func(input, output any) string {
			in, out := input.(registerInput), output.(registerOutput)
			if in.write {
				return fmt.Sprintf("write %s if %s -> %v %s", in.newValue, in.ifMatch, out.ok, out.etag)
			}
			return fmt.Sprintf("read -> %s %s", out.value, out.etag)
		},
	}
}

// recordRegister runs 8 clients (spread over the given connection strings)
// doing reads and conditional writes of one blob, and returns the history.
func recordRegister(t *testing.T, connStrs []string) ([]porcupine.Operation, registerState) {
	t.Helper()
	ctx := context.Background()
	noRetry := &azblob.ClientOptions{ClientOptions: azcore.ClientOptions{Retry: policy.RetryOptions{MaxRetries: -1}}}
	var clients []*blockblob.Client
	for i := 0; i < 8; i++ {
		c, err := azblob.NewClientFromConnectionString(connStrs[i%len(connStrs)], noRetry)
		if err != nil {
			t.Fatal(err)
		}
		clients = append(clients, c.ServiceClient().NewContainerClient("reg").NewBlockBlobClient("r"))
	}
	owner, _ := azblob.NewClientFromConnectionString(connStrs[0], nil)
	if _, err := owner.CreateContainer(ctx, "reg", nil); err != nil {
		t.Fatal(err)
	}
	first, err := owner.UploadBuffer(ctx, "reg", "r", []byte("v0"), nil)
	if err != nil {
		t.Fatal(err)
	}
	initial := registerState{"v0", string(*first.ETag)}
	start := time.Now()
	var mu sync.Mutex
	var history []porcupine.Operation
	var wg sync.WaitGroup
	for id, b := range clients {
		wg.Go(func() {
			for i := 0; i < opsPerClient(); i++ {
				call := time.Since(start).Nanoseconds()
				in, out, err := step(ctx, b, id, i)
				if err != nil {
					t.Errorf("client %d: %v", id, err)
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
	return history, initial
}

// step does one read, or one write conditional on the ETag the client last
// read (every other step).
func step(ctx context.Context, b *blockblob.Client, id, i int) (registerInput, registerOutput, error) {
	resp, err := b.DownloadStream(ctx, nil)
	if err != nil {
		return registerInput{}, registerOutput{}, err
	}
	data, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return registerInput{}, registerOutput{}, err
	}
	if i%2 == 0 {
		return registerInput{}, registerOutput{value: string(data), etag: string(*resp.ETag)}, nil
	}
	in := registerInput{write: true, ifMatch: string(*resp.ETag), newValue: fmt.Sprintf("c%d-%d", id, i)}
	w, err := b.Upload(ctx, nopSeekCloser{bytes.NewReader([]byte(in.newValue))}, &blockblob.UploadOptions{
		AccessConditions: &blob.AccessConditions{ModifiedAccessConditions: &blob.ModifiedAccessConditions{IfMatch: resp.ETag}}})
	var re *azcore.ResponseError
	switch {
	case err == nil:
		return in, registerOutput{ok: true, etag: string(*w.ETag)}, nil
	case errors.As(err, &re) && re.StatusCode == 412:
		return in, registerOutput{}, nil
	}
	return in, registerOutput{}, err
}

type nopSeekCloser struct{ *bytes.Reader }

func (nopSeekCloser) Close() error { return nil }

func checkRegister(t *testing.T, connStrs []string) {
	history, initial := recordRegister(t, connStrs)
	result := porcupine.CheckOperationsTimeout(register(initial), history, time.Minute)
	if result != porcupine.Ok {
		t.Fatalf("the history of %d reads and If-Match writes is not linearizable (%v)", len(history), result)
	}
	t.Logf("%d operations from 8 clients over %d node(s): linearizable", len(history), len(connStrs))
}

// TestConditionalWritesOneNode: reads and If-Match writes of one blob on
// the default durable engine form a linearizable history.
func TestConditionalWritesOneNode(t *testing.T) {
	in := lazulitest.Start(t, lazulitest.Options{Clock: clock.Real{}})
	checkRegister(t, []string{in.ConnectionString})
}

// TestConditionalWritesTwoNodes: the same through two nodes sharing one
// PostgreSQL, clients alternating between them.
func TestConditionalWritesTwoNodes(t *testing.T) {
	db := lazulitest.PostgresDatabase(t, pgtest.URL(t))
	nodes := lazulitest.StartNodes(t, 2, lazulitest.Options{Store: db, Clock: clock.Real{}, Services: []string{"blob"}})
	checkRegister(t, []string{nodes[0].ConnectionString, nodes[1].ConnectionString})
}

// TestRegisterModelRefusesAStaleRead: the checker is not vacuous — a read
// that starts after a write completed and still returns the old content is
// found not linearizable.
func TestRegisterModelRefusesAStaleRead(t *testing.T) {
	initial := registerState{"v0", "e0"}
	history := []porcupine.Operation{
		{ClientId: 0, Input: registerInput{write: true, ifMatch: "e0", newValue: "v1"}, Call: 0, Output: registerOutput{ok: true, etag: "e1"}, Return: 10},
		{ClientId: 1, Input: registerInput{}, Call: 20, Output: registerOutput{value: "v0", etag: "e0"}, Return: 30},
	}
	if porcupine.CheckOperations(register(initial), history) {
		t.Fatal("a stale read after a completed write was accepted")
	}
	history[1].Output = registerOutput{value: "v1", etag: "e1"}
	if !porcupine.CheckOperations(register(initial), history) {
		t.Fatal("a read of the completed write was refused")
	}
}
