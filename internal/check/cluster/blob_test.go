package cluster_test

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"io"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/streaming"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blockblob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/lease"

	"github.com/lazuli-storage/lazuli/internal/rule/etag"
)

// blob returns the client of one blob through node n.
func (c *cluster) blob(n int, container, name string) *blockblob.Client {
	return c.blobs[n%nodes].NewContainerClient(container).NewBlockBlobClient(name)
}

func (c *cluster) container(t *testing.T, name string) {
	t.Helper()
	_, err := c.blobs[0].NewContainerClient(name).Create(c.ctx, nil)
	must(t, err)
}

func upload(c *cluster, b *blockblob.Client, data []byte, cond *blob.AccessConditions) (azcore.ETag, error) {
	resp, err := b.Upload(c.ctx, streaming.NopCloser(bytes.NewReader(data)), &blockblob.UploadOptions{AccessConditions: cond})
	if err != nil {
		return "", err
	}
	return *resp.ETag, nil
}

func download(t testing.TB, c *cluster, b *blockblob.Client) ([]byte, azcore.ETag) {
	t.Helper()
	resp, err := b.DownloadStream(c.ctx, nil)
	must(t, err)
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	must(t, err)
	return data, *resp.ETag
}

// Sixteen goroutines increment a counter held in one blob with read,
// write-if-match and retry on 412, each alternating between the nodes: the
// ETag check runs in the store's serializable transaction, so no node can
// accept a write based on a stale read and the count ends exact.
func TestBlobCounterAcrossNodes(t *testing.T) {
	c := startCluster(t, "blob")
	c.container(t, "counters")
	_, err := upload(c, c.blob(0, "counters", "n"), []byte("0"), nil)
	must(t, err)
	const writers, increments = 16, 6
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		etags = map[azcore.ETag]bool{}
	)
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range increments {
				tag, err := incrementBlob(t, c, c.blob(w+i, "counters", "n"))
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				etags[tag] = true
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	for n := range nodes {
		data, _ := download(t, c, c.blob(n, "counters", "n"))
		if string(data) != strconv.Itoa(writers*increments) {
			t.Fatalf("node %d reads the counter as %s, want %d", n, data, writers*increments)
		}
	}
	if len(etags) != writers*increments {
		t.Fatalf("%d distinct ETags for %d successful writes", len(etags), writers*increments)
	}
}

// incrementBlob reads the counter through b and writes it back plus one if
// nobody wrote in between, retrying on 412; it returns the new ETag.
func incrementBlob(t testing.TB, c *cluster, b *blockblob.Client) (azcore.ETag, error) {
	for {
		data, tag := download(t, c, b)
		n, err := strconv.Atoi(string(data))
		if err != nil {
			return "", fmt.Errorf("counter holds %q", data)
		}
		newTag, err := upload(c, b, []byte(strconv.Itoa(n+1)),
			&blob.AccessConditions{ModifiedAccessConditions: &blob.ModifiedAccessConditions{IfMatch: &tag}})
		if status(err) == 412 {
			continue
		}
		return newTag, err
	}
}

// A lease taken on one node binds writes on the other: refused without the
// lease ID or with another, accepted with it, and free again on every node
// once the lease has expired by the shared clock.
func TestBlobLeaseAcrossNodes(t *testing.T) {
	c := startCluster(t, "blob")
	c.container(t, "leases")
	_, err := upload(c, c.blob(0, "leases", "b"), []byte("v1"), nil)
	must(t, err)
	const id = "8d1f7a2e-4c5b-4f0e-9a1d-2b3c4d5e6f70"
	lc, err := lease.NewBlobClient(c.blob(0, "leases", "b"), &lease.BlobClientOptions{LeaseID: to.Ptr(id)})
	must(t, err)
	_, err = lc.AcquireLease(c.ctx, 15, nil)
	must(t, err)

	onNode2 := c.blob(1, "leases", "b")
	_, err = upload(c, onNode2, []byte("no lease"), nil)
	wantError(t, err, 412, "LeaseIdMissing")
	other := "11111111-2222-4333-8444-555555555555"
	_, err = upload(c, onNode2, []byte("wrong lease"), &blob.AccessConditions{LeaseAccessConditions: &blob.LeaseAccessConditions{LeaseID: &other}})
	wantError(t, err, 412, "LeaseIdMismatchWithBlobOperation")
	lc2, err := lease.NewBlobClient(onNode2, &lease.BlobClientOptions{LeaseID: to.Ptr(other)})
	must(t, err)
	_, err = lc2.AcquireLease(c.ctx, 15, nil)
	wantError(t, err, 409, "LeaseAlreadyPresent")
	_, err = upload(c, onNode2, []byte("v2"), &blob.AccessConditions{LeaseAccessConditions: &blob.LeaseAccessConditions{LeaseID: to.Ptr(id)}})
	must(t, err)
	if data, _ := download(t, c, c.blob(0, "leases", "b")); string(data) != "v2" {
		t.Fatalf("node 1 reads %q after the leased write on node 2", data)
	}

	c.advance(t, 16*time.Second)
	props, err := c.blob(0, "leases", "b").GetProperties(c.ctx, nil)
	must(t, err)
	if *props.LeaseState != lease.StateTypeExpired {
		t.Fatalf("node 1 reports lease state %s after the duration, want expired", *props.LeaseState)
	}
	_, err = upload(c, onNode2, []byte("v3"), nil)
	must(t, err)
}

// Blocks staged through node 1 are listed and committed through node 2,
// and both nodes serve the committed blob.
func TestBlocksStagedOnOneNodeCommittedOnAnother(t *testing.T) {
	c := startCluster(t, "blob")
	c.container(t, "blocks")
	staging, committing := c.blob(0, "blocks", "b"), c.blob(1, "blocks", "b")
	// Sizes on both sides of the limit below which content is kept inline.
	sizes := []int{100, 20 << 10, 3, 64 << 10}
	var ids []string
	var want []byte
	for i, size := range sizes {
		id := base64.StdEncoding.EncodeToString(fmt.Appendf(nil, "block-%03d", i))
		data := bytes.Repeat([]byte{byte('a' + i)}, size)
		_, err := staging.StageBlock(c.ctx, id, streaming.NopCloser(bytes.NewReader(data)), nil)
		must(t, err)
		ids = append(ids, id)
		want = append(want, data...)
	}
	list, err := committing.GetBlockList(c.ctx, blockblob.BlockListTypeUncommitted, nil)
	must(t, err)
	if len(list.UncommittedBlocks) != len(sizes) {
		t.Fatalf("node 2 lists %d uncommitted blocks, want %d", len(list.UncommittedBlocks), len(sizes))
	}
	_, err = committing.CommitBlockList(c.ctx, ids, nil)
	must(t, err)
	for n := range nodes {
		if got, _ := download(t, c, c.blob(n, "blocks", "b")); !bytes.Equal(got, want) {
			t.Fatalf("node %d serves %d bytes that differ from the %d committed", n, len(got), len(want))
		}
	}
	c.wantContentOnS3(t)
}

// Writes to one blob alternating between the nodes, with the clock
// standing still, get strictly increasing ETags: each tick is computed
// from the blob's previous one inside the transaction that replaces it,
// not from a node's own counter.
func TestETagsIncreaseAcrossNodes(t *testing.T) {
	c := startCluster(t, "blob")
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
