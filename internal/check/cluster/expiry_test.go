package cluster_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blockblob"

	"github.com/lazuli-storage/lazuli/internal/check/lazulitest"
	"github.com/lazuli-storage/lazuli/internal/engine/store"
	"github.com/lazuli-storage/lazuli/internal/run/config"
)

// An expiry set through one node holds on the other: both compare the
// stored instant with the (shared, fake) clock at request time, so the
// blobs are there up to the instant and gone from it on, on both nodes;
// then both nodes' reapers remove the records, each blob once.
func TestBlobExpiryAcrossNodes(t *testing.T) {
	// Expiry is served to accounts with a hierarchical namespace.
	c := startClusterWith(t, func(cfg *config.Config) { cfg.HNSAccounts = []string{lazulitest.Account} }, "blob")
	c.container(t, "expiring")
	const n = 20
	for i := 0; i < n; i++ {
		b := c.blob(i, "expiring", fmt.Sprintf("b%02d", i))
		_, err := upload(c, b, []byte("content"), nil)
		must(t, err)
		_, err = b.SetExpiry(c.ctx, blockblob.ExpiryTypeRelativeToNow(time.Minute), nil)
		must(t, err)
	}
	clk := c.nodes[0].Fake
	clk.Advance(time.Minute - time.Millisecond)
	for i := 0; i < n; i++ {
		p, err := c.blob(i+1, "expiring", fmt.Sprintf("b%02d", i)).GetProperties(c.ctx, nil)
		must(t, err)
		if p.ExpiresOn == nil {
			t.Fatalf("b%02d: no x-ms-expiry-time through the other node", i)
		}
	}
	clk.Advance(time.Millisecond)
	for i := 0; i < n; i++ {
		_, err := c.blob(i+1, "expiring", fmt.Sprintf("b%02d", i)).GetProperties(c.ctx, nil)
		wantError(t, err, 404, "BlobNotFound")
	}
	st := c.nodes[1].App.Store
	deadline := time.Now().Add(30 * time.Second)
	for countRecords(t, st, store.SpaceBlob)+countRecords(t, st, store.SpaceBlobExpiry) > 0 {
		if time.Now().After(deadline) {
			t.Fatalf("%d blob records and %d expiry entries left", countRecords(t, st, store.SpaceBlob),
				countRecords(t, st, store.SpaceBlobExpiry))
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// countRecords counts the records of one key space.
func countRecords(t *testing.T, st store.Store, space store.Space) int {
	t.Helper()
	n := 0
	start := store.NewKey(space)
	must(t, st.View(context.Background(), func(tx store.Tx) error {
		return tx.Scan(start, store.PrefixEnd(start), store.ScanOptions{}, func(_, _ []byte) bool { n++; return true })
	}))
	return n
}
