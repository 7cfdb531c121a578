package blobdata

import (
	"sort"
	"time"

	"github.com/lazuli-storage/lazuli/internal/engine/extent"
	"github.com/lazuli-storage/lazuli/internal/engine/store"
)

// RefDelta accumulates extent reference changes of one Update, so that a
// block moving from the uncommitted list into the committed content (one
// reference dropped, one taken) costs no store work at all.
type RefDelta map[string]int

// Add and Drop ignore the empty ID: a hole of a page blob's page map
// (pagemap.go) holds no extent.
func (d RefDelta) Add(id string) {
	if id != "" {
		d[id]++
	}
}

func (d RefDelta) Drop(id string) {
	if id != "" {
		d[id]--
	}
}

func (d RefDelta) AddSegments(segs []Segment) {
	for _, s := range segs {
		d.Add(s.Extent)
	}
}

func (d RefDelta) DropSegments(segs []Segment) {
	for _, s := range segs {
		d.Drop(s.Extent)
	}
}

// Apply writes the net changes, in a fixed order so that retried closures
// behave identically.
func (d RefDelta) Apply(tx store.Tx, now time.Time) error {
	ids := make([]string, 0, len(d))
	for id, n := range d {
		if n != 0 {
			ids = append(ids, id)
		}
	}
	sort.Strings(ids)
	for _, id := range ids {
		for n := d[id]; n > 0; n-- {
			if err := extent.Ref(tx, id); err != nil {
				return err
			}
		}
		for n := d[id]; n < 0; n++ {
			if err := extent.Unref(tx, id, now); err != nil {
				return err
			}
		}
	}
	return nil
}

// DropUncommitted deletes every uncommitted block record of a blob and
// drops their references into d.
func DropUncommitted(tx store.Tx, account, container, name string, d RefDelta) error {
	blocks, err := LoadBlocks(tx, account, container, name)
	if err != nil {
		return err
	}
	for _, b := range blocks {
		d.Drop(b.Extent)
		if err := tx.Delete(BlockKey(account, container, name, b.ID)); err != nil {
			return err
		}
	}
	return nil
}

// RemoveBlob deletes a blob record with its uncommitted blocks and tag
// index entries, dropping every reference they held into d.
func RemoveBlob(tx store.Tx, account, container, name string, b *Blob, d RefDelta) error {
	segs, err := b.Segments()
	if err != nil {
		return err
	}
	d.DropSegments(segs)
	if err := ReindexTags(tx, account, container, name, b, nil); err != nil {
		return err
	}
	if err := ReindexExpiry(tx, account, container, name, b, nil); err != nil {
		return err
	}
	if b.HasUncommitted {
		if err := DropUncommitted(tx, account, container, name, d); err != nil {
			return err
		}
	}
	return tx.Delete(blobKey(account, container, name))
}

// Extents lists the extent references a record holds, one per use.
// Snapshots, versions and soft-deleted states copy whole records, so any
// content a blob kind keeps outside its segments must be listed here too.
func (b *Blob) Extents() ([]string, error) {
	segs, err := b.Segments()
	if err != nil {
		return nil, err
	}
	ids := make([]string, 0, len(segs))
	for _, s := range segs {
		if s.Extent != "" { // a page blob's hole holds no extent
			ids = append(ids, s.Extent)
		}
	}
	return ids, nil
}
