package dfs

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/lazuli-storage/lazuli/internal/base/clock"
	"github.com/lazuli-storage/lazuli/internal/engine/store"
	"github.com/lazuli-storage/lazuli/internal/engine/store/memory"
	"github.com/lazuli-storage/lazuli/internal/frame/request"
	"github.com/lazuli-storage/lazuli/internal/rule/auth"
	"github.com/lazuli-storage/lazuli/internal/service/blobdata"
)

// countedStore counts the Views and Updates it is asked for, and refuses
// the Updates while failing is set.
type countedStore struct {
	store.Store
	views, updates int
	failing        bool
}

func (c *countedStore) View(ctx context.Context, fn func(store.Tx) error) error {
	c.views++
	return c.Store.View(ctx, fn)
}

var errRefused = errors.New("store refuses writes")

func (c *countedStore) Update(ctx context.Context, fn func(store.Tx) error) error {
	c.updates++
	if c.failing {
		return errRefused
	}
	return c.Store.Update(ctx, fn)
}

// remember runs rememberUPN for a request of a token of oid naming it upn.
func remember(s *Service, oid, upn string) {
	r := httptest.NewRequest("HEAD", "https://127.0.0.1/devstoreaccount1/fs/d", nil)
	id := &auth.Identity{Kind: auth.Bearer, Account: "devstoreaccount1", Principal: &auth.Principal{ObjectID: oid, UPN: upn}}
	s.rememberUPN(r.WithContext(request.With(r.Context(), &request.Info{Account: "devstoreaccount1", Identity: id})))
}

// storedUPN is the name st holds for oid, read without counting.
func storedUPN(t *testing.T, st *countedStore, oid string) string {
	t.Helper()
	var upn string
	err := st.Store.View(context.Background(), func(tx store.Tx) error {
		var err error
		upn, err = blobdata.LoadUPN(tx, "devstoreaccount1", oid)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return upn
}

// TestRememberUPNWritesOnlyWhatIsNew: a token's name is written the first
// time, not again for its later requests, which do not even read it, nor
// by another process that finds it stored, and again when it changes; a
// store that refuses the write costs the request nothing, and the name
// is written once it can be.
func TestRememberUPNWritesOnlyWhatIsNew(t *testing.T) {
	st := &countedStore{Store: memory.New()}
	var logged bytes.Buffer
	clk := clock.NewFake(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	newService := func() *Service {
		return &Service{store: st, clock: clk, logger: slog.New(slog.NewTextHandler(&logged, nil))}
	}
	s := newService()
	const oid = "0a000000-0000-4000-8000-00000000000a"

	steps := []rememberStep{
		{"first request", s, "ann@contoso.example", 1, 1},
		{"second request", s, "ann@contoso.example", 1, 1},
		{"another process", newService(), "ann@contoso.example", 2, 1},
		{"a new name", s, "ann.b@contoso.example", 3, 2},
		{"the new name again", s, "ann.b@contoso.example", 3, 2},
	}
	runSteps(t, st, oid, steps)

	st.failing = true
	remember(s, oid, "ann.c@contoso.example")
	if !bytes.Contains(logged.Bytes(), []byte(errRefused.Error())) {
		t.Errorf("a refused write was not logged: %q", logged.String())
	}
	st.failing = false
	remember(s, oid, "ann.c@contoso.example")
	if got := storedUPN(t, st, oid); got != "ann.c@contoso.example" {
		t.Errorf("after the store took writes again: stored %q, want ann.c@contoso.example", got)
	}
	remember(s, "", "")
	remember(s, oid, "")
	if st.updates != 4 {
		t.Errorf("requests without a name made %d updates in all, want 4", st.updates)
	}
}

// rememberStep is one request of a token naming upn, and the views and
// updates the store has seen in all once it is remembered.
type rememberStep struct {
	what        string
	s           *Service
	upn         string
	wantViews   int
	wantUpdates int
}

func runSteps(t *testing.T, st *countedStore, oid string, steps []rememberStep) {
	t.Helper()
	for _, step := range steps {
		remember(step.s, oid, step.upn)
		if st.views != step.wantViews || st.updates != step.wantUpdates || storedUPN(t, st, oid) != step.upn {
			t.Fatalf("%s: %d views, %d updates, stored %q; want %d, %d, %q", step.what, st.views, st.updates,
				storedUPN(t, st, oid), step.wantViews, step.wantUpdates, step.upn)
		}
	}
}

// TestRememberedNamesAreRecordedAgainAfterAReset: the records can go
// without this process writing (an admin reset of the account, here or on
// another node); a name the process remembers is checked against the
// store again once knownNameLifetime has passed, and recorded again.
func TestRememberedNamesAreRecordedAgainAfterAReset(t *testing.T) {
	st := &countedStore{Store: memory.New()}
	clk := clock.NewFake(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	s := &Service{store: st, clock: clk, logger: slog.New(slog.DiscardHandler)}
	const oid, upn = "0b000000-0000-4000-8000-00000000000b", "bo@contoso.example"
	remember(s, oid, upn)
	resetAccount(t, st.Store, "devstoreaccount1")
	remember(s, oid, upn)
	if got := storedUPN(t, st, oid); got != "" {
		t.Fatalf("within the lifetime the name was written again: %q", got)
	}
	clk.Advance(knownNameLifetime)
	remember(s, oid, upn)
	if got := storedUPN(t, st, oid); got != upn {
		t.Fatalf("after the lifetime: stored %q, want %q", got, upn)
	}
}

// resetAccount deletes the account's records of its own key space, as an
// admin reset does.
func resetAccount(t *testing.T, st store.Store, account string) {
	t.Helper()
	err := st.Update(context.Background(), func(tx store.Tx) error {
		return store.DeletePrefix(tx, store.NewKey(store.SpaceAccount).Str(account))
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestRememberUPNStopsAtTheAccountsBound: past blobdata.MaxUPNs names an
// account records no new object ID, logs that once, and stops reading
// the store for new ones within the lifetime; a name already recorded
// still changes.
func TestRememberUPNStopsAtTheAccountsBound(t *testing.T) {
	st := &countedStore{Store: memory.New()}
	var logged bytes.Buffer
	clk := clock.NewFake(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	s := &Service{store: st, clock: clk, logger: slog.New(slog.NewTextHandler(&logged, nil))}
	oidN := func(i int) string { return fmt.Sprintf("0c000000-0000-4000-8000-%012d", i) }
	err := st.Store.Update(context.Background(), func(tx store.Tx) error {
		for i := range blobdata.MaxUPNs {
			if err := blobdata.SaveUPN(tx, "devstoreaccount1", oidN(i), fmt.Sprintf("u%d@contoso.example", i)); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	remember(s, oidN(blobdata.MaxUPNs), "extra@contoso.example")
	remember(s, oidN(blobdata.MaxUPNs+1), "extra2@contoso.example")
	if got := storedUPN(t, st, oidN(blobdata.MaxUPNs)); got != "" {
		t.Errorf("a name past the bound was recorded: %q", got)
	}
	if n := strings.Count(logged.String(), "are full"); n != 1 {
		t.Errorf("the full account was logged %d times, want once: %q", n, logged.String())
	}
	if st.views != 1 {
		t.Errorf("%d views for two new names of a full account, want 1", st.views)
	}
	err = st.Store.Update(context.Background(), func(tx store.Tx) error {
		return blobdata.SaveUPN(tx, "devstoreaccount1", oidN(0), "renamed@contoso.example")
	})
	if err != nil || storedUPN(t, st, oidN(0)) != "renamed@contoso.example" {
		t.Errorf("a recorded name of a full account did not change: %v", err)
	}
}
