package blobdata

import (
	"bytes"
	"math/rand"
	"reflect"
	"testing"
)

// pageModel is a byte-level reference for the page map: each byte is the
// id of the write that stored it (0 = never written or cleared).
type pageModel []byte

// render expands a segment list into the model's form: data segments of
// extent "eN" fill their bytes with N, holes with 0.
func render(t *testing.T, segs []Segment) pageModel {
	t.Helper()
	var out pageModel
	for _, s := range segs {
		if s.Length <= 0 {
			t.Fatalf("empty or negative segment %+v", s)
		}
		var b byte
		if !isHole(s) {
			b = s.Extent[1] - '0'
		}
		out = append(out, bytes.Repeat([]byte{b}, int(s.Length))...)
	}
	return out
}

func TestReplacePagesMatchesModel(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	const size = 16 * PageSize
	segs := []Segment{Hole(size)}
	model := make(pageModel, size)
	refs := map[string]int{}
	for step := 0; step < 500; step++ {
		off := int64(rng.Intn(16)) * PageSize
		n := int64(1+rng.Intn(16-int(off/PageSize))) * PageSize
		with := Hole(0)
		fill := byte(0)
		if rng.Intn(3) > 0 {
			fill = byte(1 + step%9)
			with = Segment{Extent: "e" + string(rune('0'+fill))}
		}
		var removed, added []Segment
		segs, removed, added = ReplacePages(segs, off, n, with)
		for i := off; i < off+n; i++ {
			model[i] = fill
		}
		if got := render(t, segs); !bytes.Equal(got, model) {
			t.Fatalf("step %d: map disagrees with model", step)
		}
		for i := 1; i < len(segs); i++ {
			if isHole(segs[i]) && isHole(segs[i-1]) {
				t.Fatalf("step %d: adjacent holes not merged: %+v", step, segs)
			}
		}
		d := RefDelta{}
		DataRefs(d, removed, added)
		for id, k := range d {
			refs[id] += k
		}
		want := map[string]int{}
		for _, s := range segs {
			if !isHole(s) {
				want[s.Extent]++
			}
		}
		for id := range refs {
			if refs[id] == 0 {
				delete(refs, id)
			}
		}
		if !reflect.DeepEqual(refs, want) {
			t.Fatalf("step %d: references %v, segments hold %v", step, refs, want)
		}
	}
}

func TestReplacePagesSplitsOffsets(t *testing.T) {
	segs := []Segment{{Extent: "x", Offset: 100, Length: 4 * PageSize}}
	out, removed, added := ReplacePages(segs, PageSize, PageSize, Hole(0))
	want := []Segment{
		{Extent: "x", Offset: 100, Length: PageSize},
		{Length: PageSize},
		{Extent: "x", Offset: 100 + 2*PageSize, Length: 2 * PageSize},
	}
	if !reflect.DeepEqual(out, want) {
		t.Fatalf("got %+v, want %+v", out, want)
	}
	if len(removed) != 1 || len(added) != 3 {
		t.Fatalf("removed %d added %d", len(removed), len(added))
	}
}

func TestResizePages(t *testing.T) {
	segs := []Segment{{Extent: "a", Length: 1024}, Hole(512), {Extent: "b", Offset: 7, Length: 1024}}
	cases := []struct {
		size    int64
		want    []Segment
		removed int
	}{
		{4096, []Segment{{Extent: "a", Length: 1024}, Hole(512), {Extent: "b", Offset: 7, Length: 1024}, Hole(1536)}, 0},
		{2560, segs, 0},
		{2048, []Segment{{Extent: "a", Length: 1024}, Hole(512), {Extent: "b", Offset: 7, Length: 512}}, 1},
		{512, []Segment{{Extent: "a", Length: 512}}, 3},
		{0, nil, 3},
	}
	for _, c := range cases {
		out, removed, _ := ResizePages(segs, c.size)
		if !reflect.DeepEqual(out, c.want) || len(removed) != c.removed {
			t.Errorf("size %d: got %+v (removed %d), want %+v (removed %d)", c.size, out, len(removed), c.want, c.removed)
		}
	}
	// Growing a blob that ends in a hole extends the hole.
	out, _, _ := ResizePages([]Segment{Hole(512)}, 2048)
	if !reflect.DeepEqual(out, []Segment{Hole(2048)}) {
		t.Fatalf("got %+v", out)
	}
}

func TestWrittenRanges(t *testing.T) {
	segs := []Segment{Hole(512), {Extent: "a", Length: 512}, {Extent: "b", Length: 1024}, Hole(1024), {Extent: "c", Length: 512}}
	cases := []struct {
		from, to int64
		want     []PageRange
	}{
		{0, 3583, []PageRange{{512, 2047}, {3072, 3583}}},
		{1024, 3071, []PageRange{{1024, 2047}}},
		{1024, 1535, []PageRange{{1024, 1535}}},
		{2048, 3071, nil},
		{0, 511, nil},
	}
	for _, c := range cases {
		if got := WrittenRanges(segs, c.from, c.to); !reflect.DeepEqual(got, c.want) {
			t.Errorf("[%d,%d]: got %v, want %v", c.from, c.to, got, c.want)
		}
	}
}

func TestPageDiff(t *testing.T) {
	prev := []Segment{{Extent: "a", Length: 2048}, Hole(1024), {Extent: "b", Length: 1024}}
	// Since the snapshot: page 1 rewritten, page 4 written, the last page of
	// "b" cleared, and the blob grown by a written page.
	cur, _, _ := ReplacePages(prev, 512, 512, Segment{Extent: "c"})
	cur, _, _ = ReplacePages(cur, 2048, 512, Segment{Extent: "d"})
	cur, _, _ = ReplacePages(cur, 3584, 512, Hole(0))
	cur, _, _ = ResizePages(cur, 4608)
	cur, _, _ = ReplacePages(cur, 4096, 512, Segment{Extent: "e"})
	changed, cleared := PageDiff(prev, cur, 0, 1<<40)
	wantChanged := []PageRange{{512, 1023}, {2048, 2559}, {4096, 4607}}
	wantCleared := []PageRange{{3584, 4095}}
	if !reflect.DeepEqual(changed, wantChanged) || !reflect.DeepEqual(cleared, wantCleared) {
		t.Fatalf("changed %v cleared %v, want %v and %v", changed, cleared, wantChanged, wantCleared)
	}
	// Against itself nothing changed; against nothing every write is new.
	if c, k := PageDiff(cur, cur, 0, 1<<40); c != nil || k != nil {
		t.Fatalf("self diff: %v %v", c, k)
	}
	if c, k := PageDiff(nil, cur, 0, 1<<40); !reflect.DeepEqual(c, WrittenRanges(cur, 0, 1<<40)) || k != nil {
		t.Fatalf("diff from nothing: %v %v", c, k)
	}
	// A range limits both lists.
	changed, cleared = PageDiff(prev, cur, 1024, 3583)
	if !reflect.DeepEqual(changed, []PageRange{{2048, 2559}}) || cleared != nil {
		t.Fatalf("ranged: %v %v", changed, cleared)
	}
}
