package extent_test

import (
	"bytes"
	"context"
	"crypto/md5"
	"errors"
	"io"
	"testing"
	"time"

	"github.com/lazuli-storage/lazuli/internal/engine/extent"
	extentmemory "github.com/lazuli-storage/lazuli/internal/engine/extent/memory"
	"github.com/lazuli-storage/lazuli/internal/engine/store"
	"github.com/lazuli-storage/lazuli/internal/engine/store/memory"
)

func TestInline(t *testing.T) {
	const limit = 64
	ctx := context.Background()
	inner := extentmemory.New()
	e := extent.Inline(inner, limit)
	cases := []struct {
		size   int
		inline bool
	}{{0, true}, {1, true}, {limit, true}, {limit + 1, false}, {10 * limit, false}}
	for _, c := range cases {
		data := bytes.Repeat([]byte{byte(c.size)}, c.size)
		info, err := e.Write(ctx, bytes.NewReader(data), -1)
		if err != nil {
			t.Fatalf("size %d: %v", c.size, err)
		}
		if extent.IsInline(info.ID) != c.inline || info.Size != int64(c.size) || info.MD5 != md5.Sum(data) {
			t.Errorf("size %d: info %+v inline %v", c.size, info, extent.IsInline(info.ID))
		}
		r, err := e.Open(ctx, info.ID)
		if err != nil {
			t.Fatalf("size %d: open: %v", c.size, err)
		}
		got, err := io.ReadAll(io.NewSectionReader(r, 0, r.Size()))
		r.Close()
		if err != nil || !bytes.Equal(got, data) {
			t.Errorf("size %d: read back %d bytes, %v", c.size, len(got), err)
		}
		if err := e.Remove(ctx, info.ID); err != nil {
			t.Errorf("size %d: remove: %v", c.size, err)
		}
	}
	var listed int
	_ = inner.List(ctx, func(string, float64) error { listed++; return nil })
	if listed != 0 {
		t.Errorf("%d extents left in the engine after removing all", listed)
	}
}

func TestInlineRespectsLimitAndNeedsNoRefs(t *testing.T) {
	ctx := context.Background()
	e := extent.Inline(extentmemory.New(), 64)
	if _, err := e.Write(ctx, bytes.NewReader(make([]byte, 10)), 5); !errors.Is(err, extent.ErrTooLarge) {
		t.Errorf("10 bytes with limit 5: %v, want ErrTooLarge", err)
	}
	info, err := e.Write(ctx, bytes.NewReader([]byte("tiny")), -1)
	if err != nil {
		t.Fatal(err)
	}
	st := memory.New()
	err = st.Update(ctx, func(tx store.Tx) error {
		if err := extent.Ref(tx, info.ID); err != nil {
			return err
		}
		return extent.Unref(tx, info.ID, time.Now())
	})
	if err != nil {
		t.Fatal(err)
	}
	_ = st.View(ctx, func(tx store.Tx) error {
		return tx.Scan([]byte{0}, nil, store.ScanOptions{}, func(k, v []byte) bool {
			t.Errorf("inline references left a record %x", k)
			return true
		})
	})
	if _, err := e.Open(ctx, "~not base64!"); !errors.Is(err, extent.ErrNotFound) {
		t.Errorf("corrupt inline id: %v", err)
	}
}

// Each write of the same small content gets its own ID (diffs tell writes
// apart by ID), and an ID of the earlier untagged form still reads.
func TestInlineIDsAreWrites(t *testing.T) {
	ctx := context.Background()
	e := extent.Inline(extentmemory.New(), 64)
	data := []byte("same bytes")
	a, err := e.Write(ctx, bytes.NewReader(data), -1)
	if err != nil {
		t.Fatal(err)
	}
	b, err := e.Write(ctx, bytes.NewReader(data), -1)
	if err != nil {
		t.Fatal(err)
	}
	if a.ID == b.ID {
		t.Fatalf("two writes share the ID %s", a.ID)
	}
	for _, id := range []string{a.ID, b.ID, "~c2FtZSBieXRlcw"} { // the last: untagged "same bytes"
		r, err := e.Open(ctx, id)
		if err != nil {
			t.Fatalf("%s: %v", id, err)
		}
		got, _ := io.ReadAll(io.NewSectionReader(r, 0, r.Size()))
		if string(got) != "same bytes" {
			t.Fatalf("%s reads %q", id, got)
		}
	}
}
