// Package dumptest fills a running Lazuli with a little of everything
// through the official Azure SDKs (containers, a blob of several blocks,
// uncommitted blocks, queues with messages, tables with entities, and when
// the File service runs a share with a sparse file) and checks
// that another instance serves exactly that data, for the tests of dump and
// load: the data goes in and comes out through the real services, so a copy
// that lost or garbled a record or an extent shows.
package dumptest

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"sort"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/streaming"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/data/aztables"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blockblob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azqueue"

	"github.com/lazuli-storage/lazuli/internal/check/lazulitest"
)

// What Populate writes.
const (
	photos     = "photos"
	docs       = "docs"
	bigBlob    = "album/big.bin" // committed from several blocks
	stagedBlob = "draft.bin"     // only uncommitted blocks
	queueName  = "jobs"
	tableName  = "people"
	messages   = 5
	blocks     = 3
	blockSize  = 70 << 10
	entities   = 12
)

// content is the deterministic pseudo-random content of one blob or block.
func content(seed uint64, n int) []byte {
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

func blockID(i int) string {
	return base64.StdEncoding.EncodeToString(fmt.Appendf(nil, "block-%04d", i))
}

// smallBlobs are the Put Blob uploads: name -> content. Two are small
// enough to be kept inline in their records, one has an extent.
func smallBlobs() map[string][]byte {
	return map[string][]byte{"a.txt": []byte("hello from a"), "b/c.txt": content(2, 100<<10), "empty": {}}
}

// Populate writes the fixture through the blob, queue and table services.
func Populate(t testing.TB, in *lazulitest.Instance) {
	t.Helper()
	ctx := context.Background()
	blobs := blobClient(t, in)
	for _, c := range []string{photos, docs} {
		must(t, "create container "+c, err2(blobs.CreateContainer(ctx, c, nil)))
	}
	for name, data := range smallBlobs() {
		_, err := blobs.UploadBuffer(ctx, photos, name, data, &azblob.UploadBufferOptions{
			Metadata: map[string]*string{"origin": to.Ptr("dumptest")}})
		must(t, "upload "+name, err)
	}
	big := blobs.ServiceClient().NewContainerClient(photos).NewBlockBlobClient(bigBlob)
	var ids []string
	for i := range blocks {
		_, err := big.StageBlock(ctx, blockID(i), streaming.NopCloser(bytes.NewReader(content(uint64(10+i), blockSize))), nil)
		must(t, "stage block", err)
		ids = append(ids, blockID(i))
	}
	must(t, "commit block list", err2(big.CommitBlockList(ctx, ids, nil)))
	staged := blobs.ServiceClient().NewContainerClient(docs).NewBlockBlobClient(stagedBlob)
	_, err := staged.StageBlock(ctx, blockID(0), streaming.NopCloser(bytes.NewReader(content(20, 20<<10))), nil)
	must(t, "stage an uncommitted block", err)

	q := queueClient(t, in)
	must(t, "create queue", err2(q.Create(ctx, nil)))
	for i := range messages {
		must(t, "enqueue", err2(q.EnqueueMessage(ctx, fmt.Sprintf("message %d", i), nil)))
	}

	if in.FileURL != "" {
		populateFiles(t, in)
	}

	tables := tableClient(t, in)
	must(t, "create table", err2(tables.CreateTable(ctx, tableName, nil)))
	tc := tables.NewClient(tableName)
	for i := range entities {
		body, _ := json.Marshal(entity(i))
		must(t, "add entity", err2(tc.AddEntity(ctx, body, nil)))
	}
}

func entity(i int) map[string]any {
	return map[string]any{"PartitionKey": fmt.Sprintf("p%d", i%3), "RowKey": fmt.Sprintf("r%02d", i),
		"Name": fmt.Sprintf("person %d", i), "Age": int32(20 + i)}
}

// Check reads the fixture back from in and fails t on any difference.
func Check(t testing.TB, in *lazulitest.Instance) {
	t.Helper()
	checkBlobs(t, in)
	checkQueue(t, in)
	checkTable(t, in)
	if in.FileURL != "" {
		checkFiles(t, in)
	}
}

func checkBlobs(t testing.TB, in *lazulitest.Instance) {
	t.Helper()
	ctx := context.Background()
	blobs := blobClient(t, in)
	want := smallBlobs()
	var big []byte
	for i := range blocks {
		big = append(big, content(uint64(10+i), blockSize)...)
	}
	want[bigBlob] = big
	var names []string
	pager := blobs.NewListBlobsFlatPager(photos, nil)
	for pager.More() {
		page, err := pager.NextPage(ctx)
		must(t, "list blobs", err)
		for _, b := range page.Segment.BlobItems {
			names = append(names, *b.Name)
		}
	}
	if len(names) != len(want) {
		t.Errorf("container %s lists %v, want %d blobs", photos, names, len(want))
	}
	for name, data := range want {
		resp, err := blobs.DownloadStream(ctx, photos, name, nil)
		must(t, "download "+name, err)
		got, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		must(t, "read "+name, err)
		if !bytes.Equal(got, data) {
			t.Errorf("blob %s: %d bytes differ from the %d written", name, len(got), len(data))
		}
	}
	staged := blobs.ServiceClient().NewContainerClient(docs).NewBlockBlobClient(stagedBlob)
	list, err := staged.GetBlockList(ctx, blockblob.BlockListTypeUncommitted, nil)
	must(t, "get block list", err)
	if len(list.UncommittedBlocks) != 1 || *list.UncommittedBlocks[0].Name != blockID(0) {
		t.Errorf("uncommitted blocks of %s: %+v, want the one staged", stagedBlob, list.UncommittedBlocks)
	}
}

func checkQueue(t testing.TB, in *lazulitest.Instance) {
	t.Helper()
	resp, err := queueClient(t, in).PeekMessages(context.Background(), &azqueue.PeekMessagesOptions{NumberOfMessages: to.Ptr(int32(32))})
	must(t, "peek messages", err)
	var got []string
	for _, m := range resp.Messages {
		got = append(got, *m.MessageText)
	}
	sort.Strings(got)
	if len(got) != messages {
		t.Fatalf("queue holds %v, want %d messages", got, messages)
	}
	for i, text := range got {
		if want := fmt.Sprintf("message %d", i); text != want {
			t.Errorf("message %d is %q, want %q", i, text, want)
		}
	}
}

func checkTable(t testing.TB, in *lazulitest.Instance) {
	t.Helper()
	pager := tableClient(t, in).NewClient(tableName).NewListEntitiesPager(nil)
	n := 0
	for pager.More() {
		page, err := pager.NextPage(context.Background())
		must(t, "list entities", err)
		for _, raw := range page.Entities {
			var got map[string]any
			must(t, "decode entity", json.Unmarshal(raw, &got))
			var i int
			fmt.Sscanf(got["RowKey"].(string), "r%d", &i)
			want := entity(i)
			if got["PartitionKey"] != want["PartitionKey"] || got["Name"] != want["Name"] || got["Age"] != float64(20+i) {
				t.Errorf("entity %v, want %v", got, want)
			}
			n++
		}
	}
	if n != entities {
		t.Errorf("table holds %d entities, want %d", n, entities)
	}
}

func blobClient(t testing.TB, in *lazulitest.Instance) *azblob.Client {
	c, err := azblob.NewClientFromConnectionString(in.ConnectionString, nil)
	must(t, "blob client", err)
	return c
}

func queueClient(t testing.TB, in *lazulitest.Instance) *azqueue.QueueClient {
	c, err := azqueue.NewServiceClientFromConnectionString(in.ConnectionString, nil)
	must(t, "queue client", err)
	return c.NewQueueClient(queueName)
}

func tableClient(t testing.TB, in *lazulitest.Instance) *aztables.ServiceClient {
	c, err := aztables.NewServiceClientFromConnectionString(in.ConnectionString, nil)
	must(t, "table client", err)
	return c
}

func must(t testing.TB, what string, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// err2 drops an SDK call's response, keeping its error.
func err2[T any](_ T, err error) error { return err }
