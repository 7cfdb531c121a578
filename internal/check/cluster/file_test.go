package cluster_test

import (
	"bytes"
	"io"
	"sync"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/streaming"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azfile/file"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azfile/lease"
)

// file returns the client of one file in a share's root through node n.
func (c *cluster) file(n int, share, name string) *file.Client {
	return c.files[n%nodes].NewShareClient(share).NewRootDirectoryClient().NewFileClient(name)
}

func (c *cluster) share(t *testing.T, name string) {
	t.Helper()
	_, err := c.files[0].NewShareClient(name).Create(c.ctx, nil)
	must(t, err)
}

func uploadRange(c *cluster, f *file.Client, offset int64, data []byte, leaseID *string) error {
	var opts *file.UploadRangeOptions
	if leaseID != nil {
		opts = &file.UploadRangeOptions{LeaseAccessConditions: &file.LeaseAccessConditions{LeaseID: leaseID}}
	}
	_, err := f.UploadRange(c.ctx, offset, streaming.NopCloser(bytes.NewReader(data)), opts)
	return err
}

func readFile(t testing.TB, c *cluster, f *file.Client) []byte {
	t.Helper()
	resp, err := f.DownloadStream(c.ctx, nil)
	must(t, err)
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	must(t, err)
	return data
}

// Sixteen writers, alternating between the nodes, each put their own
// ranges of one file at once: the ranges are read-modify-written in the
// store's transactions, so none is lost and both nodes read every one.
// Each range is over the 8 KiB inline limit, so its content goes through
// the extent engine (S3 in the second pass) rather than the record.
func TestFileRangesAcrossNodes(t *testing.T) {
	c := startCluster(t, "file")
	c.share(t, "ranges")
	const writers, chunk = 16, 12 << 10
	_, err := c.file(0, "ranges", "f").Create(c.ctx, writers*chunk, nil)
	must(t, err)
	want := make([]byte, writers*chunk)
	for w := range writers {
		copy(want[w*chunk:], bytes.Repeat([]byte{byte('a' + w)}, chunk))
	}
	var wg sync.WaitGroup
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := uploadRange(c, c.file(w, "ranges", "f"), int64(w*chunk), want[w*chunk:(w+1)*chunk], nil); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	for n := range nodes {
		if got := readFile(t, c, c.file(n, "ranges", "f")); !bytes.Equal(got, want) {
			t.Fatalf("node %d reads %d bytes that differ from the %d written", n+1, len(got), len(want))
		}
	}
	c.wantContentOnS3(t)
}

// A file lease taken through one node binds writes through the other, and
// a break through the other frees the file on both.
func TestFileLeaseAcrossNodes(t *testing.T) {
	c := startCluster(t, "file")
	c.share(t, "leases")
	_, err := c.file(0, "leases", "f").Create(c.ctx, 8, nil)
	must(t, err)
	const id = "6a0c3f1e-2b4d-4e5f-8a9b-0c1d2e3f4a5b"
	lc, err := lease.NewFileClient(c.file(0, "leases", "f"), &lease.FileClientOptions{LeaseID: to.Ptr(id)})
	must(t, err)
	_, err = lc.Acquire(c.ctx, nil)
	must(t, err)

	onNode2 := c.file(1, "leases", "f")
	wantError(t, uploadRange(c, onNode2, 0, []byte("nolease!"), nil), 412, "LeaseIdMissing")
	other := "11111111-2222-4333-8444-555555555555"
	lc2, err := lease.NewFileClient(onNode2, &lease.FileClientOptions{LeaseID: to.Ptr(other)})
	must(t, err)
	_, err = lc2.Acquire(c.ctx, nil)
	wantError(t, err, 409, "LeaseAlreadyPresent")
	must(t, uploadRange(c, onNode2, 0, []byte("leased!!"), to.Ptr(id)))
	if got := readFile(t, c, c.file(0, "leases", "f")); string(got) != "leased!!" {
		t.Fatalf("node 1 reads %q after the leased write on node 2", got)
	}

	_, err = lc2.Break(c.ctx, nil)
	must(t, err)
	must(t, uploadRange(c, c.file(0, "leases", "f"), 0, []byte("free now"), nil))
}

// Both nodes race to create the same directory: exactly one create
// succeeds, every other one is 409 ResourceAlreadyExists.
func TestDirectoryCreateRaceAcrossNodes(t *testing.T) {
	c := startCluster(t, "file")
	c.share(t, "race")
	const racers = 8
	var wg sync.WaitGroup
	var mu sync.Mutex
	created, conflicts := 0, 0
	for r := range racers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := c.files[r%nodes].NewShareClient("race").NewDirectoryClient("dir").Create(c.ctx, nil)
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil:
				created++
			case status(err) == 409:
				conflicts++
			default:
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if created != 1 || conflicts != racers-1 {
		t.Fatalf("%d creates succeeded and %d conflicted, want 1 and %d", created, conflicts, racers-1)
	}
	for n := range nodes {
		if _, err := c.files[n].NewShareClient("race").NewDirectoryClient("dir").GetProperties(c.ctx, nil); err != nil {
			t.Fatalf("node %d: %v", n+1, err)
		}
	}
}
