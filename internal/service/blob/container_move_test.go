package blob

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/lazuli-storage/lazuli/internal/base/clock"
	extentmem "github.com/lazuli-storage/lazuli/internal/engine/extent/memory"
	"github.com/lazuli-storage/lazuli/internal/engine/store"
	storemem "github.com/lazuli-storage/lazuli/internal/engine/store/memory"
	"github.com/lazuli-storage/lazuli/internal/frame/keymove"
	"github.com/lazuli-storage/lazuli/internal/frame/request"
	"github.com/lazuli-storage/lazuli/internal/frame/server"
	"github.com/lazuli-storage/lazuli/internal/service/blobdata"
)

// newMoveFixture is a service on the memory engines with n tagged blobs
// under key name keyName, whose container record is c.
func newMoveFixture(t *testing.T, account, keyName string, n int, c *blobdata.Container) (*Service, *clock.Fake) {
	t.Helper()
	clk := clock.NewFake(time.Now())
	s, err := New(server.Deps{Store: storemem.New(), Extents: extentmem.New(), Clock: clk})
	if err != nil {
		t.Fatal(err)
	}
	now := clk.Now()
	err = s.store.Update(context.Background(), func(tx store.Tx) error {
		for i := 0; i < n; i++ {
			b := &blobdata.Blob{Type: blobdata.BlockBlob, Committed: true, Created: now, Tags: blobdata.TagSet{{Key: "k", Value: "v"}}}
			name := fmt.Sprintf("b%03d", i)
			if err := blobdata.SaveBlob(tx, account, keyName, name, b); err != nil {
				return err
			}
			if indexedName(keyName) {
				if err := blobdata.ReindexTags(tx, account, keyName, name, nil, b); err != nil {
					return err
				}
			}
		}
		return blobdata.SaveContainer(tx, account, keyName, c)
	})
	if err != nil {
		t.Fatal(err)
	}
	return s, clk
}

// stopAfterOneBatch does what a restore or rename does before a crash
// that ends it after its first batch: both records marked, one batch moved.
func stopAfterOneBatch(t *testing.T, s *Service, account, from, to string) {
	t.Helper()
	err := s.store.Update(context.Background(), func(tx store.Tx) error {
		c, _, err := blobdata.LoadContainer(tx, account, from)
		if err != nil {
			return err
		}
		c.MoveTo = to
		if err := blobdata.SaveContainer(tx, account, from, c); err != nil {
			return err
		}
		if err := blobdata.SaveContainer(tx, account, to, &blobdata.Container{ContainerLife: blobdata.ContainerLife{MoveFrom: from}}); err != nil {
			return err
		}
		froms, tos := containerPrefixes(account, from), containerPrefixes(account, to)
		_, err = moveBatchOf(tx, froms[0], tos[0], account, from, to)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

// serve runs a container-level handler as the route table would, for the
// account, with the given headers.
func serve(s *Service, h func(http.ResponseWriter, *http.Request) error, account, container, query string, hdr http.Header) (int, error) {
	r := httptest.NewRequest(http.MethodPut, "/"+container+"?"+query, nil)
	r = r.WithContext(request.With(r.Context(), &request.Info{Account: account, Version: "2025-01-05"}))
	r = withTarget(r, target{Container: container})
	for k, v := range hdr {
		r.Header[k] = v
	}
	w := httptest.NewRecorder()
	err := h(w, r)
	return w.Code, err
}

// Repeating a Restore Container or a Rename Container that stopped part-way
// finishes it: every record ends under the new name, indexed once.
func TestInterruptedRestoreAndRenameFinish(t *testing.T) {
	const account, n = "acct", moveBatch + 7
	t.Run("restore", func(t *testing.T) {
		now := time.Now()
		tomb := tombstoneName("docs", "00000000000000AA")
		c := &blobdata.Container{Created: now, ContainerLife: blobdata.ContainerLife{DeletedAt: now, Purge: now.Add(48 * time.Hour), Version: "00000000000000AA"}}
		s, _ := newMoveFixture(t, account, tomb, n, c)
		stopAfterOneBatch(t, s, account, tomb, "docs")
		status, err := serve(s, s.restoreContainer, account, "docs", "restype=container&comp=undelete",
			http.Header{"X-Ms-Deleted-Container-Name": {"docs"}, "X-Ms-Deleted-Container-Version": {"00000000000000AA"}})
		if err != nil || status != http.StatusCreated {
			t.Fatalf("restore again: %d %v", status, err)
		}
		checkMoved(t, s, account, tomb, "docs", n)
	})
	t.Run("rename", func(t *testing.T) {
		s, _ := newMoveFixture(t, account, "old", n, &blobdata.Container{Created: time.Now()})
		stopAfterOneBatch(t, s, account, "old", "new")
		status, err := serve(s, s.renameContainer, account, "new", "restype=container&comp=rename",
			http.Header{"X-Ms-Source-Container-Name": {"old"}})
		if err != nil || status != http.StatusOK {
			t.Fatalf("rename again: %d %v", status, err)
		}
		checkMoved(t, s, account, "old", "new", n)
	})
}

func checkMoved(t *testing.T, s *Service, account, from, to string, n int) {
	t.Helper()
	if got := count(t, s.store, blobdata.BlobPrefix(account, from)); got != 0 {
		t.Errorf("%d records left under %s", got, from)
	}
	if got := count(t, s.store, blobdata.BlobPrefix(account, to)); got != n {
		t.Errorf("%d records under %s, want %d", got, to, n)
	}
	if got := count(t, s.store, store.NewKey(store.SpaceBlobIndex)); got != 2*n {
		t.Errorf("%d tag index entries, want %d", got, 2*n)
	}
	if got := count(t, s.store, store.NewKey(store.SpaceContainer)); got != 1 {
		t.Errorf("%d container records, want 1", got)
	}
	err := s.store.View(context.Background(), func(tx store.Tx) error {
		c, found, err := blobdata.LoadContainer(tx, account, to)
		if err == nil && (!found || c.Hidden()) {
			t.Errorf("%s is not visible: %+v", to, c)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

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
		c := &blobdata.Container{Created: now}
		for i := 0; i < n; i++ {
			b := &blobdata.Blob{Type: blobdata.BlockBlob, Committed: true, Created: now,
				Tags: blobdata.TagSet{{Key: "k", Value: "v"}}, RetentionState: blobdata.RetentionState{ExpiresOn: now.Add(time.Hour)}}
			blob := fmt.Sprintf("b%03d", i)
			if err := blobdata.SaveBlob(tx, account, name, blob, b); err != nil {
				return err
			}
			if err := blobdata.ReindexTags(tx, account, name, blob, nil, b); err != nil {
				return err
			}
			if err := blobdata.ReindexExpiry(tx, account, name, blob, nil, b); err != nil {
				return err
			}
		}
		c.DeletedAt, c.Purge, c.Version = now, now.Add(24*time.Hour), "0000000000000001"
		c.MoveTo = tombstoneName(name, c.Version)
		return blobdata.SaveContainer(tx, account, name, c)
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
	if got := count(t, s.store, blobdata.BlobPrefix(account, name)); got != n-moveBatch {
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
		{"records under the name", blobdata.BlobPrefix(account, name), 0},
		{"records under the tombstone", blobdata.BlobPrefix(account, tomb), n},
		{"tag index entries", store.NewKey(store.SpaceBlobIndex), 0},
		{"expiry entries", store.NewKey(store.SpaceBlobExpiry), 1}, // the container's purge
		{"container records", store.NewKey(store.SpaceContainer), 1},
	} {
		if got := count(t, s.store, c.prefix); got != c.want {
			t.Errorf("%s: %d, want %d", c.what, got, c.want)
		}
	}
}

// moveBatchOf moves one batch of a container's records, as the first
// Update of a move does.
func moveBatchOf(tx store.Tx, prefix, toPrefix []byte, account, from, to string) (int, error) {
	return keymove.MoveSome(tx, keymove.Prefix(prefix, toPrefix), moveBatch, moveIndexesOf(account, from, to))
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
