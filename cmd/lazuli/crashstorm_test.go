package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/data/aztables"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blockblob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azfile/file"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azfile/service"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azqueue"
)

// tortureCycles is how many kill-and-restart cycles the crash storm runs:
// a few in CI, as many as LAZULI_TORTURE_CYCLES asks (make torture).
func tortureCycles() int {
	if n, err := strconv.Atoi(os.Getenv("LAZULI_TORTURE_CYCLES")); err == nil && n > 0 {
		return n
	}
	return 3
}

// ledger is what the storm's writers were told succeeded, and what they
// had in flight when the server died (which may or may not have landed).
type ledger struct {
	mu       sync.Mutex
	blobs    map[string][]byte // Put Blob: name -> content
	counters map[string]int    // If-Match counter blob -> last acknowledged value
	ranges   map[string][]byte // file range "file/index" -> acknowledged bytes
	pending  map[string][]byte // file range -> bytes of a write not acknowledged
	messages map[string]bool   // queue message text -> acknowledged put
	deleted  map[string]bool   // acknowledged deletes: must never return
	entities map[string]string // table row key -> last acknowledged value
	inFlight map[string]string // table row key -> value of a write not acknowledged
}

func newLedger() *ledger {
	return &ledger{blobs: map[string][]byte{}, counters: map[string]int{}, ranges: map[string][]byte{},
		pending: map[string][]byte{}, messages: map[string]bool{}, deleted: map[string]bool{}, entities: map[string]string{},
		inFlight: map[string]string{}}
}

// stormClients are one writer's SDK clients.
type stormClients struct {
	blob  *azblob.Client
	file  *service.Client
	queue *azqueue.QueueClient
	table *aztables.Client
}

func connect(t *testing.T, connStr string) stormClients {
	t.Helper()
	b, err := azblob.NewClientFromConnectionString(connStr, nil)
	if err != nil {
		t.Fatal(err)
	}
	f, err := service.NewClientFromConnectionString(connStr, nil)
	if err != nil {
		t.Fatal(err)
	}
	q, err := azqueue.NewQueueClientFromConnectionString(connStr, "storm", nil)
	if err != nil {
		t.Fatal(err)
	}
	ts, err := aztables.NewServiceClientFromConnectionString(connStr, nil)
	if err != nil {
		t.Fatal(err)
	}
	return stormClients{b, f, q, ts.NewClient("storm")}
}

// TestCrashStorm runs 16 writers doing Put Blob, If-Match counter updates,
// Put Range on files, Put and Delete Message and table inserts and merges,
// kills the server with SIGKILL at a random moment, restarts it on the same
// data, and checks that every acknowledged write is there with its exact
// content (a write in flight at the kill may or may not be), and that no
// message whose delete was acknowledged comes back. It repeats for
// tortureCycles cycles.
func TestCrashStorm(t *testing.T) {
	if testing.Short() {
		t.Skip("starts server processes")
	}
	dir := t.TempDir()
	l := newLedger()
	srv := startChild(t, dir)
	c := connect(t, srv.connStr)
	ctx := context.Background()
	setupStorm(t, ctx, c)
	rng := rand.New(rand.NewPCG(7, uint64(time.Now().UnixNano())))
	total := 0
	for cycle := 0; cycle < tortureCycles(); cycle++ {
		stormCtx, stop := context.WithCancel(ctx)
		var wg sync.WaitGroup
		for g := 0; g < 16; g++ {
			wg.Go(func() { stormWriter(stormCtx, c, l, cycle, g) })
		}
		time.Sleep(time.Duration(300+rng.IntN(1200)) * time.Millisecond)
		srv.kill()
		stop()
		wg.Wait()
		srv = startChild(t, dir)
		c = connect(t, srv.connStr)
		total += verifyStorm(t, ctx, c, l)
	}
	t.Logf("%d cycles of SIGKILL and restart; %d acknowledged writes checked after the last", tortureCycles(), total)
}

func setupStorm(t *testing.T, ctx context.Context, c stormClients) {
	t.Helper()
	if _, err := c.blob.CreateContainer(ctx, "storm", nil); err != nil {
		t.Fatal(err)
	}
	for g := 0; g < 16; g++ {
		if _, err := c.blob.UploadBuffer(ctx, "storm", fmt.Sprintf("counter-%02d", g), []byte("0"), nil); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := c.file.NewShareClient("storm").Create(ctx, nil); err != nil {
		t.Fatal(err)
	}
	for g := 0; g < 16; g++ {
		if _, err := c.file.NewShareClient("storm").NewRootDirectoryClient().NewFileClient(fmt.Sprintf("f%02d", g)).Create(ctx, 16*1024, nil); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := c.queue.Create(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := c.table.CreateTable(ctx, nil); err != nil {
		t.Fatal(err)
	}
}

// stormWriter does one kind of write until ctx ends or the server dies.
func stormWriter(ctx context.Context, c stormClients, l *ledger, cycle, g int) {
	for i := 0; ctx.Err() == nil; i++ {
		var err error
		switch g % 5 {
		case 0:
			name := fmt.Sprintf("c%d/g%02d/%05d", cycle, g, i)
			body := bytes.Repeat([]byte(name+";"), 1+i%50)
			if _, err = c.blob.UploadBuffer(ctx, "storm", name, body, nil); err == nil {
				l.record(func() { l.blobs[name] = body })
			}
		case 1:
			err = bumpCounter(ctx, c, l, fmt.Sprintf("counter-%02d", g))
		case 2:
			err = writeRange(ctx, c, l, fmt.Sprintf("f%02d", g), i%16, cycle)
		case 3:
			err = queueStep(ctx, c, l, fmt.Sprintf("c%d-g%02d-%05d", cycle, g, i))
		case 4:
			rk := fmt.Sprintf("c%d-g%02d-%05d", cycle, g, i/2)
			value := fmt.Sprintf("v%d", i)
			entity := fmt.Sprintf(`{"PartitionKey":"p","RowKey":%q,"v":%q}`, rk, value)
			l.record(func() { l.inFlight[rk] = value })
			if i%2 == 0 {
				_, err = c.table.AddEntity(ctx, []byte(entity), nil)
			} else {
				_, err = c.table.UpdateEntity(ctx, []byte(entity), &aztables.UpdateEntityOptions{UpdateMode: aztables.UpdateModeMerge})
			}
			if err == nil {
				l.record(func() { l.entities[rk] = value; delete(l.inFlight, rk) })
			}
		}
		if err != nil {
			return
		}
	}
}

func (l *ledger) record(f func()) {
	l.mu.Lock()
	defer l.mu.Unlock()
	f()
}

// bumpCounter adds one to a counter blob with If-Match, retrying a lost
// race (no other writer touches it, so a 412 means nothing here).
func bumpCounter(ctx context.Context, c stormClients, l *ledger, name string) error {
	b := c.blob.ServiceClient().NewContainerClient("storm").NewBlockBlobClient(name)
	resp, err := b.DownloadStream(ctx, nil)
	if err != nil {
		return err
	}
	data, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return err
	}
	n, _ := strconv.Atoi(string(data))
	_, err = b.UploadBuffer(ctx, []byte(strconv.Itoa(n+1)), &blockblob.UploadBufferOptions{
		AccessConditions: &blob.AccessConditions{ModifiedAccessConditions: &blob.ModifiedAccessConditions{IfMatch: resp.ETag}}})
	if err == nil {
		l.record(func() { l.counters[name] = n + 1 })
	}
	return err
}

// writeRange writes 1 KiB range index of a file; the bytes are pending
// until acknowledged.
func writeRange(ctx context.Context, c stormClients, l *ledger, name string, index, cycle int) error {
	key := fmt.Sprintf("%s/%d", name, index)
	data := bytes.Repeat([]byte(fmt.Sprintf("%s@%d:%d;", key, cycle, time.Now().UnixNano()%1000)), 200)[:1024]
	l.record(func() { l.pending[key] = data })
	f := c.file.NewShareClient("storm").NewRootDirectoryClient().NewFileClient(name)
	_, err := f.UploadRange(ctx, int64(index)*1024, nopSeekCloser{bytes.NewReader(data)}, nil)
	if err == nil {
		l.record(func() { l.ranges[key] = data; delete(l.pending, key) })
	}
	return err
}

type nopSeekCloser struct{ *bytes.Reader }

func (nopSeekCloser) Close() error { return nil }

// queueStep puts a message; every third step also receives one and
// deletes it.
func queueStep(ctx context.Context, c stormClients, l *ledger, text string) error {
	if _, err := c.queue.EnqueueMessage(ctx, text, nil); err != nil {
		return err
	}
	l.record(func() { l.messages[text] = true })
	if len(text)%3 != 0 {
		return nil
	}
	got, err := c.queue.DequeueMessage(ctx, nil)
	if err != nil || len(got.Messages) == 0 {
		return err
	}
	m := got.Messages[0]
	if _, err := c.queue.DeleteMessage(ctx, *m.MessageID, *m.PopReceipt, nil); err != nil {
		return err
	}
	l.record(func() { l.deleted[*m.MessageText] = true })
	return nil
}

// verifyStorm checks the restarted server against the ledger and returns
// how many acknowledged writes it checked.
func verifyStorm(t *testing.T, ctx context.Context, c stormClients, l *ledger) int {
	t.Helper()
	l.mu.Lock()
	defer l.mu.Unlock()
	checked := 0
	for name, want := range l.blobs {
		if got := download(t, ctx, c, name); !bytes.Equal(got, want) {
			t.Fatalf("acknowledged blob %s: %d bytes after restart, want %d", name, len(got), len(want))
		}
		checked++
	}
	for name, acked := range l.counters {
		n, _ := strconv.Atoi(string(download(t, ctx, c, name)))
		// The write in flight at the kill may have committed: one more.
		if n != acked && n != acked+1 {
			t.Fatalf("counter %s is %d after restart; %d was acknowledged", name, n, acked)
		}
		l.counters[name] = n
		checked++
	}
	for key, want := range l.ranges {
		name, idx, _ := cutLast(key)
		index, _ := strconv.Atoi(idx)
		got := readRange(t, ctx, c, name, index)
		if !bytes.Equal(got, want) && !bytes.Equal(got, l.pending[key]) {
			t.Fatalf("acknowledged range %s differs after restart", key)
		}
		checked++
	}
	present := map[string]bool{}
	for {
		got, err := c.queue.DequeueMessages(ctx, &azqueue.DequeueMessagesOptions{NumberOfMessages: toInt32(32), VisibilityTimeout: toInt32(3600)})
		if err != nil {
			t.Fatalf("receive after restart: %v", err)
		}
		if len(got.Messages) == 0 {
			break
		}
		for _, m := range got.Messages {
			present[*m.MessageText] = true
		}
	}
	for text := range l.deleted {
		if present[text] {
			t.Fatalf("message %s came back after its delete was acknowledged", text)
		}
	}
	for text := range l.messages {
		if !present[text] && !l.deleted[text] {
			// A receive-and-delete in flight may have removed it unacknowledged;
			// the messages of this storm are received only by queueStep, whose
			// in-flight delete is at most one per writer.
			continue
		}
		checked++
	}
	// Received for the check: they are hidden for an hour, and are counted
	// as consumed from here on.
	for text := range present {
		l.deleted[text] = true
	}
	for rk, want := range l.entities {
		e, err := c.table.GetEntity(ctx, "p", rk, nil)
		if err != nil {
			t.Fatalf("acknowledged entity %s lost after restart: %v", rk, err)
		}
		// A merge in flight at the kill may have committed its value.
		if !bytes.Contains(e.Value, []byte(fmt.Sprintf(`"v":%q`, want))) &&
			(l.inFlight[rk] == "" || !bytes.Contains(e.Value, []byte(fmt.Sprintf(`"v":%q`, l.inFlight[rk])))) {
			t.Fatalf("entity %s after restart: %s, want v=%s", rk, e.Value, want)
		}
		checked++
	}
	return checked
}

func cutLast(key string) (string, string, bool) {
	for i := len(key) - 1; i >= 0; i-- {
		if key[i] == '/' {
			return key[:i], key[i+1:], true
		}
	}
	return key, "", false
}

func toInt32(n int32) *int32 { return &n }

func download(t *testing.T, ctx context.Context, c stormClients, name string) []byte {
	t.Helper()
	resp, err := c.blob.DownloadStream(ctx, "storm", name, nil)
	if err != nil {
		var re *azcore.ResponseError
		if errors.As(err, &re) {
			t.Fatalf("acknowledged blob %s lost after restart: %s", name, re.ErrorCode)
		}
		t.Fatalf("download %s: %v", name, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func readRange(t *testing.T, ctx context.Context, c stormClients, name string, index int) []byte {
	t.Helper()
	f := c.file.NewShareClient("storm").NewRootDirectoryClient().NewFileClient(name)
	resp, err := f.DownloadStream(ctx, &file.DownloadStreamOptions{Range: file.HTTPRange{Offset: int64(index) * 1024, Count: 1024}})
	if err != nil {
		t.Fatalf("range %s/%d after restart: %v", name, index, err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	return data
}
