package queue

import (
	"context"
	"time"

	"github.com/lazuli-storage/lazuli/internal/base/guid"
	"github.com/lazuli-storage/lazuli/internal/engine/store"
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

// MessageView is one message as an inspector sees it: visible or not.
type MessageView struct {
	ID           string    `json:"id"`
	Text         string    `json:"text"`
	Inserted     time.Time `json:"inserted"`
	Expires      time.Time `json:"expires,omitzero"` // zero: never
	NextVisible  time.Time `json:"nextVisible"`
	Visible      bool      `json:"visible"`
	DequeueCount uint32    `json:"dequeueCount"`
}

// Inspect lists up to limit unexpired messages of a queue, invisible ones
// included, in the order they become visible (for the admin console; no
// REST operation shows invisible messages).
func Inspect(ctx context.Context, st store.Store, account, queue string, now time.Time, limit int) ([]MessageView, error) {
	var out []MessageView
	err := st.View(ctx, func(tx store.Tx) error {
		out = out[:0]
		prefix := msgPrefix(account, queue)
		var decodeErr error
		err := tx.Scan(prefix, store.PrefixEnd(prefix), store.ScanOptions{}, func(k, v []byte) bool {
			var m message
			if decodeErr = decodeKey(k, len(prefix), &m); decodeErr != nil {
				return false
			}
			if decodeErr = decodeValue(v, &m); decodeErr != nil {
				return false
			}
			if m.expired(nanos(now)) {
				return true
			}
			view := MessageView{ID: guid.Format(m.ID), Text: string(m.Text), Inserted: instant(m.Inserted),
				NextVisible: instant(m.VisibleAt), Visible: m.VisibleAt <= nanos(now), DequeueCount: m.Dequeues}
			if m.Expires != neverExpires {
				view.Expires = instant(m.Expires)
			}
			out = append(out, view)
			return len(out) < limit
		})
		if err != nil {
			return err
		}
		return decodeErr
	})
	return out, err
}
