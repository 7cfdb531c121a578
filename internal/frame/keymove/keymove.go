// Package keymove moves a resource's records from one key name to another
// in bounded transactions, and names the tombstones deleted resources wait
// under. The Blob service keys blobs by their container's name and the
// File service keys directories, files and ranges by their share's name,
// so soft delete, restore and rename of a container or a share move every
// record the resource owns. No single bounded transaction moves a resource
// of any size: Move runs Updates of at most Batch records each, and the
// caller keeps the resource hidden until the last one.
//
// A moved record is deleted from its source key in the transaction that
// writes it under its destination, so an interrupted move leaves every
// record exactly once, and repeating the move finishes it. Each Update
// rescans its spans from their start, so a record written under the source
// while the move runs is moved too.
package keymove

import (
	"bytes"
	"context"
	"strings"

	"github.com/lazuli-storage/lazuli/internal/engine/store"
)

// Batch is the most records one Update of a move handles.
const Batch = 256

// TombstoneSep joins a deleted resource's name and its deleted version. It
// never appears in a container or share name and sorts before every
// character that does, so a deleted version lists right after a live
// resource of its name.
const TombstoneSep = "!"

// Tombstone is the key name a deleted resource's records wait under.
func Tombstone(name, version string) string { return name + TombstoneSep + version }

// SplitTombstone returns the name and version of a tombstone key name; ok
// is false for a live resource's name.
func SplitTombstone(keyName string) (name, version string, ok bool) {
	return strings.Cut(keyName, TombstoneSep)
}

// IsTombstone reports whether a key name is a tombstone's.
func IsTombstone(keyName string) bool { return strings.Contains(keyName, TombstoneSep) }

// Span is a range of source keys, [Start, End), each starting with From,
// moved to the same key with From replaced by To. A span whose To is nil
// deletes its records instead: Move over such spans is a bounded purge.
type Span struct {
	Start, End []byte
	From, To   []byte
}

// Prefix is the span of every key under from, moved under to (deleted when
// to is nil).
func Prefix(from, to []byte) Span {
	return Span{Start: from, End: store.PrefixEnd(from), From: from, To: to}
}

// Each is called for every record moved or deleted, in the transaction
// that does it, with the record's old key and value: a service moves or
// drops there what it indexes or references from the record.
type Each func(tx store.Tx, oldKey, value []byte) error

// Move moves every record of spans, at most Batch per Update. each may be
// nil. finish, when not nil, runs in the Update that finds the spans empty,
// so that whatever it writes (the resource record that makes the move
// visible) commits atomically with the proof that nothing is left behind.
func Move(ctx context.Context, st store.Store, spans []Span, each Each, finish func(tx store.Tx) error) error {
	for {
		done := false
		err := st.Update(ctx, func(tx store.Tx) error {
			done = false
			budget := Batch
			for _, sp := range spans {
				moved, err := MoveSome(tx, sp, budget, each)
				if err != nil {
					return err
				}
				if budget -= moved; budget == 0 {
					return nil
				}
			}
			done = true
			if finish != nil {
				return finish(tx)
			}
			return nil
		})
		if err != nil || done {
			return err
		}
	}
}

// MoveSome moves up to limit records of one span in tx and returns how
// many it moved: one step of Move, for a test that stops a move part-way.
func MoveSome(tx store.Tx, sp Span, limit int, each Each) (int, error) {
	type kv struct{ k, v []byte }
	var batch []kv
	err := tx.Scan(sp.Start, sp.End, store.ScanOptions{Limit: limit}, func(k, v []byte) bool {
		batch = append(batch, kv{bytes.Clone(k), bytes.Clone(v)})
		return true
	})
	if err != nil {
		return 0, err
	}
	for _, r := range batch {
		if err := tx.Delete(r.k); err != nil {
			return 0, err
		}
		if sp.To != nil {
			newKey := append(bytes.Clone(sp.To), r.k[len(sp.From):]...)
			if err := tx.Put(newKey, r.v); err != nil {
				return 0, err
			}
		}
		if each != nil {
			if err := each(tx, r.k, r.v); err != nil {
				return 0, err
			}
		}
	}
	return len(batch), nil
}
