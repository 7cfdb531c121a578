package blob

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/lazuli-storage/lazuli/internal/clock"
	extentmem "github.com/lazuli-storage/lazuli/internal/extent/memory"
	"github.com/lazuli-storage/lazuli/internal/server"
	"github.com/lazuli-storage/lazuli/internal/store"
	storemem "github.com/lazuli-storage/lazuli/internal/store/memory"
)

// A soft delete stopped after its first batch (a crash between two of its
// transactions) leaves the container hidden with its records split between
// the two key names; finishing it moves the rest, and every record, tag
// index entry and expiry entry ends under the right name exactly once.
func TestInterruptedSoftDeleteFinishes(t *testing.T) {
	ctx := context.Background()
	clk := clock.NewFake(time.Now())
	s, err := New(server.Deps{Store: storemem.New(), Extents: extentmem.New(), Clock: clk})
	if err != nil {
		t.Fatal(err)
	}
	const account, name, n = "acct", "docs", moveBatch + 10
	now := clk.Now()
	err = s.store.Update(ctx, func(tx store.Tx) error {
		c := &containerRecord{Created: now}
		for i := 0; i < n; i++ {
			b := &blobRecord{Type: blockBlob, Committed: true, Created: now,
				Tags: tagSet{{Key: "k", Value: "v"}}, retentionState: retentionState{ExpiresOn: now.Add(time.Hour)}}
			blob := fmt.Sprintf("b%03d", i)
			if err := saveBlob(tx, account, name, blob, b); err != nil {
				return err
			}
			if err := reindexTags(tx, account, name, blob, nil, b); err != nil {
				return err
			}
			if err := reindexExpiry(tx, account, name, blob, nil, b); err != nil {
				return err
			}
		}
		c.DeletedAt, c.Purge, c.Version = now, now.Add(24*time.Hour), "0000000000000001"
		c.MoveTo = tombstoneName(name, c.Version)
		return saveContainer(tx, account, name, c)
	})
	if err != nil {
		t.Fatal(err)
	}
	tomb := tombstoneName(name, "0000000000000001")
	froms, tos := containerPrefixes(account, name), containerPrefixes(account, tomb)
	err = s.store.Update(ctx, func(tx store.Tx) error {
		_, err := moveBatchOf(tx, froms[0], tos[0], account, name, tomb)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := count(t, s.store, blobPrefix(account, name)); got != n-moveBatch {
		t.Fatalf("%d records left after one batch, want %d", got, n-moveBatch)
	}

	if err := s.finishSoftDelete(ctx, account, name, tomb); err != nil {
		t.Fatal(err)
	}
	// Finishing twice changes nothing.
	if err := s.finishSoftDelete(ctx, account, name, tomb); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		what   string
		prefix []byte
		want   int
	}{
		{"records under the name", blobPrefix(account, name), 0},
		{"records under the tombstone", blobPrefix(account, tomb), n},
		{"tag index entries", store.NewKey(store.SpaceBlobIndex), 0},
		{"expiry entries", store.NewKey(store.SpaceBlobExpiry), 1}, // the container's purge
		{"container records", store.NewKey(store.SpaceContainer), 1},
	} {
		if got := count(t, s.store, c.prefix); got != c.want {
			t.Errorf("%s: %d, want %d", c.what, got, c.want)
		}
	}
}

func count(t *testing.T, st store.Store, prefix []byte) int {
	t.Helper()
	n := 0
	err := st.View(context.Background(), func(tx store.Tx) error {
		return tx.Scan(prefix, store.PrefixEnd(prefix), store.ScanOptions{}, func(_, _ []byte) bool { n++; return true })
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}
