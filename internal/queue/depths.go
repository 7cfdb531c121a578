package queue

import (
	"context"
	"time"

	"github.com/lazuli-storage/lazuli/internal/store"
)

// Depth is the number of unexpired messages, visible or not, of one queue.
type Depth struct {
	Account, Queue string
	Messages       int
}

// Depths counts the messages of every queue of every account at now, in
// one snapshot (for metrics; its cost grows with the messages stored).
func Depths(ctx context.Context, st store.Store, now time.Time) ([]Depth, error) {
	var out []Depth
	err := st.View(ctx, func(tx store.Tx) error {
		out = out[:0]
		start := store.NewKey(store.SpaceQueue).Bytes()
		var names []Depth
		err := tx.Scan(start, store.PrefixEnd(start), store.ScanOptions{}, func(k, _ []byte) bool {
			r := store.ReadKey(k, store.SpaceQueue)
			account, queue := r.Str(), r.Str()
			if r.Err() == nil {
				names = append(names, Depth{Account: account, Queue: queue})
			}
			return ctx.Err() == nil
		})
		if err != nil {
			return err
		}
		for _, d := range names {
			if d.Messages, err = countMessages(tx, msgPrefix(d.Account, d.Queue), nanos(now)); err != nil {
				return err
			}
			out = append(out, d)
		}
		return ctx.Err()
	})
	return out, err
}
