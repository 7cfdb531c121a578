package file

import (
	"bytes"
	"math"
	"time"

	"github.com/lazuli-storage/lazuli/internal/base/record"
	"github.com/lazuli-storage/lazuli/internal/engine/extent"
	"github.com/lazuli-storage/lazuli/internal/engine/store"
	"github.com/lazuli-storage/lazuli/internal/service/file/ranges"
)

// Range segments are stored one record per segment, keyed by file id and
// start offset, so a write loads only the few segments it touches and a
// file of any size with few written ranges costs few records. Each record
// holds one reference to its extent (package extent's counts).

// kindRanges is the SpaceFileIndex kind element of range records.
const kindRanges = "r"

func rangePrefix(account, share, snap string, id uint64) []byte {
	return store.NewKey(store.SpaceFileIndex).Str(account).Str(share).Str(snap).Str(kindRanges).Uint(id)
}

func rangeKey(account, share, snap string, id uint64, start int64) []byte {
	return store.Key(rangePrefix(account, share, snap, id)).Uint(uint64(start))
}

func encodeSegment(s ranges.Segment) []byte {
	e := record.NewEncoder(16 + len(s.Extent))
	e.Byte(recordFormat)
	e.Str(s.Extent)
	e.Uvarint(uint64(s.ExtentOffset))
	e.Uvarint(uint64(s.Length))
	return e.Bytes()
}

// decodeSegment reads a range record; the key's last element is the start.
func decodeSegment(key, value []byte) (ranges.Segment, error) {
	if len(key) < 8 || len(value) == 0 || value[0] != recordFormat {
		return ranges.Segment{}, record.ErrMalformed
	}
	start := int64(0)
	for _, c := range key[len(key)-8:] {
		start = start<<8 | int64(c)
	}
	d := record.NewDecoder(value[1:])
	s := ranges.Segment{Start: start, Extent: d.Str(), ExtentOffset: int64(d.Uvarint()), Length: int64(d.Uvarint())}
	return s, d.Err()
}

// segmentsIn returns, in order, the segments of file id that overlap
// [start, end): the one that begins before start and reaches into the
// window, if any, then those that begin inside it.
func segmentsIn(tx store.Tx, account, share, snap string, id uint64, start, end int64) ([]ranges.Segment, error) {
	prefix := rangePrefix(account, share, snap, id)
	var out []ranges.Segment
	var scanErr error
	collect := func(k, v []byte) bool {
		s, err := decodeSegment(k, v)
		if err != nil {
			scanErr = err
			return false
		}
		if s.End() > start && s.Start < end {
			out = append(out, s)
		}
		return true
	}
	if start > 0 {
		err := tx.Scan(prefix, rangeKey(account, share, snap, id, start), store.ScanOptions{Limit: 1, Reverse: true}, collect)
		if err != nil {
			return nil, err
		}
	}
	stop := store.PrefixEnd(prefix)
	if end < math.MaxInt64 {
		stop = rangeKey(account, share, snap, id, end)
	}
	if err := tx.Scan(rangeKey(account, share, snap, id, start), stop, store.ScanOptions{}, collect); err != nil {
		return nil, err
	}
	return out, scanErr
}

// overlay replaces [start, end) of file id with add (nil clears it) and
// keeps extent references balanced. add's own extent reference is taken
// here too.
func overlay(tx store.Tx, account, share, snap string, id uint64, start, end int64, add *ranges.Segment, now time.Time) error {
	existing, err := segmentsIn(tx, account, share, snap, id, start, end)
	if err != nil {
		return err
	}
	if add != nil {
		if err := extent.Ref(tx, add.Extent); err != nil {
			return err
		}
	}
	edit := ranges.Overlay(existing, start, end, add)
	for _, at := range edit.Delete {
		if err := tx.Delete(rangeKey(account, share, snap, id, at)); err != nil {
			return err
		}
	}
	for _, p := range edit.Put {
		if err := tx.Put(rangeKey(account, share, snap, id, p.Start), encodeSegment(p)); err != nil {
			return err
		}
	}
	for _, ext := range edit.Ref {
		if err := extent.Ref(tx, ext); err != nil {
			return err
		}
	}
	for _, ext := range edit.Unref {
		if err := extent.Unref(tx, ext, now); err != nil {
			return err
		}
	}
	return nil
}

// truncate drops everything of file id from size on.
func truncate(tx store.Tx, account, share, snap string, id uint64, size int64, now time.Time) error {
	return overlay(tx, account, share, snap, id, size, math.MaxInt64, nil, now)
}

// dropRanges deletes every segment of file id.
func dropRanges(tx store.Tx, account, share, snap string, id uint64, now time.Time) error {
	return truncate(tx, account, share, snap, id, 0, now)
}

// purgeIndex deletes every SpaceFileIndex record under prefix, dropping
// the extent references of range records.
func purgeIndex(tx store.Tx, prefix []byte, now time.Time) error {
	type rec struct{ key, value []byte }
	var recs []rec
	err := tx.Scan(prefix, store.PrefixEnd(prefix), store.ScanOptions{}, func(k, v []byte) bool {
		recs = append(recs, rec{bytes.Clone(k), bytes.Clone(v)})
		return true
	})
	if err != nil {
		return err
	}
	for _, rc := range recs {
		if err := unrefRange(tx, rc.key, rc.value, now); err != nil {
			return err
		}
		if err := tx.Delete(rc.key); err != nil {
			return err
		}
	}
	return nil
}
