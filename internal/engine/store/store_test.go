package store_test

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/lazuli-storage/lazuli/internal/engine/store"
	"github.com/lazuli-storage/lazuli/internal/engine/store/memory"
)

var errDenied = errors.New("denied")

// A Checked store runs the context's checks, earlier first, in each
// View's and Update's own transaction until an Update under them commits,
// and an Update whose check fails writes nothing; a context without a
// check runs as the store does.
func TestCheckedRunsTheChecksInEachTransaction(t *testing.T) {
	st := store.Checked(memory.New())
	if store.Checked(st) != st {
		t.Fatal("a Checked store wrapped twice")
	}
	ctx := context.Background()
	allowKey, itemKey := []byte("allow"), []byte("item")
	put := func(ctx context.Context, k, v []byte) error {
		return st.Update(ctx, func(tx store.Tx) error { return tx.Put(k, v) })
	}
	if err := put(ctx, allowKey, []byte("yes")); err != nil {
		t.Fatal(err)
	}
	var order []string
	allowed := func(tx store.Tx) error {
		order = append(order, "allowed")
		v, err := tx.Get(allowKey)
		if err != nil || string(v) != "yes" {
			return errDenied
		}
		return nil
	}
	second := func(store.Tx) error { order = append(order, "second"); return nil }
	checked := store.WithCheck(store.WithCheck(ctx, allowed), second)

	if err := st.View(checked, func(store.Tx) error { return nil }); err != nil {
		t.Fatalf("allowed read: %v", err)
	}
	if len(order) != 2 || order[0] != "allowed" || order[1] != "second" {
		t.Fatalf("checks ran %v, want [allowed second]", order)
	}
	if err := put(ctx, allowKey, []byte("no")); err != nil {
		t.Fatal(err)
	}
	if err := st.View(checked, func(store.Tx) error { return nil }); !errors.Is(err, errDenied) {
		t.Fatalf("read after the permission went: %v, want denied", err)
	}
	if err := put(checked, itemKey, []byte("2")); !errors.Is(err, errDenied) {
		t.Fatalf("write after the permission went: %v, want denied", err)
	}

	// A committed Update settles the check: what follows reads back what
	// the write did, which may be what the check asked about.
	if err := put(ctx, allowKey, []byte("yes")); err != nil {
		t.Fatal(err)
	}
	once := store.WithCheck(ctx, allowed)
	if err := st.Update(once, func(tx store.Tx) error { return tx.Put(allowKey, []byte("no")) }); err != nil {
		t.Fatalf("allowed write: %v", err)
	}
	if err := st.View(once, func(store.Tx) error { return nil }); err != nil {
		t.Fatalf("a read after the allowed write was checked again: %v", err)
	}
	err := st.View(ctx, func(tx store.Tx) error {
		_, err := tx.Get(itemKey)
		return err
	})
	if !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("the denied write: %v, want it not kept", err)
	}
}

// DeletePrefix removes every key under the prefix, past one batch, and
// nothing beside it.
func TestDeletePrefix(t *testing.T) {
	st := memory.New()
	ctx := context.Background()
	prefix := store.NewKey(store.SpaceBlob).Str("a")
	err := st.Update(ctx, func(tx store.Tx) error {
		for i := range 2500 {
			if err := tx.Put(store.Key(slices.Clip(prefix)).Uint(uint64(i)), nil); err != nil {
				return err
			}
		}
		return tx.Put(store.NewKey(store.SpaceBlob).Str("b"), nil)
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Update(ctx, func(tx store.Tx) error { return store.DeletePrefix(tx, prefix) }); err != nil {
		t.Fatal(err)
	}
	var left int
	err = st.View(ctx, func(tx store.Tx) error {
		return tx.Scan(nil, nil, store.ScanOptions{}, func(_, _ []byte) bool { left++; return true })
	})
	if err != nil || left != 1 {
		t.Fatalf("%d keys left (%v), want only the one beside the prefix", left, err)
	}
}
