package table

import (
	"context"

	"github.com/lazuli-storage/lazuli/internal/engine/store"
)

// defaultMinTrackRows is the smallest partition worth tracking: smaller
// ones are quick to scan, and tracking makes every write to a partition
// update its version.
const defaultMinTrackRows = 64

// apply records what a query taught the cache, after its transaction
// succeeded: entries for tracked partitions, and for each untracked
// partition scanned whole, a ghost the first time and tracking the second.
// Tracking failures only cost the cache, never the query.
func (c *partCache) apply(ctx context.Context, st store.Store, ref tableRef, ls *lessons) {
	if ls == nil {
		return
	}
	for _, e := range ls.learned {
		c.put(e)
	}
	for _, pk := range ls.untracked {
		if c.markTrack(partKey{ref.account, ref.table, ref.id, pk}) {
			_ = trackPartition(ctx, st, c, ref, pk)
		}
	}
}

// trackPartition makes partition pk tracked: in one Update it reads the
// partition whole, creates its version and adds it to the table's tracked
// list, then caches the entities it read at that version.
//
// Reading the partition is what keeps tracking safe on a serializable
// store shared by several nodes: a concurrent write to the partition that
// read the table record before pk was tracked (so bumps nothing) also
// writes a record this Update read, a cycle the store refuses by retrying
// one of the two.
func trackPartition(ctx context.Context, st store.Store, c *partCache, ref tableRef, pk string) error {
	var entry *cachedPart
	err := st.Update(ctx, func(tx store.Tx) error {
		entry = nil
		tbl, err := loadTable(tx, ref.account, ref.table)
		if err != nil {
			return err
		}
		if tbl.ID != ref.id || tbl.tracks(pk) || len(tbl.Tracked) >= maxTracked {
			return nil
		}
		b, err := readPartition(tx, keyWith(tablePrefix(ref.account, ref.table), pk), c.maxPart)
		if err != nil || b == nil {
			return err
		}
		rows, size, err := b.build(pk)
		if err != nil {
			return nil // a malformed record: leave the partition to the store
		}
		version, err := bumpPartition(tx, ref.account, ref.table, pk)
		if err != nil {
			return err
		}
		tbl.Tracked = append(tbl.Tracked, []byte(pk))
		if err := saveTable(tx, ref.account, tbl); err != nil {
			return err
		}
		entry = &cachedPart{key: partKey{ref.account, ref.table, ref.id, pk}, version: version,
			state: partEntries, rows: rows, size: size}
		return nil
	})
	if err == nil && entry != nil {
		c.put(entry)
	}
	return err
}

// readPartition collects every entity under the partition prefix; nil when
// the partition is too big to cache (or has a malformed key).
func readPartition(tx store.Tx, prefix store.Key, limit int64) (*partBuilder, error) {
	b := newPartBuilder(limit)
	err := tx.Scan(prefix, store.PrefixEnd(prefix), store.ScanOptions{}, func(k, v []byte) bool {
		rk, _, ok := keyElement(k[len(prefix):])
		if !ok {
			b.over = true
		} else {
			b.add(rk, v)
		}
		return !b.over
	})
	if err != nil || b.over {
		return nil, err
	}
	return b, nil
}
