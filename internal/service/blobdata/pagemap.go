package blobdata

// A page blob's content is its segment list read as a sparse page map: the
// segments cover [0, size) in order, and a segment with no extent is a hole
// of unwritten (or cleared) pages that read as zeros. A 1 TiB blob with one
// page written is three segments, and Put Page rewrites only the segments
// its range touches. Snapshots, copies and deletion treat the list like any
// other content (holes hold no extent reference).

const (
	PageSize = 512
	// MaxPageBlobSize is the largest page blob (8 TiB).
	MaxPageBlobSize = 8 << 40
	// MaxPutPageBytes is the most one Put Page (update) writes.
	MaxPutPageBytes = 4 << 20
)

// PageRange is an inclusive byte range of a page blob.
type PageRange struct{ Start, End int64 }

func (p PageRange) Length() int64 { return p.End - p.Start + 1 }

// Hole is n bytes of unwritten pages.
func Hole(n int64) Segment { return Segment{Length: n} }

// A hole that Clear Pages made carries a clear mark in its Offset, which a
// hole has no other use for (and which was always encoded, as 0): the ETag
// tick of the write that cleared it, unique to that write. A diff against
// a snapshot reports a marked hole the snapshot does not share as cleared,
// even where the snapshot held nothing: azure-sdk-for-python's recorded
// test_get_page_ranges_diff (tests/test_page_blob.py) snapshots an empty
// blob, writes pages, clears one, and the service lists that page as a
// ClearRange of the diff.

// ClearedHole is n bytes of pages cleared by the write that mark names
// (nonzero).
func ClearedHole(n int64, mark uint64) Segment { return Segment{Length: n, Offset: int64(mark)} }

func isHole(s Segment) bool { return s.Extent == "" }

// clearMark is the mark of a hole, 0 for pages never written.
func clearMark(s Segment) int64 { return s.Offset }

// ReplacePages returns segs with the n bytes at off replaced by with (a
// data segment, or a hole to clear them), the old segments it displaced
// and the new ones it made (whole pieces, for reference accounting: a
// split segment is one reference dropped and two taken). Adjacent holes
// are merged. off+n must not exceed the size the segments cover.
func ReplacePages(segs []Segment, off, n int64, with Segment) (out, removed, added []Segment) {
	with.Length = n
	out = make([]Segment, 0, len(segs)+2)
	end := off + n
	var pos int64
	inserted := false
	for _, s := range segs {
		sEnd := pos + s.Length
		if sEnd <= off || pos >= end {
			if !inserted && pos >= end {
				out = appendMerged(out, with)
				added = append(added, with)
				inserted = true
			}
			out = appendMerged(out, s)
			pos = sEnd
			continue
		}
		removed = append(removed, s)
		if pos < off {
			head := s
			head.Length = off - pos
			out = appendMerged(out, head)
			added = append(added, head)
		}
		if !inserted {
			out = appendMerged(out, with)
			added = append(added, with)
			inserted = true
		}
		if sEnd > end {
			tail := s
			if !isHole(s) {
				tail.Offset += end - pos
			}
			tail.Length = sEnd - end
			out = appendMerged(out, tail)
			added = append(added, tail)
		}
		pos = sEnd
	}
	if !inserted && n > 0 {
		out = appendMerged(out, with)
		added = append(added, with)
	}
	return out, removed, added
}

// appendMerged appends s, folding it into a preceding hole when both are
// holes with the same clear mark. Empty segments are dropped.
func appendMerged(out []Segment, s Segment) []Segment {
	if s.Length == 0 {
		return out
	}
	if n := len(out); n > 0 && isHole(out[n-1]) && isHole(s) && clearMark(out[n-1]) == clearMark(s) {
		out[n-1].Length += s.Length
		return out
	}
	return append(out, s)
}

// ResizePages returns segs covering exactly size bytes: grown with a
// hole, or cut, with the segments (or pieces) dropped and added.
func ResizePages(segs []Segment, size int64) (out, removed, added []Segment) {
	var covered int64
	for _, s := range segs {
		covered += s.Length
	}
	if size >= covered {
		out = append(append([]Segment(nil), segs...), Hole(size-covered))
		return mergeHoles(out), nil, nil
	}
	var pos int64
	for _, s := range segs {
		sEnd := pos + s.Length
		switch {
		case sEnd <= size:
			out = append(out, s)
		case pos < size:
			removed = append(removed, s)
			head := s
			head.Length = size - pos
			out = append(out, head)
			added = append(added, head)
		default:
			removed = append(removed, s)
		}
		pos = sEnd
	}
	return out, removed, added
}

func mergeHoles(segs []Segment) []Segment {
	out := segs[:0]
	for _, s := range segs {
		out = appendMerged(out, s)
	}
	return out
}

// DataRefs adjusts refs for removed and added segments; holes hold none.
func DataRefs(refs RefDelta, removed, added []Segment) {
	for _, s := range removed {
		if !isHole(s) {
			refs.Drop(s.Extent)
		}
	}
	for _, s := range added {
		if !isHole(s) {
			refs.Add(s.Extent)
		}
	}
}

// WrittenRanges lists the written pages of segs within [from, to] as
// inclusive ranges, adjacent writes merged.
func WrittenRanges(segs []Segment, from, to int64) []PageRange {
	var out []PageRange
	var pos int64
	for _, s := range segs {
		start, end := pos, pos+s.Length-1
		pos += s.Length
		if isHole(s) || end < from {
			continue
		}
		if start > to {
			break
		}
		out = AppendRange(out, PageRange{Start: max(start, from), End: min(end, to)})
	}
	return out
}

// AppendRange appends r, merging it with an adjacent last range.
func AppendRange(out []PageRange, r PageRange) []PageRange {
	if n := len(out); n > 0 && out[n-1].End+1 == r.Start {
		out[n-1].End = r.End
		return out
	}
	return append(out, r)
}

// PageDiff compares a page blob with an earlier state of it (a snapshot):
// changed are the pages of cur written since (their data differs), cleared
// the pages written then and not now, and those cleared since by a Clear
// Pages the earlier state does not share. Both are limited to [from, to]
// and to cur's size. Pages hold the same data when they map to the same
// bytes of the same extent.
func PageDiff(prev, cur []Segment, from, to int64) (changed, cleared []PageRange) {
	a, b := segCursor{segs: prev}, segCursor{segs: cur}
	var pos int64
	for b.more() {
		next := b.end()
		if a.more() {
			next = min(next, a.end())
		}
		if next-1 >= from && pos <= to {
			r := PageRange{Start: max(pos, from), End: min(next-1, to)}
			now, was, wasOK := b.cur(), a.cur(), a.more()
			switch {
			case !isHole(now) && !(wasOK && sameData(now, was, pos-b.pos, pos-a.pos)):
				changed = AppendRange(changed, r)
			case isHole(now) && clearedSince(now, was, wasOK):
				cleared = AppendRange(cleared, r)
			}
		}
		pos = next
		b.advance(pos)
		a.advance(pos)
	}
	return changed, cleared
}

// clearedSince reports whether hole now holds pages the earlier state was
// (wasOK false: the earlier state ended before them) held data in, or that
// a Clear Pages since that state cleared.
func clearedSince(now, was Segment, wasOK bool) bool {
	if wasOK && !isHole(was) {
		return true
	}
	return clearMark(now) != 0 && clearMark(now) != clearMark(was)
}

// sameData reports whether two segments give the same bytes, at nowAt
// bytes into now and wasAt bytes into was.
func sameData(now, was Segment, nowAt, wasAt int64) bool {
	return !isHole(was) && now.Extent == was.Extent && now.Offset+nowAt == was.Offset+wasAt
}

// segCursor walks a segment list by position.
type segCursor struct {
	segs []Segment
	i    int
	pos  int64 // start of segs[i]
}

func (c *segCursor) more() bool { return c.i < len(c.segs) }
func (c *segCursor) end() int64 { return c.pos + c.segs[c.i].Length }

// cur is the segment at the cursor, a hole past the end.
func (c *segCursor) cur() Segment {
	if c.more() {
		return c.segs[c.i]
	}
	return Segment{}
}

// advance moves past the segments that end at or before pos.
func (c *segCursor) advance(pos int64) {
	for c.more() && c.end() <= pos {
		c.pos = c.end()
		c.i++
	}
}

// ZeroReader reads a hole: zeros at every offset.
type ZeroReader struct{}

func (ZeroReader) ReadAt(p []byte, _ int64) (int, error) {
	clear(p)
	return len(p), nil
}

func (ZeroReader) Close() error { return nil }
func (ZeroReader) Size() int64  { return MaxPageBlobSize }
