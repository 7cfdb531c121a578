package memory

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/lazuli-storage/lazuli/internal/clock"
	"github.com/lazuli-storage/lazuli/internal/extent"
	"github.com/lazuli-storage/lazuli/internal/extent/extenttest"
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
