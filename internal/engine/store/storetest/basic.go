package storetest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/lazuli-storage/lazuli/internal/engine/store"
)

func runBasic(t *testing.T, e Engine) {
	t.Run("GetPutDelete", func(t *testing.T) { testGetPutDelete(t, e) })
	t.Run("EmptyValue", func(t *testing.T) { testEmptyValue(t, e) })
	t.Run("OwnWritesVisible", func(t *testing.T) { testOwnWritesVisible(t, e) })
	t.Run("ErrorDiscardsWrites", func(t *testing.T) { testErrorDiscardsWrites(t, e) })
	t.Run("ReadOnlyView", func(t *testing.T) { testReadOnlyView(t, e) })
	t.Run("KeyBufferReuse", func(t *testing.T) { testKeyBufferReuse(t, e) })
	t.Run("CanceledContext", func(t *testing.T) { testCanceledContext(t, e) })
	t.Run("Closed", func(t *testing.T) { testClosed(t, e) })
	t.Run("AgainstModel", func(t *testing.T) { testAgainstModel(t, e) })
}

// wantValue asserts that key holds want.
func wantValue(t testing.TB, tx store.Tx, key, want string) {
	t.Helper()
	got, err := tx.Get([]byte(key))
	if err != nil {
		t.Fatalf("get %q: %v, want %q", key, err, want)
	}
	if string(got) != want {
		t.Fatalf("get %q = %q, want %q", key, got, want)
	}
}

// wantMissing asserts that key has no record.
func wantMissing(t testing.TB, tx store.Tx, key string) {
	t.Helper()
	got, err := tx.Get([]byte(key))
	if !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("get %q = %q, %v; want ErrNotFound", key, got, err)
	}
}

func testGetPutDelete(t *testing.T, e Engine) {
	s := openFresh(t, e)
	view(t, s, func(tx store.Tx) error {
		wantMissing(t, tx, "\x11a")
		return nil
	})
	putAll(t, s, map[string]string{"\x11a": "1", "\x11b": "2"})
	update(t, s, func(tx store.Tx) error {
		if err := tx.Put([]byte("\x11a"), []byte("one")); err != nil {
			return err
		}
		if err := tx.Delete([]byte("\x11b")); err != nil {
			return err
		}
		if err := tx.Delete([]byte("\x11never")); err != nil {
			return fmt.Errorf("deleting a missing key: %w", err)
		}
		return nil
	})
	view(t, s, func(tx store.Tx) error {
		wantValue(t, tx, "\x11a", "one")
		wantMissing(t, tx, "\x11b")
		wantMissing(t, tx, "\x11never")
		return nil
	})
}

func testEmptyValue(t *testing.T, e Engine) {
	s := openFresh(t, e)
	update(t, s, func(tx store.Tx) error {
		if err := tx.Put([]byte("\x11empty"), []byte{}); err != nil {
			return err
		}
		return tx.Put([]byte("\x11nil"), nil)
	})
	view(t, s, func(tx store.Tx) error {
		wantValue(t, tx, "\x11empty", "")
		wantValue(t, tx, "\x11nil", "")
		wantMissing(t, tx, "\x11none")
		got, err := collect(tx, []byte("\x11"), []byte("\x12"), store.ScanOptions{})
		if err != nil {
			return err
		}
		want := []record{{"\x11empty", ""}, {"\x11nil", ""}}
		if !slices.Equal(got, want) {
			t.Errorf("scan = %q, want %q", got, want)
		}
		return nil
	})
}

func testOwnWritesVisible(t *testing.T, e Engine) {
	s := openFresh(t, e)
	putAll(t, s, map[string]string{"\x11c": "committed", "\x11e": "old"})
	update(t, s, func(tx store.Tx) error {
		for _, step := range []struct {
			del  bool
			k, v string
		}{
			{k: "\x11a", v: "A"}, {k: "\x11d", v: "D"}, {k: "\x11e", v: "new"}, {del: true, k: "\x11c"},
		} {
			var err error
			if step.del {
				err = tx.Delete([]byte(step.k))
			} else {
				err = tx.Put([]byte(step.k), []byte(step.v))
			}
			if err != nil {
				return err
			}
		}
		wantValue(t, tx, "\x11a", "A")
		wantValue(t, tx, "\x11e", "new")
		wantMissing(t, tx, "\x11c")
		want := []record{{"\x11a", "A"}, {"\x11d", "D"}, {"\x11e", "new"}}
		got, err := collect(tx, []byte("\x11"), []byte("\x12"), store.ScanOptions{})
		if err != nil {
			return err
		}
		if !slices.Equal(got, want) {
			t.Errorf("scan inside the update = %q, want %q", got, want)
		}
		got, err = collect(tx, []byte("\x11"), []byte("\x12"), store.ScanOptions{Reverse: true})
		if err != nil {
			return err
		}
		if slices.Reverse(want); !slices.Equal(got, want) {
			t.Errorf("reverse scan inside the update = %q, want %q", got, want)
		}
		return nil
	})
	view(t, s, func(tx store.Tx) error {
		wantValue(t, tx, "\x11d", "D")
		wantMissing(t, tx, "\x11c")
		return nil
	})
}

// errClosure is a distinct error value, so the test can check that Update
// returns the closure's error itself and not a copy or a wrapper.
type errClosure struct{ msg string }

func (e *errClosure) Error() string { return e.msg }

func testErrorDiscardsWrites(t *testing.T, e Engine) {
	s := openFresh(t, e)
	putAll(t, s, map[string]string{"\x11x": "1", "\x11z": "keep"})
	sentinel := &errClosure{"closure refuses"}
	calls := 0
	err := s.Update(context.Background(), func(tx store.Tx) error {
		calls++
		for _, err := range []error{
			tx.Put([]byte("\x11x"), []byte("2")),
			tx.Put([]byte("\x11y"), []byte("new")),
			tx.Delete([]byte("\x11z")),
		} {
			if err != nil {
				return err
			}
		}
		return sentinel
	})
	if err != error(sentinel) {
		t.Fatalf("Update returned %v (%T), want the closure's own error value", err, err)
	}
	if calls != 1 {
		t.Errorf("a closure that returned an error ran %d times, want once", calls)
	}
	view(t, s, func(tx store.Tx) error {
		wantValue(t, tx, "\x11x", "1")
		wantMissing(t, tx, "\x11y")
		wantValue(t, tx, "\x11z", "keep")
		return nil
	})
	// The store stays usable after a failed Update.
	putAll(t, s, map[string]string{"\x11y": "later"})
	view(t, s, func(tx store.Tx) error {
		wantValue(t, tx, "\x11y", "later")
		return nil
	})
}

func testReadOnlyView(t *testing.T, e Engine) {
	s := openFresh(t, e)
	putAll(t, s, map[string]string{"\x11k": "v"})
	view(t, s, func(tx store.Tx) error {
		if err := tx.Put([]byte("\x11k"), []byte("changed")); !errors.Is(err, store.ErrReadOnly) {
			t.Errorf("Put in View: %v, want ErrReadOnly", err)
		}
		if err := tx.Delete([]byte("\x11k")); !errors.Is(err, store.ErrReadOnly) {
			t.Errorf("Delete in View: %v, want ErrReadOnly", err)
		}
		return nil
	})
	view(t, s, func(tx store.Tx) error {
		wantValue(t, tx, "\x11k", "v")
		return nil
	})
}

// testKeyBufferReuse checks that an engine does not keep the caller's key
// slice: services build keys in reusable buffers.
func testKeyBufferReuse(t *testing.T, e Engine) {
	s := openFresh(t, e)
	update(t, s, func(tx store.Tx) error {
		buf := []byte("\x11first")
		if err := tx.Put(buf, []byte("1")); err != nil {
			return err
		}
		copy(buf, "\x11secnd")
		return tx.Put(buf, []byte("2"))
	})
	view(t, s, func(tx store.Tx) error {
		wantValue(t, tx, "\x11first", "1")
		wantValue(t, tx, "\x11secnd", "2")
		return nil
	})
}

func testCanceledContext(t *testing.T, e Engine) {
	s := openFresh(t, e)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err := s.Update(ctx, func(tx store.Tx) error {
		return tx.Put([]byte("\x11canceled"), []byte("x"))
	})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("Update with a canceled context: %v, want context.Canceled", err)
	}
	if err := s.View(ctx, func(store.Tx) error { return nil }); !errors.Is(err, context.Canceled) {
		t.Errorf("View with a canceled context: %v, want context.Canceled", err)
	}
	view(t, s, func(tx store.Tx) error {
		wantMissing(t, tx, "\x11canceled")
		return nil
	})
}

func testClosed(t *testing.T, e Engine) {
	s := openFresh(t, e)
	putAll(t, s, map[string]string{"\x11k": "v"})
	if err := s.Close(); err != nil {
		t.Fatalf("close: %v", err)
	}
	ran := false
	mark := func(store.Tx) error { ran = true; return nil }
	if err := s.View(context.Background(), mark); !errors.Is(err, store.ErrClosed) {
		t.Errorf("View after Close: %v, want ErrClosed", err)
	}
	if err := s.Update(context.Background(), mark); !errors.Is(err, store.ErrClosed) {
		t.Errorf("Update after Close: %v, want ErrClosed", err)
	}
	if ran {
		t.Error("a closure ran after Close")
	}
}

// testAgainstModel applies random puts and deletes in Updates of random size
// and compares every record, forwards and backwards, with a plain map.
func testAgainstModel(t *testing.T, e Engine) {
	s := openFresh(t, e)
	rng := rand.New(rand.NewPCG(7, 11))
	model := map[string]string{}
	for round := range 30 {
		update(t, s, func(tx store.Tx) error {
			for range rng.IntN(30) + 1 {
				key := store.NewKey(store.SpaceBlob).Uint(uint64(rng.IntN(300))).Bytes()
				if rng.IntN(4) == 0 {
					delete(model, string(key))
					if err := tx.Delete(key); err != nil {
						return err
					}
					continue
				}
				value := fmt.Sprintf("r%d-%d", round, rng.IntN(1000))
				model[string(key)] = value
				if err := tx.Put(key, []byte(value)); err != nil {
					return err
				}
			}
			return nil
		})
	}
	var want []record
	for k, v := range model {
		want = append(want, record{k, v})
	}
	slices.SortFunc(want, func(a, b record) int { return bytes.Compare([]byte(a.key), []byte(b.key)) })
	prefix := store.NewKey(store.SpaceBlob).Bytes()
	view(t, s, func(tx store.Tx) error {
		got, err := collect(tx, prefix, store.PrefixEnd(prefix), store.ScanOptions{})
		if err != nil {
			return err
		}
		if !slices.Equal(got, want) {
			t.Fatalf("scan holds %d records, model %d, or they differ", len(got), len(want))
		}
		got, err = collect(tx, prefix, store.PrefixEnd(prefix), store.ScanOptions{Reverse: true})
		if err != nil {
			return err
		}
		slices.Reverse(got)
		if !slices.Equal(got, want) {
			t.Fatal("reverse scan differs from the model")
		}
		for _, r := range want {
			wantValue(t, tx, r.key, r.value)
		}
		return nil
	})
}
