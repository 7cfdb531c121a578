package memory

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/lazuli-storage/lazuli/internal/base/clock"
	"github.com/lazuli-storage/lazuli/internal/engine/extent"
	"github.com/lazuli-storage/lazuli/internal/engine/extent/extenttest"
)

func TestConformance(t *testing.T) {
	extenttest.Run(t, func(testing.TB) extent.Engine { return New() })
}

func TestListAgeFollowsClock(t *testing.T) {
	fake := clock.NewFake(time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC))
	e := NewWithClock(fake)
	info, err := e.Write(context.Background(), bytes.NewReader([]byte("x")), -1)
	if err != nil {
		t.Fatal(err)
	}
	fake.Advance(90 * time.Second)
	var got float64
	err = e.List(context.Background(), func(id string, age float64) error {
		if id != info.ID {
			t.Errorf("List reported %s, want %s", id, info.ID)
		}
		got = age
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if got != 90 {
		t.Fatalf("age = %v s, want 90", got)
	}
}

// TestStoredCapacity checks that an extent keeps about its own size in
// memory whether the limit was its exact length (the buffer is sized from
// it), far larger (a copy source's maximum), or absent (grown by doubling).
func TestStoredCapacity(t *testing.T) {
	const size = 300_000
	content := bytes.Repeat([]byte("z"), size)
	for _, limit := range []int64{size, 64 << 20, -1} {
		e := New()
		info, err := e.Write(context.Background(), bytes.NewReader(content), limit)
		if err != nil {
			t.Fatalf("limit %d: %v", limit, err)
		}
		data := e.extents[info.ID].data
		if !bytes.Equal(data, content) {
			t.Fatalf("limit %d: content differs", limit)
		}
		if waste := cap(data) - len(data); waste > size/4+bytes.MinRead {
			t.Errorf("limit %d: %d bytes of capacity unused for %d stored", limit, waste, size)
		}
	}
	if _, err := New().Write(context.Background(), bytes.NewReader(content), size-1); err != extent.ErrTooLarge {
		t.Errorf("one byte over the limit: %v, want ErrTooLarge", err)
	}
}
