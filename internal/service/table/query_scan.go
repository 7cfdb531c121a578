package table

import (
	"bytes"
	"strings"

	"github.com/lazuli-storage/lazuli/internal/engine/store"
)

// lessons is what a query's store scans taught the partition cache.
type lessons struct {
	// learned are entries for tracked partitions scanned whole: ghosts,
	// or decoded entities when a ghost said it was the second time.
	learned []*cachedPart
	// untracked are partitions without versions that were scanned whole
	// and are big enough to be worth tracking.
	untracked []string
}

// segmentPart is the partition a segment scan is in.
type segmentPart struct {
	prefix []byte // key prefix of its entities
	pk     string
	listed int // index in the listed versions, -1 when untracked
	rows   int
	whole  bool // the query range covers it whole and the page has not ended in it
	b      *partBuilder
}

// scanSegment scans [lo, hi) from the store through the walker. listed are
// the tracked partitions of the segment with their versions (none of them
// cached at that version) and fill says which to decode. Partitions are
// told apart by their key prefix as the scan meets them; those the scan
// visits whole are recorded in ls.
func (w *walker) scanSegment(tx store.Tx, ref tableRef, lo, hi []byte, listed []partVersion, fill []bool, c *partCache, ls *lessons) error {
	eq := w.eq
	view := &recordView{prefixLen: eq.prefixLen}
	cur := &segmentPart{listed: -1}
	next := 0 // first listed partition not yet met
	finish := func() {
		switch {
		case cur.prefix == nil || !cur.whole:
		case cur.listed >= 0:
			ls.learned = append(ls.learned, learn(ref, listed[cur.listed], cur.b))
		case cur.rows >= c.minTrackRows:
			ls.untracked = append(ls.untracked, cur.pk)
		}
	}
	err := tx.Scan(lo, hi, store.ScanOptions{}, func(k, v []byte) bool {
		if cur.prefix == nil || !bytes.HasPrefix(k, cur.prefix) {
			finish()
			cur = w.enter(k, listed, fill, &next, c.maxPart)
		}
		if !w.record(view, k, v) {
			cur.whole = false
			return false
		}
		cur.rows++
		if cur.b != nil {
			if rk, _, ok := keyElement(k[len(cur.prefix):]); ok {
				cur.b.add(rk, v)
			} else {
				cur.whole = false
			}
		}
		return true
	})
	if err == nil {
		err = w.err
	}
	if err == nil && !w.done {
		finish()
	}
	return err
}

// enter starts the partition of record key k.
func (w *walker) enter(k []byte, listed []partVersion, fill []bool, next *int, limit int64) *segmentPart {
	eq := w.eq
	pk, rest, ok := keyElement(k[eq.prefixLen:])
	if !ok {
		return &segmentPart{listed: -1} // a malformed key: learn nothing from it
	}
	p := &segmentPart{prefix: bytes.Clone(k[:len(k)-len(rest)]), pk: strings.Clone(pk), listed: -1}
	p.whole = string(eq.start) <= string(p.prefix) && string(store.PrefixEnd(p.prefix)) <= string(eq.end)
	for *next < len(listed) && listed[*next].pk < p.pk {
		*next++
	}
	if *next < len(listed) && listed[*next].pk == p.pk {
		p.listed = *next
		if fill[*next] && p.whole {
			p.b = newPartBuilder(limit)
		}
	}
	return p
}

// learn is the cache entry for a tracked partition scanned whole.
func learn(ref tableRef, p partVersion, b *partBuilder) *cachedPart {
	e := &cachedPart{key: partKey{ref.account, ref.table, ref.id, p.pk}, version: p.version,
		state: partGhost, size: ghostBytes + int64(len(p.pk))}
	switch {
	case b == nil:
	case b.over:
		e.state = partTooBig
	default:
		if rows, size, err := b.build(p.pk); err == nil {
			e.state, e.rows, e.size = partEntries, rows, size
		}
	}
	return e
}
