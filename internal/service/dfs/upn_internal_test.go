package dfs

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"net/http/httptest"
	"testing"

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
	newService := func() *Service { return &Service{store: st, logger: slog.New(slog.NewTextHandler(&logged, nil))} }
	s := newService()
	const oid = "0a000000-0000-4000-8000-00000000000a"

	steps := []struct {
		what        string
		s           *Service
		upn         string
		wantViews   int
		wantUpdates int
	}{
		{"first request", s, "ann@contoso.example", 1, 1},
		{"second request", s, "ann@contoso.example", 1, 1},
		{"another process", newService(), "ann@contoso.example", 2, 1},
		{"a new name", s, "ann.b@contoso.example", 3, 2},
		{"the new name again", s, "ann.b@contoso.example", 3, 2},
	}
	for _, step := range steps {
		remember(step.s, oid, step.upn)
		if st.views != step.wantViews || st.updates != step.wantUpdates || storedUPN(t, st, oid) != step.upn {
			t.Fatalf("%s: %d views, %d updates, stored %q; want %d, %d, %q", step.what, st.views, st.updates,
				storedUPN(t, st, oid), step.wantViews, step.wantUpdates, step.upn)
		}
	}

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
