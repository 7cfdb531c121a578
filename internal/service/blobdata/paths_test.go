package blobdata

import (
	"bytes"
	"context"
	"slices"
	"testing"
	"time"

	"github.com/lazuli-storage/lazuli/internal/engine/store"
	memstore "github.com/lazuli-storage/lazuli/internal/engine/store/memory"
	"github.com/lazuli-storage/lazuli/internal/rule/azerr"
	"github.com/lazuli-storage/lazuli/internal/rule/etag"
)

// keysIn lists the keys of space that contain needle, in order.
func keysIn(t *testing.T, st store.Store, space store.Space, needle string) []string {
	t.Helper()
	var out []string
	err := st.View(context.Background(), func(tx store.Tx) error {
		p := store.NewKey(space)
		return tx.Scan(p, store.PrefixEnd(p), store.ScanOptions{}, func(k, _ []byte) bool {
			if bytes.Contains(k, []byte(needle)) {
				out = append(out, string(k))
			}
			return true
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestMoveTreeCarriesIndexesAndBlocks: a directory's move rekeys every
// record under it with its tag index, expiry index and uncommitted block
// entries, and leaves nothing under the old names; names that only share
// the directory's prefix ("old-other") stay.
func TestMoveTreeCarriesIndexesAndBlocks(t *testing.T) {
	st := memstore.New()
	ctx := context.Background()
	now := time.Unix(1700000000, 0).UTC()
	err := st.Update(ctx, func(tx store.Tx) error {
		if err := SaveBlob(tx, "acct", "fs", "old", NewDirectory(now, nil)); err != nil {
			return err
		}
		f := &Blob{Type: BlockBlob, Committed: true, ETag: etag.Next(now, 0), Created: now, HasUncommitted: true, BlockIDLen: 4,
			Tags: TagSet{{Key: "k", Value: "v"}}}
		f.ExpiresOn = now.Add(time.Hour)
		f.SetSegments([]Segment{{Extent: "e1", Length: 3}})
		for _, name := range []string{"old/sub/f", "old-other"} {
			if err := errorsOf(SaveBlob(tx, "acct", "fs", name, f), ReindexTags(tx, "acct", "fs", name, nil, f),
				ReindexExpiry(tx, "acct", "fs", name, nil, f), tx.Put(BlockKey("acct", "fs", name, "blk1"), (&Block{Extent: "e2", Size: 1}).Encode())); err != nil {
				return err
			}
		}
		moved, err := Move{Account: "acct", FromContainer: "fs", From: "old", ToContainer: "fs", To: "e/new", Tree: true}.Run(tx)
		if moved != 2 {
			t.Errorf("moved %d blobs, want 2", moved)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, space := range []store.Space{store.SpaceBlob, store.SpaceBlobIndex, store.SpaceBlobExpiry, store.SpaceBlock} {
		if old := keysIn(t, st, space, "old/sub/f"); len(old) != 0 {
			t.Errorf("space %d keeps the old name: %q", space, old)
		}
		if moved := keysIn(t, st, space, "e/new/sub/f"); len(moved) == 0 {
			t.Errorf("space %d lacks the new name", space)
		}
		if other := keysIn(t, st, space, "old-other"); len(other) == 0 {
			t.Errorf("space %d lost old-other", space)
		}
	}
	err = st.View(ctx, func(tx store.Tx) error {
		b, _, err := LoadBlob(tx, "acct", "fs", "e/new/sub/f")
		if err != nil {
			return err
		}
		segs, err := b.Segments()
		if err != nil || !slices.Equal(segs, []Segment{{Extent: "e1", Length: 3}}) {
			t.Errorf("moved content %v, %v", segs, err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestMoveStopsAtProtection: a legal hold on a blob under the directory
// stops the move (the store transaction rolls back what was moved).
func TestMoveStopsAtProtection(t *testing.T) {
	st := memstore.New()
	now := time.Unix(1700000000, 0).UTC()
	err := st.Update(context.Background(), func(tx store.Tx) error {
		held := NewDirectory(now, nil)
		held.LegalHold, held.LegalHoldSet = true, true
		if err := errorsOf(SaveBlob(tx, "acct", "fs", "d", NewDirectory(now, nil)), SaveBlob(tx, "acct", "fs", "d/held", held)); err != nil {
			return err
		}
		_, err := Move{Account: "acct", FromContainer: "fs", From: "d", ToContainer: "fs", To: "e", Tree: true, Now: now}.Run(tx)
		return err
	})
	if e, ok := azerr.As(err); !ok || e.Code != azerr.BlobImmutableDueToLegalHold {
		t.Fatalf("move of a held blob: %v", err)
	}
}

// TestTreeDeletionPages: a directory of four blobs deleted two a call
// goes on from where the last call stopped and removes the directory
// with the last page; a name beside it stays.
func TestTreeDeletionPages(t *testing.T) {
	st := memstore.New()
	now := time.Unix(1700000000, 0).UTC()
	names := []string{"d", "d/a", "d/b", "d/c", "d/c/x", "e"}
	err := st.Update(context.Background(), func(tx store.Tx) error {
		for _, name := range names {
			if err := SaveBlob(tx, "acct", "fs", name, NewDirectory(now, nil)); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	after, calls := "", 0
	for done := false; !done; calls++ {
		err := st.Update(context.Background(), func(tx store.Tx) error {
			del := TreeDeletion{Account: "acct", Container: "fs", Dir: "d", Now: now, Refs: RefDelta{}, Limit: 2}
			var err error
			after, done, err = del.Run(tx, after)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if calls != 2 {
		t.Errorf("%d calls, want 2", calls)
	}
	if left := keysIn(t, st, store.SpaceBlob, "fs"); len(left) != 1 || !bytes.Contains([]byte(left[0]), []byte("fs\x00\x01e\x00\x01")) {
		t.Errorf("left %q, want only e", left)
	}
}

// TestTreeDeletionKeepsItsStartTime: under soft delete a paged directory
// delete records its first call's time between calls, every call retires
// its paths at that time, and the last call drops it; a container going
// for good drops the time an abandoned delete left.
func TestTreeDeletionKeepsItsStartTime(t *testing.T) {
	st := memstore.New()
	start := time.Unix(1700000000, 0).UTC()
	pol := Policy{Retention: 7 * 24 * time.Hour}
	write := func(names ...string) {
		t.Helper()
		err := st.Update(context.Background(), func(tx store.Tx) error {
			for _, name := range names {
				if err := SaveBlob(tx, "acct", "fs", name, NewDirectory(start, nil)); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	run := func(after string, now time.Time) (string, bool) {
		t.Helper()
		var next string
		var done bool
		err := st.Update(context.Background(), func(tx store.Tx) error {
			del := TreeDeletion{Account: "acct", Container: "fs", Dir: "d", Now: now, Policy: pol, Refs: RefDelta{}, Limit: 1}
			var err error
			next, done, err = del.Run(tx, after)
			if err == nil && !del.DeletedAt.Equal(start) {
				t.Errorf("call at %v recorded the deletion at %v, want %v", now, del.DeletedAt, start)
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		return next, done
	}
	write("d", "d/a", "d/b")
	after, done := run("", start)
	for i := 1; !done; i++ {
		if len(keysIn(t, st, store.SpaceBlobIndex, treeDeletionFamily)) != 1 {
			t.Fatalf("after call %d the start time is not kept", i)
		}
		after, done = run(after, start.Add(time.Duration(i)*time.Minute))
	}
	if left := keysIn(t, st, store.SpaceBlobIndex, treeDeletionFamily); len(left) != 0 {
		t.Fatalf("a finished delete left %q", left)
	}

	write("d", "d/a", "d/b")
	run("", start)
	err := st.Update(context.Background(), func(tx store.Tx) error { return DropTreeDeletions(tx, "acct", "fs") })
	if err != nil {
		t.Fatal(err)
	}
	if left := keysIn(t, st, store.SpaceBlobIndex, treeDeletionFamily); len(left) != 0 {
		t.Fatalf("the container's drop left %q", left)
	}
}

// errorsOf is the first error of errs.
func errorsOf(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
