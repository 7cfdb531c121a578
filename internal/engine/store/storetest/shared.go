package storetest

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/lazuli-storage/lazuli/internal/engine/store"
)

// testTwoHandles opens one location twice, as two server nodes would, and
// checks that each handle sees the other's commits at once and that
// compare-and-swap races across handles lose no update.
func testTwoHandles(t *testing.T, e Engine) {
	location := e.NewLocation(t)
	handles := []store.Store{openAt(t, e, location), openAt(t, e, location)}

	for i, writer := range handles {
		reader := handles[1-i]
		key := fmt.Sprintf("\x11seen-by-%d", 1-i)
		putAll(t, writer, map[string]string{key: "v1"})
		view(t, reader, func(tx store.Tx) error {
			wantValue(t, tx, key, "v1")
			return nil
		})
		update(t, reader, func(tx store.Tx) error { return tx.Put([]byte(key), []byte("v2")) })
		view(t, writer, func(tx store.Tx) error {
			wantValue(t, tx, key, "v2")
			return nil
		})
	}

	const goroutines, increments, counters = 8, 15, 2
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Go(func() {
			for i := range increments {
				s := handles[(g+i)%2]
				key := counterKey("shared", i%counters)
				if err := s.Update(context.Background(), func(tx store.Tx) error { return addInt(tx, key, 1) }); err != nil {
					t.Errorf("goroutine %d increment %d: %v", g, i, err)
					return
				}
			}
		})
	}
	wg.Wait()
	for h, s := range handles {
		view(t, s, func(tx store.Tx) error {
			var total int64
			for c := range counters {
				n, err := readInt(tx, counterKey("shared", c))
				if err != nil {
					return err
				}
				total += n
			}
			if total != goroutines*increments {
				t.Errorf("handle %d sees %d increments, want %d", h, total, goroutines*increments)
			}
			return nil
		})
	}
}
