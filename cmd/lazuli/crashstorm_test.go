package main

import (
	"bytes"
	"context"
	"crypto/md5"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/data/aztables"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blockblob"
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

const (
	stormWriters = 16
	stormFiles   = 16   // one file per writer index, f00 to f15
	rangeSize    = 1024 // bytes per Put Range
	fileRanges   = 16   // ranges per file
	// receiveVisibility is how long a writer's received message stays
	// hidden: the least Get Messages allows ("visibilitytimeout ... must be
	// larger than or equal to 1 second", Azure REST, Get Messages, URI
	// parameters), so that every message not deleted is visible again soon
	// after the kill, and a missing one is lost, not hidden.
	receiveVisibility = time.Second
)

// stormClients are the storm's SDK clients. They never retry: a retried
// request could land twice or answer for the first try, and the ledger
// needs each write's one answer.
type stormClients struct {
	blob  *azblob.Client
	file  *service.Client
	queue *azqueue.QueueClient
	table *aztables.Client
}

func connect(t *testing.T, connStr string) stormClients {
	t.Helper()
	once := azcore.ClientOptions{Retry: policy.RetryOptions{MaxRetries: -1}}
	b, err := azblob.NewClientFromConnectionString(connStr, &azblob.ClientOptions{ClientOptions: once})
	if err != nil {
		t.Fatal(err)
	}
	f, err := service.NewClientFromConnectionString(connStr, &service.ClientOptions{ClientOptions: once})
	if err != nil {
		t.Fatal(err)
	}
	q, err := azqueue.NewQueueClientFromConnectionString(connStr, "storm", &azqueue.ClientOptions{ClientOptions: once})
	if err != nil {
		t.Fatal(err)
	}
	ts, err := aztables.NewServiceClientFromConnectionString(connStr, &aztables.ClientOptions{ClientOptions: once})
	if err != nil {
		t.Fatal(err)
	}
	return stormClients{b, f, q, ts.NewClient("storm")}
}

// TestCrashStorm runs 16 writers doing Put Blob, If-Match counter updates,
// Put Range on files, Put Message with receive-and-delete, and table
// inserts and merges; kills the server with SIGKILL at a random moment,
// restarts it on the same data, and checks every object of the storm
// against the ledger: each must hold its acknowledged state or that of a
// write in flight at the kill, and nothing else. It repeats for
// tortureCycles cycles and fails on any state a correct server could not
// have produced.
func TestCrashStorm(t *testing.T) {
	if testing.Short() {
		t.Skip("starts server processes")
	}
	dir := t.TempDir()
	l := newLedger()
	srv := startChild(t, dir)
	c := connect(t, srv.connStr)
	ctx := context.Background()
	setupStorm(t, ctx, c, l)
	rng := rand.New(rand.NewPCG(7, uint64(time.Now().UnixNano())))
	cycles := tortureCycles()
	for cycle := 0; cycle < cycles; cycle++ {
		stormCtx, stop := context.WithCancel(ctx)
		var wg sync.WaitGroup
		for g := 0; g < stormWriters; g++ {
			wg.Go(func() { stormWriter(stormCtx, c, l, cycle, g) })
		}
		time.Sleep(time.Duration(300+rng.IntN(1200)) * time.Millisecond)
		srv.kill()
		killed := time.Now()
		stop()
		wg.Wait()
		srv = startChild(t, dir)
		c = connect(t, srv.connStr)
		verifyStorm(t, ctx, c, l, killed, cycle == cycles-1)
	}
	t.Logf("%d cycles of SIGKILL and restart: %s", cycles, l.tally.summary())
	if l.tally.acknowledged == 0 {
		t.Fatal("the server acknowledged no write: the storm checked nothing")
	}
}

func setupStorm(t *testing.T, ctx context.Context, c stormClients, l *ledger) {
	t.Helper()
	if _, err := c.blob.CreateContainer(ctx, "storm", nil); err != nil {
		t.Fatal(err)
	}
	for g := 0; g < stormWriters; g++ {
		if _, err := c.blob.UploadBuffer(ctx, "storm", counterName(g), []byte("0"), nil); err != nil {
			t.Fatal(err)
		}
		l.existing(objectKey{kindCounter, counterName(g)}, present("0"))
	}
	share := c.file.NewShareClient("storm")
	if _, err := share.Create(ctx, nil); err != nil {
		t.Fatal(err)
	}
	zeros := string(make([]byte, rangeSize))
	for f := 0; f < stormFiles; f++ {
		if _, err := share.NewRootDirectoryClient().NewFileClient(fileName(f)).Create(ctx, fileRanges*rangeSize, nil); err != nil {
			t.Fatal(err)
		}
		for index := 0; index < fileRanges; index++ {
			l.existing(rangeKey(f, index), present(zeros))
		}
	}
	if _, err := c.queue.Create(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := c.table.CreateTable(ctx, nil); err != nil {
		t.Fatal(err)
	}
}

func counterName(g int) string { return fmt.Sprintf("counter-%02d", g) }
func fileName(f int) string    { return fmt.Sprintf("f%02d", f) }
func rangeKey(f, index int) objectKey {
	return objectKey{kindRange, fmt.Sprintf("%s/%d", fileName(f), index)}
}

// blobDigest is what the ledger keeps of a blob's content: its length and
// MD5, which List Blobs also gives (Content-MD5, computed by the service
// for Put Blob).
func blobDigest(content []byte) string {
	return fmt.Sprintf("%d bytes, MD5 %x", len(content), md5.Sum(content))
}

// stormWriter does one kind of write until ctx ends or the server dies.
func stormWriter(ctx context.Context, c stormClients, l *ledger, cycle, g int) {
	for i := 0; ctx.Err() == nil; i++ {
		var err error
		switch g % 5 {
		case 0:
			err = putBlob(ctx, c, l, g, fmt.Sprintf("c%d/g%02d/%05d", cycle, g, i), i)
		case 1:
			err = bumpCounter(ctx, c, l, g)
		case 2:
			err = writeRange(ctx, c, l, g, i%fileRanges, fmt.Sprintf("c%d#%d", cycle, i))
		case 3:
			err = queueStep(ctx, c, l, g, fmt.Sprintf("c%d-g%02d-%05d", cycle, g, i), i%3 == 0)
		case 4:
			err = writeEntity(ctx, c, l, g, fmt.Sprintf("c%d-g%02d-%05d", cycle, g, i/2), i)
		}
		if err != nil {
			return
		}
	}
}

func putBlob(ctx context.Context, c stormClients, l *ledger, g int, name string, i int) error {
	body := bytes.Repeat([]byte(name+";"), 1+i%50)
	return l.write(g, objectKey{kindBlob, name}, present(blobDigest(body)), func() error {
		_, err := c.blob.UploadBuffer(ctx, "storm", name, body, nil)
		return err
	})
}

// bumpCounter adds one to writer g's counter blob with If-Match (no other
// writer touches it).
func bumpCounter(ctx context.Context, c stormClients, l *ledger, g int) error {
	b := c.blob.ServiceClient().NewContainerClient("storm").NewBlockBlobClient(counterName(g))
	resp, err := b.DownloadStream(ctx, nil)
	if err != nil {
		return err
	}
	data, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return err
	}
	n, err := strconv.Atoi(string(data))
	if err != nil {
		return fmt.Errorf("counter %s holds %q: %w", counterName(g), data, err)
	}
	next := strconv.Itoa(n + 1)
	return l.write(g, objectKey{kindCounter, counterName(g)}, present(next), func() error {
		_, err := b.UploadBuffer(ctx, []byte(next), &blockblob.UploadBufferOptions{
			AccessConditions: &blob.AccessConditions{ModifiedAccessConditions: &blob.ModifiedAccessConditions{IfMatch: resp.ETag}}})
		return err
	})
}

// writeRange writes range index of writer g's file with bytes no other
// write uses (tag makes them unique).
func writeRange(ctx context.Context, c stormClients, l *ledger, g, index int, tag string) error {
	key := rangeKey(g, index)
	data := bytes.Repeat([]byte(key.name+"@"+tag+";"), rangeSize)[:rangeSize]
	f := c.file.NewShareClient("storm").NewRootDirectoryClient().NewFileClient(fileName(g))
	return l.write(g, key, present(string(data)), func() error {
		_, err := f.UploadRange(ctx, int64(index)*rangeSize, nopSeekCloser{bytes.NewReader(data)}, nil)
		return err
	})
}

type nopSeekCloser struct{ *bytes.Reader }

func (nopSeekCloser) Close() error { return nil }

// queueStep puts a message and, when receive is set, receives one (any
// writer's) and deletes it.
func queueStep(ctx context.Context, c stormClients, l *ledger, g int, text string, receive bool) error {
	err := l.write(g, objectKey{kindMessage, text}, present(""), func() error {
		_, err := c.queue.EnqueueMessage(ctx, text, nil)
		return err
	})
	if err != nil || !receive {
		return err
	}
	got, err := c.queue.DequeueMessage(ctx, &azqueue.DequeueMessageOptions{VisibilityTimeout: toInt32(int32(receiveVisibility / time.Second))})
	if err != nil || len(got.Messages) == 0 {
		return err
	}
	m := got.Messages[0]
	err = l.write(g, objectKey{kindMessage, *m.MessageText}, absent, func() error {
		_, err := c.queue.DeleteMessage(ctx, *m.MessageID, *m.PopReceipt, nil)
		return err
	})
	if refused(err) {
		// Hidden for only a second, it was received again by another
		// writer, whose pop receipt replaced ours: its delete is theirs.
		return nil
	}
	return err
}

// writeEntity inserts row rk on even steps and merges a new value into it
// on odd ones.
func writeEntity(ctx context.Context, c stormClients, l *ledger, g int, rk string, i int) error {
	value := fmt.Sprintf("v%d", i)
	entity := fmt.Sprintf(`{"PartitionKey":"p","RowKey":%q,"v":%q}`, rk, value)
	return l.write(g, objectKey{kindEntity, rk}, present(value), func() error {
		var err error
		if i%2 == 0 {
			_, err = c.table.AddEntity(ctx, []byte(entity), nil)
		} else {
			_, err = c.table.UpdateEntity(ctx, []byte(entity), &aztables.UpdateEntityOptions{UpdateMode: aztables.UpdateModeMerge})
		}
		return err
	})
}
