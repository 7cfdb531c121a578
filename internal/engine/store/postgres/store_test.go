package postgres

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/lazuli-storage/lazuli/internal/engine/store"
)

func put(t *testing.T, s *Store, kv ...string) {
	t.Helper()
	err := s.Update(context.Background(), func(tx store.Tx) error {
		for i := 0; i+1 < len(kv); i += 2 {
			if err := tx.Put([]byte(kv[i]), []byte(kv[i+1])); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatalf("Update: %v", err)
	}
}

func get(t *testing.T, s *Store, key string) ([]byte, error) {
	t.Helper()
	var v []byte
	err := s.View(context.Background(), func(tx store.Tx) error {
		got, err := tx.Get([]byte(key))
		v = bytes.Clone(got)
		return err
	})
	return v, err
}

func TestGetPutDelete(t *testing.T) {
	s, _ := openTest(t)
	put(t, s, "a", "1", "empty", "")
	if v, err := get(t, s, "a"); err != nil || string(v) != "1" {
		t.Fatalf("Get a = %q, %v", v, err)
	}
	if v, err := get(t, s, "empty"); err != nil || v == nil || len(v) != 0 {
		t.Fatalf("Get empty = %#v, %v; want non-nil empty value", v, err)
	}
	if _, err := get(t, s, "missing"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("Get missing: %v, want ErrNotFound", err)
	}
	err := s.Update(context.Background(), func(tx store.Tx) error {
		if err := tx.Put([]byte("nil"), nil); err != nil {
			return err
		}
		if err := tx.Delete([]byte("a")); err != nil {
			return err
		}
		return tx.Delete([]byte("never-there"))
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := get(t, s, "a"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("Get after Delete: %v", err)
	}
	if v, err := get(t, s, "nil"); err != nil || len(v) != 0 {
		t.Fatalf("Get nil-valued = %q, %v", v, err)
	}
}

func TestViewIsReadOnly(t *testing.T) {
	s, _ := openTest(t)
	err := s.View(context.Background(), func(tx store.Tx) error {
		if err := tx.Put([]byte("k"), []byte("v")); !errors.Is(err, store.ErrReadOnly) {
			t.Errorf("Put in View: %v", err)
		}
		if err := tx.Delete([]byte("k")); !errors.Is(err, store.ErrReadOnly) {
			t.Errorf("Delete in View: %v", err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestClosureErrorAborts(t *testing.T) {
	s, _ := openTest(t)
	mine := errors.New("mine")
	runs := 0
	err := s.Update(context.Background(), func(tx store.Tx) error {
		runs++
		if err := tx.Put([]byte("k"), []byte("v")); err != nil {
			return err
		}
		return mine
	})
	if err != mine {
		t.Fatalf("Update returned %v, want the closure's error unchanged", err)
	}
	if runs != 1 {
		t.Fatalf("closure ran %d times for a non-conflict error", runs)
	}
	if _, err := get(t, s, "k"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("write of an aborted Update is visible: %v", err)
	}
}

// A closure that swallows a database error must not have its earlier
// writes committed.
func TestSwallowedErrorDoesNotCommit(t *testing.T) {
	s, _ := openTest(t)
	ctx, cancel := context.WithCancel(context.Background())
	err := s.Update(ctx, func(tx store.Tx) error {
		if err := tx.Put([]byte("k"), []byte("v")); err != nil {
			return err
		}
		cancel()
		_, _ = tx.Get([]byte("other"))
		return nil
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Update = %v, want context.Canceled", err)
	}
	if _, err := get(t, s, "k"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("write before a swallowed error was committed: %v", err)
	}
}

func TestTxUnusableAfterClosure(t *testing.T) {
	s, _ := openTest(t)
	var kept store.Tx
	if err := s.Update(context.Background(), func(tx store.Tx) error { kept = tx; return nil }); err != nil {
		t.Fatal(err)
	}
	if _, err := kept.Get([]byte("k")); !errors.Is(err, errTxDone) {
		t.Fatalf("Get on a finished Tx: %v", err)
	}
	if err := kept.Put([]byte("k"), nil); !errors.Is(err, errTxDone) {
		t.Fatalf("Put on a finished Tx: %v", err)
	}
}

func TestUpdateSeesOwnWrites(t *testing.T) {
	s, _ := openTest(t)
	put(t, s, "b", "old")
	err := s.Update(context.Background(), func(tx store.Tx) error {
		if err := tx.Put([]byte("a"), []byte("new")); err != nil {
			return err
		}
		if err := tx.Delete([]byte("b")); err != nil {
			return err
		}
		var keys []string
		err := tx.Scan(nil, nil, store.ScanOptions{}, func(k, v []byte) bool {
			keys = append(keys, string(k)+"="+string(v))
			return true
		})
		if err != nil {
			return err
		}
		if fmt.Sprint(keys) != "[a=new]" {
			return fmt.Errorf("scan inside Update saw %v", keys)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
