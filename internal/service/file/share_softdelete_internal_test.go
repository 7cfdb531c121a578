package file

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
)

// The deleted version and RemainingRetentionDays follow azfile's recorded
// TestServiceCreateDeleteRestoreShare: a share deleted at 12:14:51 UTC on
// 2023-07-12 has version 01D9B4BA75B2F410 (a Windows file time), and with a
// one-day retention the listing a minute later says 1 day remains, while
// one deleted at 13:45:19 the day before says 0: whole calendar days.
func TestDeletedShareVersionAndRemainingDays(t *testing.T) {
	deleted := time.Date(2023, 7, 12, 12, 14, 51, 571918400, time.UTC)
	if got := deletedVersion(deleted); got != "01D9B4BA75B2F410" {
		t.Errorf("version %s, want 01D9B4BA75B2F410", got)
	}
	listed := time.Date(2023, 7, 12, 12, 15, 51, 0, time.UTC)
	for _, c := range []struct {
		deleted time.Time
		days    int
		want    int64
	}{
		{deleted, 1, 1},
		{time.Date(2023, 7, 11, 13, 45, 19, 0, time.UTC), 1, 0},
		{deleted, 7, 7},
		{time.Date(2023, 7, 5, 23, 59, 0, 0, time.UTC), 7, 0},
		{time.Date(2023, 7, 6, 0, 0, 0, 0, time.UTC), 7, 1},
	} {
		purge := c.deleted.Add(time.Duration(c.days) * 24 * time.Hour)
		if got := remainingDays(purge, listed); got != c.want {
			t.Errorf("deleted %s, %d days: %d remaining, want %d", c.deleted, c.days, got, c.want)
		}
	}
}

// newShareFixture is a service on the memory engines with a share of n
// files under key name keyName, whose record is sh.
func newShareFixture(t *testing.T, account, keyName string, n int, sh *shareRecord) *Service {
	t.Helper()
	clk := clock.NewFake(time.Now())
	s, err := New(server.Deps{Store: storemem.New(), Extents: extentmem.New(), Clock: clk})
	if err != nil {
		t.Fatal(err)
	}
	err = s.store.Update(context.Background(), func(tx store.Tx) error {
		for i := 0; i < n; i++ {
			fp, err := parsePath(fmt.Sprintf("f%03d", i), false)
			if err != nil {
				return err
			}
			if err := saveNode(tx, account, keyName, "", fp, &node{Name: fp.String(), ID: uint64(i + 1)}); err != nil {
				return err
			}
		}
		return saveShare(tx, account, keyName, "", sh)
	})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func countUnder(t *testing.T, st store.Store, prefix []byte) int {
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

func moveOneBatch(t *testing.T, s *Service, account, from, to string) {
	t.Helper()
	err := s.store.Update(context.Background(), func(tx store.Tx) error {
		_, err := keymove.MoveSome(tx, shareSpans(account, from, to)[0], keymove.Batch, nil)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

// A soft delete stopped after its first batch (a crash between two of its
// transactions) leaves the share hidden with its records split between the
// two key names; Delete Share again finishes it, exactly once. A restore
// stopped the same way finishes when repeated.
func TestInterruptedShareMovesFinish(t *testing.T) {
	const account, name, n = "acct", "docs", keymove.Batch + 10
	ctx := context.Background()
	now := time.Now().UTC()
	version := deletedVersion(now)
	tomb := keymove.Tombstone(name, version)
	sh := &shareRecord{Created: now, Quota: 1, shareLife: shareLife{DeletedAt: now, Purge: now.Add(24 * time.Hour), Version: version, MoveTo: tomb}}
	s := newShareFixture(t, account, name, n, sh)
	moveOneBatch(t, s, account, name, tomb)
	if got := countUnder(t, s.store, store.NewKey(store.SpaceFile).Str(account).Str(name)); got != n-keymove.Batch {
		t.Fatalf("%d records left after one batch, want %d", got, n-keymove.Batch)
	}
	if code, err := serve(s, s.deleteShare, http.MethodDelete, account, name, nil); err != nil || code != http.StatusAccepted {
		t.Fatalf("delete again: %d %v", code, err)
	}
	if err := s.finishSoftDelete(ctx, account, name, tomb); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		what   string
		prefix []byte
		want   int
	}{
		{"files under the name", store.NewKey(store.SpaceFile).Str(account).Str(name), 0},
		{"files under the tombstone", store.NewKey(store.SpaceFile).Str(account).Str(tomb), n},
		{"share records", store.NewKey(store.SpaceShare), 1},
		{"purge entries", store.NewKey(store.SpaceShareExpiry), 1},
	} {
		if got := countUnder(t, s.store, c.prefix); got != c.want {
			t.Errorf("%s: %d, want %d", c.what, got, c.want)
		}
	}

	// A restore stopped after its first batch.
	err := s.store.Update(ctx, func(tx store.Tx) error {
		d, _, err := loadShare(tx, account, tomb, "")
		if err != nil {
			return err
		}
		d.MoveTo = name
		if err := saveShare(tx, account, tomb, "", d); err != nil {
			return err
		}
		return saveShare(tx, account, name, "", &shareRecord{shareLife: shareLife{MoveFrom: tomb}})
	})
	if err != nil {
		t.Fatal(err)
	}
	moveOneBatch(t, s, account, tomb, name)
	hdr := http.Header{"X-Ms-Deleted-Share-Name": {name}, "X-Ms-Deleted-Share-Version": {version}}
	if code, err := serve(s, s.restoreShare, http.MethodPut, account, name, hdr); err != nil || code != http.StatusCreated {
		t.Fatalf("restore again: %d %v", code, err)
	}
	if got := countUnder(t, s.store, store.NewKey(store.SpaceFile).Str(account).Str(name)); got != n {
		t.Errorf("%d files restored, want %d", got, n)
	}
	if got := countUnder(t, s.store, store.NewKey(store.SpaceShare)) + countUnder(t, s.store, store.NewKey(store.SpaceShareExpiry)); got != 1 {
		t.Errorf("%d share records and purge entries, want the live record only", got)
	}
}

// serve runs a share-level handler as the route table would.
func serve(s *Service, h func(http.ResponseWriter, *http.Request) error, method, account, share string, hdr http.Header) (int, error) {
	r := httptest.NewRequest(method, "/"+share+"?restype=share", nil)
	r = r.WithContext(request.With(r.Context(), &request.Info{Account: account, Version: "2025-05-05"}))
	r = r.WithContext(context.WithValue(r.Context(), ctxTarget{}, &target{Account: account, Share: share}))
	for k, v := range hdr {
		r.Header[k] = v
	}
	w := httptest.NewRecorder()
	err := h(w, r)
	return w.Code, err
}
