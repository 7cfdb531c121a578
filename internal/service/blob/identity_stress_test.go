package blob_test

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/container"

	"github.com/lazuli-storage/lazuli/internal/check/lazulitest"
)

// TestConcurrentSnapshotsAndVersions: 16 writers overwrite and snapshot
// one versioned blob at once; every write leaves exactly one version,
// every snapshot its own time, and each state reads what was written.
func TestConcurrentSnapshotsAndVersions(t *testing.T) {
	const writers, rounds = 16, 4
	e := start(t)
	e.setDataProtection(true, 0)
	c := e.container("busy")
	b := c.NewBlockBlobClient("hot")
	var wg sync.WaitGroup
	errs := make(chan error, writers*rounds)
	for g := 0; g < writers; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := 0; i < rounds; i++ {
				if _, err := b.Upload(e.ctx, nopCloser([]byte(fmt.Sprintf("w%d-%d", g, i))), nil); err != nil {
					errs <- err
					return
				}
				if _, err := b.CreateSnapshot(e.ctx, nil); err != nil {
					errs <- err
					return
				}
			}
		}(g)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	items := e.listAll(c, container.ListBlobsInclude{Snapshots: true, Versions: true}, 7)
	var snaps, versions int
	seen := map[string]bool{}
	for _, it := range items {
		key := listing(it)
		if seen[key] {
			t.Fatalf("listed twice: %s", key)
		}
		seen[key] = true
		var state *blob.Client
		switch {
		case it.Snapshot != nil && *it.Snapshot != "":
			snaps++
			state = must(b.BlobClient().WithSnapshot(*it.Snapshot)).on(t)
		case it.VersionID != nil:
			versions++
			state = must(b.BlobClient().WithVersionID(*it.VersionID)).on(t)
		}
		if got := e.read(state); !strings.HasPrefix(got, "w") {
			t.Fatalf("%s reads %q", key, got)
		}
	}
	// Every upload and every snapshot makes a version.
	if snaps != writers*rounds || versions != 2*writers*rounds {
		t.Fatalf("%d snapshots and %d versions, want %d and %d", snaps, versions, writers*rounds, 2*writers*rounds)
	}
}

// TestConcurrentCopiesToOneDestination: copies racing to one destination
// each land whole; the destination ends as one of them.
func TestConcurrentCopiesToOneDestination(t *testing.T) {
	const copiers = 16
	e := start(t)
	c := e.container("race")
	var sources []string
	for i := 0; i < copiers; i++ {
		sources = append(sources, e.upload(c, fmt.Sprintf("src%02d", i), []byte(fmt.Sprintf("content %02d", i))).URL())
	}
	dst := c.NewBlobClient("dst")
	ids := make([]string, copiers)
	var wg sync.WaitGroup
	for i := range sources {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			resp, err := dst.StartCopyFromURL(e.ctx, sources[i], nil)
			if err != nil {
				t.Error(err)
				return
			}
			ids[i] = *resp.CopyID
		}(i)
	}
	wg.Wait()
	p := e.props(dst)
	got := e.read(dst)
	for i, id := range ids {
		if id == *p.CopyID {
			if want := fmt.Sprintf("content %02d", i); got != want || *p.CopySource != sources[i] {
				t.Fatalf("destination reads %q from %s, its copy ID names %s", got, *p.CopySource, want)
			}
			return
		}
	}
	t.Fatalf("the destination's copy ID %s is none of the copies'", *p.CopyID)
}

// TestIdentityStateSurvivesRestart: snapshots, versions, soft-deleted
// blobs, copy properties and tiers are records like any other.
func TestIdentityStateSurvivesRestart(t *testing.T) {
	e := startWith(t, lazulitest.Options{})
	e.setDataProtection(true, 3)
	c := e.container("durable")
	b := e.upload(c, "doc", []byte("one")).BlobClient()
	must(b.CreateSnapshot(e.ctx, nil)).on(t)
	e.upload(c, "doc", []byte("two"))
	must(b.SetTier(e.ctx, blob.AccessTierCool, nil)).on(t)
	gone := e.upload(c, "gone", []byte("x")).BlobClient()
	must(c.NewBlobClient("copy").StartCopyFromURL(e.ctx, b.URL(), nil)).on(t)
	must(gone.Delete(e.ctx, nil)).on(t)
	inc := container.ListBlobsInclude{Snapshots: true, Versions: true, Deleted: true, Copy: true}
	before := e.listed(c, inc, 0)

	e.in.Restart(t)
	e.connect()
	c = e.svc.NewContainerClient("durable")
	b = c.NewBlobClient("doc")
	if after := e.listed(c, inc, 0); after != before {
		t.Fatalf("after restart\n got %s\nwant %s", after, before)
	}
	if p := e.props(c.NewBlobClient("copy")); p.CopyID == nil || *p.CopyStatus != blob.CopyStatusTypeSuccess {
		t.Fatalf("copy properties after restart: %+v", p)
	}
	if p := e.props(b); *p.AccessTier != "Cool" || e.read(b) != "two" {
		t.Fatalf("tier after restart: %s", *p.AccessTier)
	}
}
