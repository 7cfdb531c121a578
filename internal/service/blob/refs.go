package blob

import (
	"sort"
	"time"

	"github.com/lazuli-storage/lazuli/internal/engine/extent"
	"github.com/lazuli-storage/lazuli/internal/engine/store"
)

// refDelta accumulates extent reference changes of one Update, so that a
// block moving from the uncommitted list into the committed content (one
// reference dropped, one taken) costs no store work at all.
type refDelta map[string]int

// add and drop ignore the empty ID: a hole of a page blob's page map
// (pagemap.go) holds no extent.
func (d refDelta) add(id string) {
	if id != "" {
		d[id]++
	}
}

func (d refDelta) drop(id string) {
	if id != "" {
		d[id]--
	}
}

func (d refDelta) addSegments(segs []segment) {
	for _, s := range segs {
		d.add(s.Extent)
	}
}

func (d refDelta) dropSegments(segs []segment) {
	for _, s := range segs {
		d.drop(s.Extent)
	}
}

// apply writes the net changes, in a fixed order so that retried closures
// behave identically.
func (d refDelta) apply(tx store.Tx, now time.Time) error {
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

// dropUncommitted deletes every uncommitted block record of a blob and
// drops their references into d.
func dropUncommitted(tx store.Tx, account, container, name string, d refDelta) error {
	blocks, err := loadBlocks(tx, account, container, name)
	if err != nil {
		return err
	}
	for _, b := range blocks {
		d.drop(b.Extent)
		if err := tx.Delete(blockKey(account, container, name, b.ID)); err != nil {
			return err
		}
	}
	return nil
}

// removeBlob deletes a blob record with its uncommitted blocks and tag
// index entries, dropping every reference they held into d.
func removeBlob(tx store.Tx, account, container, name string, b *blobRecord, d refDelta) error {
	segs, err := b.Segments()
	if err != nil {
		return err
	}
	d.dropSegments(segs)
	if err := reindexTags(tx, account, container, name, b, nil); err != nil {
		return err
	}
	if err := reindexExpiry(tx, account, container, name, b, nil); err != nil {
		return err
	}
	if b.HasUncommitted {
		if err := dropUncommitted(tx, account, container, name, d); err != nil {
			return err
		}
	}
	return tx.Delete(blobKey(account, container, name))
}

// extents lists the extent references a record holds, one per use.
// Snapshots, versions and soft-deleted states copy whole records, so any
// content a blob kind keeps outside its segments must be listed here too.
func (b *blobRecord) extents() ([]string, error) {
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
