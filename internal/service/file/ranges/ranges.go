// Package ranges is the arithmetic of a sparse file: the written byte ranges
// of a file, each a piece of an immutable extent, kept as non-overlapping
// segments ordered by file offset. Bytes no segment covers read as zeros and
// cost nothing, so a 100 GiB file with a few written ranges stores only
// those ranges.
//
// The package is pure: the file service loads the segments that touch a
// request's range from the store, asks this package what to change (which
// records to delete and write, which extents gain or lose a reference), and
// applies that inside the same transaction. Every segment record holds one
// reference to its extent, so splitting a segment in two takes one more
// reference and dropping one entirely gives one back.
package ranges

import "sort"

// Segment maps Length bytes of the file at Start to the same number of
// bytes of extent Extent at ExtentOffset.
type Segment struct {
	Start, Length int64
	Extent        string
	ExtentOffset  int64
}

// End is the first file offset after the segment.
func (s Segment) End() int64 { return s.Start + s.Length }

// Edit is what writing or clearing a range changes in the stored map.
type Edit struct {
	// Delete lists the Start of every record to remove. A record that is
	// rewritten in place (Put with the same Start) is not listed.
	Delete []int64
	// Put lists the records to write: trimmed remains of old segments and
	// the new segment, if any.
	Put []Segment
	// Ref lists extents that gain a reference (an old segment split in
	// two, so two records now point into it).
	Ref []string
	// Unref lists extents that lose a reference (an old segment wholly
	// covered by the range).
	Unref []string
}

// Overlay computes the edit that replaces [start, end) of the map with add,
// or with a hole when add is nil (Clear Range, or a truncation when end is
// beyond the file). existing must hold every stored segment that overlaps
// [start, end), in any order; others are ignored. add, when set, must span
// exactly [start, end).
func Overlay(existing []Segment, start, end int64, add *Segment) Edit {
	var e Edit
	rewritten := map[int64]bool{}
	for _, s := range existing {
		if s.End() <= start || s.Start >= end || s.Length <= 0 {
			continue
		}
		left := s.Start < start
		right := s.End() > end
		if left {
			piece := s
			piece.Length = start - s.Start
			e.Put = append(e.Put, piece)
			rewritten[s.Start] = true
		}
		if right {
			cut := end - s.Start
			e.Put = append(e.Put, Segment{Start: end, Length: s.End() - end,
				Extent: s.Extent, ExtentOffset: s.ExtentOffset + cut})
		}
		switch {
		case left && right:
			e.Ref = append(e.Ref, s.Extent)
		case !left && !right:
			e.Unref = append(e.Unref, s.Extent)
		}
		if !left {
			e.Delete = append(e.Delete, s.Start)
		}
	}
	if add != nil && add.Length > 0 {
		e.Put = append(e.Put, *add)
		rewritten[add.Start] = true
	}
	// A record deleted and rewritten at the same offset is just rewritten.
	kept := e.Delete[:0]
	for _, at := range e.Delete {
		if !rewritten[at] {
			kept = append(kept, at)
		}
	}
	e.Delete = kept
	sort.Slice(e.Put, func(i, j int) bool { return e.Put[i].Start < e.Put[j].Start })
	return e
}

// Piece is one part of a read plan: Length bytes at file offset Start come
// from Extent at ExtentOffset, or are zeros when Extent is "".
type Piece struct {
	Start, Length int64
	Extent        string
	ExtentOffset  int64
}

// Plan lists, in order, where the bytes of [start, end) come from. segments
// must be sorted by Start and must not overlap; gaps become zero pieces.
func Plan(segments []Segment, start, end int64) []Piece {
	var out []Piece
	at := start
	for _, s := range segments {
		if s.End() <= at || s.Start >= end {
			continue
		}
		if s.Start > at {
			out = append(out, Piece{Start: at, Length: s.Start - at})
			at = s.Start
		}
		stop := min(s.End(), end)
		out = append(out, Piece{Start: at, Length: stop - at, Extent: s.Extent,
			ExtentOffset: s.ExtentOffset + (at - s.Start)})
		at = stop
	}
	if at < end {
		out = append(out, Piece{Start: at, Length: end - at})
	}
	return out
}

// Range is an inclusive byte range as List Ranges reports it.
type Range struct{ Start, End int64 }

// Written merges the segments that overlap [start, end) into the written
// ranges List Ranges returns, clipped to the window; touching segments
// become one range. segments must be sorted by Start.
func Written(segments []Segment, start, end int64) []Range {
	var out []Range
	for _, s := range segments {
		lo, hi := max(s.Start, start), min(s.End(), end)
		if lo >= hi {
			continue
		}
		if n := len(out); n > 0 && out[n-1].End+1 == lo {
			out[n-1].End = hi - 1
			continue
		}
		out = append(out, Range{Start: lo, End: hi - 1})
	}
	return out
}

// Diff compares the map now with the map of an earlier share snapshot,
// within [start, end). A byte is changed when it is written now and was
// not, or was written from other extent bytes (a snapshot keeps the same
// extent references, so unchanged bytes point at the same place); it is
// cleared when it was written then and is not now. Both inputs must be
// sorted by Start.
func Diff(now, prev []Segment, start, end int64) (changed, cleared []Range) {
	points := boundaries(now, prev, start, end)
	var i, j int
	for k := 0; k+1 < len(points); k++ {
		lo, hi := points[k], points[k+1]
		for i < len(now) && now[i].End() <= lo {
			i++
		}
		for j < len(prev) && prev[j].End() <= lo {
			j++
		}
		cur, had := covering(now, i, lo), covering(prev, j, lo)
		switch {
		case cur != nil && (had == nil || !sameSource(cur, had, lo)):
			changed = appendRange(changed, lo, hi)
		case cur == nil && had != nil:
			cleared = appendRange(cleared, lo, hi)
		}
	}
	return changed, cleared
}

// boundaries are the sorted distinct offsets where either map changes,
// clipped to [start, end).
func boundaries(now, prev []Segment, start, end int64) []int64 {
	set := map[int64]bool{start: true, end: true}
	for _, list := range [][]Segment{now, prev} {
		for _, s := range list {
			for _, p := range []int64{s.Start, s.End()} {
				if p > start && p < end {
					set[p] = true
				}
			}
		}
	}
	points := make([]int64, 0, len(set))
	for p := range set {
		points = append(points, p)
	}
	sort.Slice(points, func(a, b int) bool { return points[a] < points[b] })
	return points
}

// covering returns the segment from list[i:] that contains offset at.
func covering(list []Segment, i int, at int64) *Segment {
	if i < len(list) && list[i].Start <= at && at < list[i].End() {
		return &list[i]
	}
	return nil
}

// sameSource reports whether a and b map offset at to the same extent byte.
func sameSource(a, b *Segment, at int64) bool {
	return a.Extent == b.Extent && a.ExtentOffset+(at-a.Start) == b.ExtentOffset+(at-b.Start)
}

func appendRange(list []Range, lo, hi int64) []Range {
	if n := len(list); n > 0 && list[n-1].End+1 == lo {
		list[n-1].End = hi - 1
		return list
	}
	return append(list, Range{Start: lo, End: hi - 1})
}

// PageSize is the granularity of the ranges a snapshot diff reports.
const PageSize = 512

// DiffPages is Diff as Get Range List answers it against a previous
// snapshot: every 512-byte page (clipped to [start, end)) holding a
// changed or cleared byte is reported whole, as changed when the page
// holds written bytes now and as cleared when it holds none (the recorded
// azure-sdk-for-js "getRangeListDiff": a 5-byte write at 1023 is changed
// 512-1535). now must be sorted by Start.
func DiffPages(now, prev []Segment, start, end int64) (changed, cleared []Range) {
	byteChanged, byteCleared := Diff(now, prev, start, end)
	for _, span := range pageSpans(byteChanged, byteCleared, start, end) {
		at := span.Start
		for _, w := range Written(now[firstEndingAfter(now, span.Start):], span.Start, span.End+1) {
			lo := max(floorPage(w.Start), at)
			hi := min(floorPage(w.End)+PageSize, span.End+1)
			if lo > at {
				cleared = appendRange(cleared, at, lo)
			}
			if hi > lo {
				changed = appendRange(changed, lo, hi)
				at = hi
			}
		}
		if at <= span.End {
			cleared = appendRange(cleared, at, span.End+1)
		}
	}
	return changed, cleared
}

func floorPage(off int64) int64 { return off - off%PageSize }

// pageSpans widens the ranges of a and b to whole pages, clipped to
// [start, end), and merges those that overlap or touch.
func pageSpans(a, b []Range, start, end int64) []Range {
	all := append(append([]Range(nil), a...), b...)
	sort.Slice(all, func(i, j int) bool { return all[i].Start < all[j].Start })
	var out []Range
	for _, r := range all {
		lo, hi := max(floorPage(r.Start), start), min(floorPage(r.End)+PageSize, end)-1
		if n := len(out); n > 0 && lo <= out[n-1].End+1 {
			out[n-1].End = max(out[n-1].End, hi)
			continue
		}
		out = append(out, Range{Start: lo, End: hi})
	}
	return out
}

// firstEndingAfter is the index of the first segment that ends after off.
func firstEndingAfter(segments []Segment, off int64) int {
	return sort.Search(len(segments), func(i int) bool { return segments[i].End() > off })
}
