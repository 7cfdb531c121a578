package storetest

import (
	"bytes"
	"cmp"
	"fmt"
	"slices"
	"testing"

	"github.com/lazuli-storage/lazuli/internal/engine/store"
)

// Strings chosen to be hard on the tuple encoding: empty, NUL bytes, 0xFF
// bytes, and strings that are prefixes of one another.
var scanStrings = []string{
	"", "\x00", "\x00\x00", "\x00\x01", "\x01", "a", "a\x00", "a\x00\x00", "a\x00b",
	"a\x01", "a\xff", "ab", "abc", "b", "\xff", "\xff\x00", "\xff\xff",
}

var scanUints = []uint64{0, 1, 255, 256, 1 << 32, 1<<63 - 1, 1 << 63, 1<<64 - 1}

// tuple is a (string, uint) pair in SpaceBlob, or a (string, string) pair in
// SpaceBlobIndex or SpaceEntity, the three spaces the scan test fills. An
// index space between two record spaces checks engines that keep index
// spaces apart (sqlite) return one key order across them.
type tuple struct {
	space store.Space
	s     string
	u     uint64
	s2    string
}

func (tp tuple) key() []byte {
	k := store.NewKey(tp.space).Str(tp.s)
	if tp.space == store.SpaceBlob {
		return k.Uint(tp.u)
	}
	return k.Str(tp.s2)
}

// compareTuples is the order the encoding must give: element by element,
// with Go's own string and integer comparison.
func compareTuples(a, b tuple) int {
	return cmp.Or(cmp.Compare(a.space, b.space), cmp.Compare(a.s, b.s), cmp.Compare(a.u, b.u), cmp.Compare(a.s2, b.s2))
}

// scanFixture is a store loaded with one record per tuple, and the records in
// the order the store must return them.
type scanFixture struct {
	s      store.Store
	sorted []record
}

func newScanFixture(t *testing.T, e Engine) scanFixture {
	var tuples []tuple
	for _, s := range scanStrings {
		for _, u := range scanUints {
			tuples = append(tuples, tuple{space: store.SpaceBlob, s: s, u: u})
		}
		for _, s2 := range scanStrings[:6] {
			tuples = append(tuples, tuple{space: store.SpaceEntity, s: s, s2: s2})
		}
		for _, s2 := range scanStrings[:2] {
			tuples = append(tuples, tuple{space: store.SpaceBlobIndex, s: s, s2: s2})
		}
	}
	slices.SortFunc(tuples, compareTuples)
	f := scanFixture{s: openFresh(t, e)}
	kv := map[string]string{}
	for i, tp := range tuples {
		r := record{string(tp.key()), fmt.Sprintf("v%03d", i)}
		f.sorted = append(f.sorted, r)
		kv[r.key] = r.value
	}
	putAll(t, f.s, kv)
	return f
}

func runScan(t *testing.T, e Engine) {
	f := newScanFixture(t, e)
	t.Run("TupleOrder", f.testTupleOrder)
	t.Run("Bounds", f.testBounds)
	t.Run("OpenBounds", f.testOpenBounds)
	t.Run("Limit", f.testLimit)
	t.Run("StopEarly", f.testStopEarly)
	t.Run("Prefix", f.testPrefix)
	t.Run("EmptyRanges", f.testEmptyRanges)
}

// scan collects a Scan in a View, failing the test on error.
func (f scanFixture) scan(t *testing.T, start, end []byte, opts store.ScanOptions) []record {
	t.Helper()
	var got []record
	view(t, f.s, func(tx store.Tx) error {
		var err error
		got, err = collect(tx, start, end, opts)
		return err
	})
	return got
}

// expectScan checks one range in both directions against want, which is in
// ascending order.
func (f scanFixture) expectScan(t *testing.T, start, end []byte, want []record) {
	t.Helper()
	if got := f.scan(t, start, end, store.ScanOptions{}); !slices.Equal(got, want) {
		t.Errorf("scan [%x, %x): %d records %s, want %d %s", start, end, len(got), keysOf(got), len(want), keysOf(want))
	}
	reversed := slices.Clone(want)
	slices.Reverse(reversed)
	if got := f.scan(t, start, end, store.ScanOptions{Reverse: true}); !slices.Equal(got, reversed) {
		t.Errorf("reverse scan [%x, %x): %d records %s, want %d %s", start, end, len(got), keysOf(got), len(reversed), keysOf(reversed))
	}
}

func keysOf(rs []record) string {
	var b bytes.Buffer
	for _, r := range rs {
		fmt.Fprintf(&b, "%x ", r.key)
	}
	return b.String()
}

func (f scanFixture) testTupleOrder(t *testing.T) {
	for i := 1; i < len(f.sorted); i++ {
		if f.sorted[i-1].key >= f.sorted[i].key {
			t.Fatalf("tuple order and byte order disagree: %x is not below %x", f.sorted[i-1].key, f.sorted[i].key)
		}
	}
	first := []byte(f.sorted[0].key)
	f.expectScan(t, first, nil, f.sorted)
}

func (f scanFixture) testBounds(t *testing.T) {
	n := len(f.sorted)
	for _, r := range [][2]int{{0, 1}, {0, n - 1}, {3, 4}, {5, 40}, {17, 18}, {n / 2, n - 1}, {n - 2, n - 1}} {
		i, j := r[0], r[1]
		start, end := []byte(f.sorted[i].key), []byte(f.sorted[j].key)
		// start inclusive, end exclusive.
		f.expectScan(t, start, end, f.sorted[i:j])
		// A start between two keys begins at the next key; an end between two
		// keys stops after the previous one.
		f.expectScan(t, append(bytes.Clone(start), 0x00), end, f.sorted[i+1:j])
		f.expectScan(t, start, append(bytes.Clone(end), 0x00), f.sorted[i:j+1])
	}
}

// testOpenBounds scans with a nil end and with a nil start. Engines may keep
// their own records in SpaceMeta, below the spaces this test fills, so a scan
// from nil is checked only from the first key the fixture wrote.
func (f scanFixture) testOpenBounds(t *testing.T) {
	for _, i := range []int{0, 7, len(f.sorted) - 1} {
		f.expectScan(t, []byte(f.sorted[i].key), nil, f.sorted[i:])
	}
	lowest := f.sorted[0].key
	for _, j := range []int{0, 9, len(f.sorted) - 1} {
		end := []byte(f.sorted[j].key)
		for _, reverse := range []bool{false, true} {
			got := f.scan(t, nil, end, store.ScanOptions{Reverse: reverse})
			got = slices.DeleteFunc(got, func(r record) bool { return r.key < lowest })
			want := slices.Clone(f.sorted[:j])
			if reverse {
				slices.Reverse(want)
			}
			if !slices.Equal(got, want) {
				t.Errorf("scan [nil, %x) reverse=%v: %s, want %s", end, reverse, keysOf(got), keysOf(want))
			}
		}
	}
}

func (f scanFixture) testLimit(t *testing.T) {
	start, end := []byte(f.sorted[10].key), []byte(f.sorted[30].key)
	for _, limit := range []int{1, 3, 19, 20, 21, 1000} {
		want := f.sorted[10:min(10+limit, 30)]
		if got := f.scan(t, start, end, store.ScanOptions{Limit: limit}); !slices.Equal(got, want) {
			t.Errorf("limit %d: %s, want %s", limit, keysOf(got), keysOf(want))
		}
		wantDown := slices.Clone(f.sorted[max(30-limit, 10):30])
		slices.Reverse(wantDown)
		if got := f.scan(t, start, end, store.ScanOptions{Limit: limit, Reverse: true}); !slices.Equal(got, wantDown) {
			t.Errorf("reverse limit %d: %s, want %s", limit, keysOf(got), keysOf(wantDown))
		}
	}
}

func (f scanFixture) testStopEarly(t *testing.T) {
	for _, reverse := range []bool{false, true} {
		for _, stopAt := range []int{1, 2, 25} {
			calls := 0
			view(t, f.s, func(tx store.Tx) error {
				return tx.Scan([]byte(f.sorted[0].key), nil, store.ScanOptions{Reverse: reverse}, func(k, v []byte) bool {
					calls++
					return calls < stopAt
				})
			})
			if calls != stopAt {
				t.Errorf("reverse=%v: callback returned false at call %d but was called %d times", reverse, stopAt, calls)
			}
		}
	}
}

// testPrefix lists every record whose first element is exactly a given
// string, with PrefixEnd as the bound: "a" must not bring in "a\x00b" or "ab".
func (f scanFixture) testPrefix(t *testing.T) {
	for _, space := range []store.Space{store.SpaceBlob, store.SpaceBlobIndex, store.SpaceEntity} {
		for _, s := range scanStrings {
			prefix := store.NewKey(space).Str(s).Bytes()
			var want []record
			for _, r := range f.sorted {
				if first := store.ReadKey([]byte(r.key), space); first.Str() == s && first.Err() == nil {
					want = append(want, r)
				}
			}
			if len(want) == 0 {
				t.Fatalf("fixture has no record with first element %q in space %#x", s, space)
			}
			f.expectScan(t, prefix, store.PrefixEnd(prefix), want)
		}
		whole := store.NewKey(space).Bytes()
		var want []record
		for _, r := range f.sorted {
			if r.key[0] == byte(space) {
				want = append(want, r)
			}
		}
		f.expectScan(t, whole, store.PrefixEnd(whole), want)
	}
}

func (f scanFixture) testEmptyRanges(t *testing.T) {
	k := []byte(f.sorted[5].key)
	f.expectScan(t, k, k, nil)
	f.expectScan(t, []byte(f.sorted[9].key), []byte(f.sorted[4].key), nil)
	beyond := []byte{0xFF, 0xFF, 0xFF}
	f.expectScan(t, beyond, nil, nil)
}
