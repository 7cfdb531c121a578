package blobdata

import (
	"bytes"
	"encoding/hex"
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

// TestPageDiffReportsClearedHoles: pages written and cleared since a
// snapshot that held nothing there are cleared in the diff (the service's
// recorded answer, see ClearedHole); a clear the snapshot already had is
// no change; pages never written are neither.
func TestPageDiffReportsClearedHoles(t *testing.T) {
	prev := []Segment{Hole(2048)}
	cur, _, _ := ReplacePages(prev, 0, 1536, Segment{Extent: "a"})
	cur, _, _ = ReplacePages(cur, 512, 512, ClearedHole(0, 7))
	changed, cleared := PageDiff(prev, cur, 0, 1<<40)
	if !reflect.DeepEqual(changed, []PageRange{{0, 511}, {1024, 1535}}) || !reflect.DeepEqual(cleared, []PageRange{{512, 1023}}) {
		t.Fatalf("since the empty blob: changed %v cleared %v", changed, cleared)
	}
	if c, k := PageDiff(cur, cur, 0, 1<<40); c != nil || k != nil {
		t.Fatalf("since a state with the same clear: %v %v", c, k)
	}
	// A second clear over part of the first is a change since the first.
	again, _, _ := ReplacePages(cur, 512, 512, ClearedHole(0, 8))
	if c, k := PageDiff(cur, again, 0, 1<<40); c != nil || !reflect.DeepEqual(k, []PageRange{{512, 1023}}) {
		t.Fatalf("since the first clear: %v %v", c, k)
	}
	// A clear past the end of a shorter earlier state is cleared too.
	grown, _, _ := ResizePages(cur, 2560)
	grown, _, _ = ReplacePages(grown, 2048, 512, ClearedHole(0, 9))
	if _, k := PageDiff(cur, grown, 0, 1<<40); !reflect.DeepEqual(k, []PageRange{{2048, 2559}}) {
		t.Fatalf("since the shorter state: %v", k)
	}
}

// TestClearedHolesKeepTheirMarks: holes merge only with holes of the same
// mark, and a split keeps the mark on both pieces.
func TestClearedHolesKeepTheirMarks(t *testing.T) {
	segs, _, _ := ReplacePages([]Segment{Hole(2048)}, 512, 1024, ClearedHole(0, 5))
	if want := []Segment{Hole(512), ClearedHole(1024, 5), Hole(512)}; !reflect.DeepEqual(segs, want) {
		t.Fatalf("clear in a hole: %v, want %v", segs, want)
	}
	segs, _, _ = ReplacePages(segs, 1024, 512, ClearedHole(0, 5))
	if want := []Segment{Hole(512), ClearedHole(1024, 5), Hole(512)}; !reflect.DeepEqual(segs, want) {
		t.Fatalf("the same mark again: %v, want %v", segs, want)
	}
	segs, _, _ = ReplacePages(segs, 768, 256, Segment{Extent: "d"})
	want := []Segment{Hole(512), ClearedHole(256, 5), {Extent: "d", Length: 256}, ClearedHole(512, 5), Hole(512)}
	if !reflect.DeepEqual(segs, want) {
		t.Fatalf("a write splits the clear: %v, want %v", segs, want)
	}
}

// TestClearedHoleEncoding pins how a segment list with a cleared hole is
// stored: the mark is the hole's Offset, a field every segment has always
// carried, so the encoding is unchanged and a list stored before marks
// existed (every hole's Offset 0) reads as never-cleared holes.
func TestClearedHoleEncoding(t *testing.T) {
	b := &Blob{}
	b.SetSegments([]Segment{{Extent: "e1", Length: 512}, ClearedHole(512, 0x8DC6DA5F0F1E2A3), Hole(1024)})
	const golden = "030265310080040000a3c5c787dfb49bee088004000000800800"
	if got := hex.EncodeToString(b.segments); got != golden {
		t.Fatalf("encoded %s, want %s", got, golden)
	}
	old, err := hex.DecodeString("0302653100800400" + "0000800400" + "0000800800")
	if err != nil {
		t.Fatal(err)
	}
	b.segments = old
	segs, err := b.Segments()
	if err != nil || len(segs) != 3 || clearMark(segs[1]) != 0 || !isHole(segs[1]) {
		t.Fatalf("stored before marks: %v %v", segs, err)
	}
}
