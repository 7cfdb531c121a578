package ranges

import (
	"fmt"
	"reflect"
	"sort"
	"testing"
)

func seg(start, length int64, ext string, off int64) Segment {
	return Segment{Start: start, Length: length, Extent: ext, ExtentOffset: off}
}

func TestOverlay(t *testing.T) {
	cases := []struct {
		name       string
		existing   []Segment
		start, end int64
		add        *Segment
		want       Edit
	}{
		{
			name:  "write into empty map",
			start: 0, end: 10,
			add:  &Segment{Start: 0, Length: 10, Extent: "n"},
			want: Edit{Put: []Segment{seg(0, 10, "n", 0)}},
		},
		{
			name:     "exact overwrite rewrites in place and frees the old extent",
			existing: []Segment{seg(0, 10, "a", 0)},
			start:    0, end: 10,
			add:  &Segment{Start: 0, Length: 10, Extent: "n"},
			want: Edit{Put: []Segment{seg(0, 10, "n", 0)}, Unref: []string{"a"}},
		},
		{
			name:     "write in the middle splits the old segment",
			existing: []Segment{seg(0, 10, "a", 100)},
			start:    4, end: 6,
			add: &Segment{Start: 4, Length: 2, Extent: "n"},
			want: Edit{
				Put: []Segment{seg(0, 4, "a", 100), seg(4, 2, "n", 0), seg(6, 4, "a", 106)},
				Ref: []string{"a"},
			},
		},
		{
			name:     "clear the tail of one segment and the head of the next",
			existing: []Segment{seg(0, 10, "a", 0), seg(10, 10, "b", 0)},
			start:    5, end: 15,
			want: Edit{
				Delete: []int64{10},
				Put:    []Segment{seg(0, 5, "a", 0), seg(15, 5, "b", 5)},
			},
		},
		{
			name:     "clear covering several segments",
			existing: []Segment{seg(0, 4, "a", 0), seg(4, 4, "b", 0), seg(8, 4, "c", 0)},
			start:    0, end: 12,
			want: Edit{Delete: []int64{0, 4, 8}, Unref: []string{"a", "b", "c"}},
		},
		{
			name:     "segments outside the window are ignored",
			existing: []Segment{seg(0, 4, "a", 0), seg(20, 4, "b", 0)},
			start:    4, end: 20,
			add:  &Segment{Start: 4, Length: 16, Extent: "n"},
			want: Edit{Put: []Segment{seg(4, 16, "n", 0)}},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := Overlay(c.existing, c.start, c.end, c.add)
			normalize(&got)
			normalize(&c.want)
			if !reflect.DeepEqual(got, c.want) {
				t.Fatalf("Overlay:\n got %+v\nwant %+v", got, c.want)
			}
		})
	}
}

func normalize(e *Edit) {
	if len(e.Delete) == 0 {
		e.Delete = nil
	}
	for _, l := range []*[]string{&e.Ref, &e.Unref} {
		if len(*l) == 0 {
			*l = nil
		}
		sort.Strings(*l)
	}
	if len(e.Put) == 0 {
		e.Put = nil
	}
	sort.Slice(e.Delete, func(i, j int) bool { return e.Delete[i] < e.Delete[j] })
}

func TestPlan(t *testing.T) {
	segs := []Segment{seg(10, 10, "a", 5), seg(30, 5, "b", 0)}
	got := Plan(segs, 0, 40)
	want := []Piece{
		{Start: 0, Length: 10},
		{Start: 10, Length: 10, Extent: "a", ExtentOffset: 5},
		{Start: 20, Length: 10},
		{Start: 30, Length: 5, Extent: "b"},
		{Start: 35, Length: 5},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Plan = %+v, want %+v", got, want)
	}
	got = Plan(segs, 15, 32)
	want = []Piece{
		{Start: 15, Length: 5, Extent: "a", ExtentOffset: 10},
		{Start: 20, Length: 10},
		{Start: 30, Length: 2, Extent: "b"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Plan window = %+v, want %+v", got, want)
	}
	if got := Plan(nil, 0, 7); !reflect.DeepEqual(got, []Piece{{Start: 0, Length: 7}}) {
		t.Fatalf("Plan of a hole = %+v", got)
	}
}

func TestWritten(t *testing.T) {
	segs := []Segment{seg(0, 512, "a", 0), seg(512, 512, "b", 0), seg(2048, 10, "c", 0)}
	want := []Range{{0, 1023}, {2048, 2057}}
	if got := Written(segs, 0, 1<<20); !reflect.DeepEqual(got, want) {
		t.Fatalf("Written = %v, want %v", got, want)
	}
	want = []Range{{100, 1023}, {2048, 2049}}
	if got := Written(segs, 100, 2050); !reflect.DeepEqual(got, want) {
		t.Fatalf("Written window = %v, want %v", got, want)
	}
}

func TestDiff(t *testing.T) {
	prev := []Segment{seg(0, 100, "a", 0), seg(200, 100, "b", 0)}
	now := []Segment{
		seg(0, 50, "a", 0),    // unchanged head of a
		seg(50, 10, "n", 0),   // rewritten
		seg(60, 40, "a", 60),  // unchanged tail of a
		seg(400, 10, "m", 0),  // new
		seg(250, 50, "b", 50), // b's head cleared
	}
	sort.Slice(now, func(i, j int) bool { return now[i].Start < now[j].Start })
	changed, cleared := Diff(now, prev, 0, 1000)
	if want := []Range{{50, 59}, {400, 409}}; !reflect.DeepEqual(changed, want) {
		t.Fatalf("changed = %v, want %v", changed, want)
	}
	if want := []Range{{200, 249}}; !reflect.DeepEqual(cleared, want) {
		t.Fatalf("cleared = %v, want %v", cleared, want)
	}
}

// TestDiffPages: changes widen to whole pages, clipped to the window; a
// page is changed while it holds written bytes and cleared once it holds
// none, whatever the bytes of its neighbours.
func TestDiffPages(t *testing.T) {
	prev := []Segment{seg(0, 5, "a", 0), seg(1600, 100, "b", 0)}
	now := []Segment{seg(1023, 5, "n", 0), seg(1600, 40, "b", 0), seg(2100, 3, "m", 0)}
	changed, cleared := DiffPages(now, prev, 0, 2101)
	if want := []Range{{512, 2100}}; !reflect.DeepEqual(changed, want) {
		t.Fatalf("changed = %v, want %v", changed, want)
	}
	if want := []Range{{0, 511}}; !reflect.DeepEqual(cleared, want) {
		t.Fatalf("cleared = %v, want %v", cleared, want)
	}
	// 1640-1699 was cleared but its page still holds 1600-1639: changed.
	changed, cleared = DiffPages(now, prev, 1536, 2048)
	if want := []Range{{1536, 2047}}; !reflect.DeepEqual(changed, want) || cleared != nil {
		t.Fatalf("window: changed %v cleared %v", changed, cleared)
	}
}

// model is a byte-per-offset reference implementation: each byte records
// which extent byte it came from, or "" for a hole.
type model []string

func (m model) apply(start, end int64, ext string) {
	for i := start; i < end; i++ {
		if ext == "" {
			m[i] = ""
		} else {
			m[i] = fmt.Sprintf("%s@%d", ext, i-start)
		}
	}
}

// mapState is a segment map with extent reference counts.
type mapState struct {
	segs map[int64]Segment
	refs map[string]int
}

func (s *mapState) sorted() []Segment {
	out := make([]Segment, 0, len(s.segs))
	for _, v := range s.segs {
		out = append(out, v)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Start < out[j].Start })
	return out
}

func (s *mapState) apply(t *testing.T, start, end int64, ext string) {
	var add *Segment
	if ext != "" {
		add = &Segment{Start: start, Length: end - start, Extent: ext}
		s.refs[ext]++
	}
	e := Overlay(s.sorted(), start, end, add)
	for _, at := range e.Delete {
		if _, ok := s.segs[at]; !ok {
			t.Fatalf("delete of missing record %d", at)
		}
		delete(s.segs, at)
	}
	for _, p := range e.Put {
		s.segs[p.Start] = p
	}
	for _, id := range e.Ref {
		s.refs[id]++
	}
	for _, id := range e.Unref {
		s.refs[id]--
	}
}

func (s *mapState) check(t *testing.T, m model) {
	counts := map[string]int{}
	last := int64(-1)
	for _, sg := range s.sorted() {
		if sg.Start < last || sg.Length <= 0 {
			t.Fatalf("overlapping or empty segment %+v", sg)
		}
		last = sg.End()
		counts[sg.Extent]++
	}
	for id, n := range s.refs {
		if counts[id] != n {
			t.Fatalf("extent %s: %d references recorded, %d segments point at it", id, n, counts[id])
		}
	}
	for _, p := range Plan(s.sorted(), 0, int64(len(m))) {
		for i := p.Start; i < p.Start+p.Length; i++ {
			want := ""
			if p.Extent != "" {
				want = fmt.Sprintf("%s@%d", p.Extent, p.ExtentOffset+(i-p.Start))
			}
			if m[i] != want {
				t.Fatalf("byte %d reads %q, model says %q", i, want, m[i])
			}
		}
	}
}

// FuzzOverlay applies writes and clears to both the segment map and a
// byte-level model and checks that reads, written ranges and reference
// counts agree after every step.
func FuzzOverlay(f *testing.F) {
	f.Add([]byte{0, 10, 1, 5, 3, 0, 2, 8, 1})
	f.Add([]byte{5, 20, 1, 0, 30, 0, 10, 2, 1, 12, 1, 0})
	f.Add([]byte{0, 63, 1, 1, 1, 0, 62, 1, 1})
	f.Fuzz(func(t *testing.T, ops []byte) {
		const size = 64
		m := make(model, size)
		s := &mapState{segs: map[int64]Segment{}, refs: map[string]int{}}
		for i := 0; i+2 < len(ops); i += 3 {
			a, b := int64(ops[i]%size), int64(ops[i+1]%size)
			if a > b {
				a, b = b, a
			}
			b++
			ext := ""
			if ops[i+2]%2 == 1 {
				ext = fmt.Sprintf("e%d", i)
			}
			m.apply(a, b, ext)
			s.apply(t, a, b, ext)
			s.check(t, m)
		}
		var want []Range
		for i := int64(0); i < size; i++ {
			if m[i] != "" {
				want = appendRange(want, i, i+1)
			}
		}
		if got := Written(s.sorted(), 0, size); !reflect.DeepEqual(got, want) {
			t.Fatalf("Written = %v, model %v", got, want)
		}
	})
}
