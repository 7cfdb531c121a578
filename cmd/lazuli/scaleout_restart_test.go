package main

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob"
)

// TestPostgresRestartUnderLoad restarts the nodes' PostgreSQL server while
// writers upload through both nodes with the SDK's retries on.
func TestPostgresRestartUnderLoad(t *testing.T) {
	if testing.Short() {
		t.Skip("starts server processes")
	}
	pg := startPostgres(t)
	restartUnderLoad(t, pg.url, nil, pg.restart)
}

// TestS3RestartUnderLoad restarts the S3 server that holds the nodes'
// content while writers upload through both nodes with the SDK's retries
// on.
func TestS3RestartUnderLoad(t *testing.T) {
	if testing.Short() {
		t.Skip("starts server processes")
	}
	s3 := startS3(t)
	pg := startPostgres(t)
	restartUnderLoad(t, pg.url, []string{"--extents", s3.url}, s3.restart)
}

// loadSizes are the sizes writers cycle through: inline in the record, and
// over the inline limit (an extent of its own).
var loadSizes = []int{1 << 10, 100 << 10}

// restartUnderLoad runs two nodes over db (with further flags), keeps
// writers uploading through both, calls restart, and then requires that
// every try the SDK made was answered with success, 500 or 503 (no other
// code, no hang up to the try timeout, no broken connection), that each
// node acknowledged writes again afterwards without being restarted
// itself, and that every acknowledged write reads back from both nodes.
func restartUnderLoad(t *testing.T, db string, flags []string, restart func(*testing.T)) {
	t.Helper()
	args := append([]string{"--store", db}, flags...)
	rec := &tryRecorder{statuses: map[int]int{}}
	var clients []*azblob.Client
	for range 2 {
		node := startChild(t, t.TempDir(), args...)
		client, err := azblob.NewClientFromConnectionString(node.connStr, &azblob.ClientOptions{ClientOptions: azcore.ClientOptions{
			Retry: policy.RetryOptions{MaxRetries: 8, TryTimeout: 30 * time.Second,
				RetryDelay: 200 * time.Millisecond, MaxRetryDelay: 2 * time.Second},
			PerRetryPolicies: []policy.Policy{rec}}})
		must(t, err)
		clients = append(clients, client)
	}
	ctx := context.Background()
	_, err := clients[0].CreateContainer(ctx, "load", nil)
	must(t, err)

	load := &writeLoad{acked: map[string][]byte{}}
	loadCtx, stop := context.WithCancel(ctx)
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() { load.write(loadCtx, clients, g) })
	}
	waitFor(t, 60*time.Second, "20 acknowledged writes before the restart", func() bool { return load.count(-1) >= 20 })
	restart(t)
	load.restarted()
	waitFor(t, 120*time.Second, "each node to acknowledge 10 writes after the restart", func() bool {
		return load.count(0) >= 10 && load.count(1) >= 10
	})
	stop()
	wg.Wait()

	t.Logf("tries by status: %v; writes acknowledged: %d; writes failed after retries: %v", rec.statuses, load.count(-1), load.failed)
	for code := range rec.statuses {
		if code != http.StatusCreated && code != http.StatusInternalServerError && code != http.StatusServiceUnavailable {
			t.Errorf("a try was answered %d: want 201, or 500/503 while a server restarts", code)
		}
	}
	if len(rec.broken) > 0 {
		t.Errorf("%d tries got no answer, first: %s", len(rec.broken), rec.broken[0])
	}
	for code := range load.failed {
		if code != http.StatusInternalServerError && code != http.StatusServiceUnavailable {
			t.Errorf("a write failed with %d after its retries: %s", code, load.firstErr[code])
		}
	}
	for name, want := range load.acked {
		for n, client := range clients {
			if got := downloadBlob(t, client, "load", name); !bytes.Equal(got, want) {
				t.Fatalf("acknowledged %s: node %d serves %d bytes, want the %d written", name, n, len(got), len(want))
			}
		}
	}
}

// tryRecorder is a per-try pipeline policy that counts the status of each
// answer and keeps the error of each try that got none.
type tryRecorder struct {
	mu       sync.Mutex
	statuses map[int]int
	broken   []string
}

func (r *tryRecorder) Do(req *policy.Request) (*http.Response, error) {
	resp, err := req.Next()
	r.mu.Lock()
	defer r.mu.Unlock()
	switch {
	case resp != nil:
		r.statuses[resp.StatusCode]++
	case req.Raw().Context().Err() == nil:
		r.broken = append(r.broken, err.Error())
	}
	return resp, err
}

// writeLoad is what the writers acknowledged, in total and per node since
// the restart.
type writeLoad struct {
	mu         sync.Mutex
	acked      map[string][]byte
	sinceStart [2]int
	restart    bool
	failed     map[int]int
	firstErr   map[int]string
}

func (l *writeLoad) write(ctx context.Context, clients []*azblob.Client, g int) {
	for i := 0; ctx.Err() == nil; i++ {
		name := fmt.Sprintf("g%d/%05d", g, i)
		size := loadSizes[i%len(loadSizes)]
		body := bytes.Repeat([]byte(name+";"), size/len(name+";")+1)[:size]
		node := (g + i) % len(clients)
		_, err := clients[node].UploadBuffer(ctx, "load", name, body, nil)
		l.mu.Lock()
		switch {
		case err == nil:
			l.acked[name] = body
			if l.restart {
				l.sinceStart[node]++
			}
		case ctx.Err() == nil:
			if l.failed == nil {
				l.failed, l.firstErr = map[int]int{}, map[int]string{}
			}
			if l.failed[status(err)]++; l.failed[status(err)] == 1 {
				l.firstErr[status(err)] = err.Error()
			}
		}
		l.mu.Unlock()
	}
}

// restarted starts counting each node's acknowledgements afresh.
func (l *writeLoad) restarted() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.restart = true
}

// count is node's acknowledgements since the restart, or all of them for
// node -1.
func (l *writeLoad) count(node int) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	if node < 0 {
		return len(l.acked)
	}
	return l.sinceStart[node]
}
