package blobdata

import (
	"context"
	"testing"
	"time"

	"github.com/lazuli-storage/lazuli/internal/engine/store"
	memstore "github.com/lazuli-storage/lazuli/internal/engine/store/memory"
	"github.com/lazuli-storage/lazuli/internal/rule/etag"
)

// TestDeletedPathsAreNoChildren: a path under a directory that is kept only
// as a soft-deleted state does not keep the directory from being deleted;
// a live path, committed or not, does.
func TestDeletedPathsAreNoChildren(t *testing.T) {
	st := memstore.New()
	now := time.Unix(1700000000, 0).UTC()
	f := &Blob{Type: BlockBlob, Committed: true, ETag: etag.Next(now, 0), Created: now}
	f.SetSegments(nil)
	children := func() bool {
		var has bool
		err := st.View(context.Background(), func(tx store.Tx) (err error) {
			has, err = HasChildren(tx, "acct", "fs", "dir")
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		return has
	}
	err := st.Update(context.Background(), func(tx store.Tx) error {
		gone := Frozen(f)
		gone.DeletedAt, gone.Purge = now, now.Add(time.Hour)
		return errorsOf(SaveBlob(tx, "acct", "fs", "dir", NewDirectory(now, nil)),
			tx.Put(RecordKey("acct", "fs", "dir/deleted", ElemDeleted), gone.Encode()),
			SaveBlob(tx, "acct", "fs", "dir-sibling", f))
	})
	if err != nil {
		t.Fatal(err)
	}
	if children() {
		t.Fatal("a soft-deleted path and a sibling sharing the prefix count as children")
	}
	if err := st.Update(context.Background(), func(tx store.Tx) error {
		return SaveBlob(tx, "acct", "fs", "dir/deleted", f)
	}); err != nil {
		t.Fatal(err)
	}
	if !children() {
		t.Fatal("a live path is not a child")
	}
}
