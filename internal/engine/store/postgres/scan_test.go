package postgres

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/lazuli-storage/lazuli/internal/engine/store"
)

// fill stores n records key(i) -> "v<i>" in one Update.
func fill(t *testing.T, s *Store, n int) {
	t.Helper()
	err := s.Update(context.Background(), func(tx store.Tx) error {
		for i := range n {
			if err := tx.Put(key(i), fmt.Appendf(nil, "v%d", i)); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func key(i int) []byte { return store.NewKey(store.SpaceBlob).Str("c").Uint(uint64(i)) }

// scanIdx runs a Scan in a View and returns the indexes of the keys seen.
func scanIdx(t *testing.T, s *Store, start, end []byte, opts store.ScanOptions, stopAfter int) []int {
	t.Helper()
	var got []int
	err := s.View(context.Background(), func(tx store.Tx) error {
		return tx.Scan(start, end, opts, func(k, v []byte) bool {
			r := store.ReadKey(k, store.SpaceBlob)
			r.Str()
			i := int(r.Uint())
			if r.Err() != nil || string(v) != fmt.Sprintf("v%d", i) {
				t.Errorf("bad record %x = %q", k, v)
			}
			got = append(got, i)
			return stopAfter == 0 || len(got) < stopAfter
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	return got
}

func seq(from, to int) []int {
	var out []int
	for i := from; i < to; i++ {
		out = append(out, i)
	}
	return out
}

func reversed(s []int) []int { s = slices.Clone(s); slices.Reverse(s); return s }

// 3000 records span several pages (64, then 1024 each), so paging resumes
// correctly in both directions and with limits that end mid-page.
func TestScanRangesAndPaging(t *testing.T) {
	s, _ := openTest(t)
	const n = 3000
	fill(t, s, n)
	prefix := store.NewKey(store.SpaceBlob).Str("c")
	all := seq(0, n)
	cases := []struct {
		name       string
		start, end []byte
		opts       store.ScanOptions
		stop       int
		want       []int
	}{
		{"all", nil, nil, store.ScanOptions{}, 0, all},
		{"prefix", prefix, store.PrefixEnd(prefix), store.ScanOptions{}, 0, all},
		{"reverse", nil, nil, store.ScanOptions{Reverse: true}, 0, reversed(all)},
		{"range", key(100), key(2500), store.ScanOptions{}, 0, seq(100, 2500)},
		{"range reverse", key(100), key(2500), store.ScanOptions{Reverse: true}, 0, reversed(seq(100, 2500))},
		{"limit", key(10), nil, store.ScanOptions{Limit: 1500}, 0, seq(10, 1510)},
		{"limit reverse", nil, key(2000), store.ScanOptions{Limit: 1100, Reverse: true}, 0, reversed(seq(900, 2000))},
		{"limit beyond range", key(2990), nil, store.ScanOptions{Limit: 50}, 0, seq(2990, 3000)},
		{"stop early", nil, nil, store.ScanOptions{}, 70, seq(0, 70)},
		{"empty range", key(5), key(5), store.ScanOptions{}, 0, nil},
		{"inverted range", key(6), key(5), store.ScanOptions{}, 0, nil},
		{"other space", store.NewKey(store.SpaceQueue), store.PrefixEnd(store.NewKey(store.SpaceQueue)), store.ScanOptions{}, 0, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := scanIdx(t, s, c.start, c.end, c.opts, c.stop)
			if !slices.Equal(got, c.want) {
				t.Fatalf("got %d records %v..., want %d", len(got), head(got), len(c.want))
			}
		})
	}
}

func head(s []int) []int { return s[:min(len(s), 5)] }

// Keys compare bytewise, including bytes >= 0x80 and a key that prefixes
// another, as the tuple encoding requires.
func TestScanByteOrder(t *testing.T) {
	s, _ := openTest(t)
	keys := [][]byte{{0x00}, {0x01}, {0x01, 0x00}, {0x7f}, {0x80}, {0xff}, {0xff, 0xff}}
	err := s.Update(context.Background(), func(tx store.Tx) error {
		for _, i := range []int{4, 1, 6, 0, 3, 5, 2} {
			if err := tx.Put(keys[i], nil); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var got [][]byte
	err = s.View(context.Background(), func(tx store.Tx) error {
		return tx.Scan(nil, nil, store.ScanOptions{}, func(k, _ []byte) bool {
			got = append(got, bytes.Clone(k))
			return true
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.EqualFunc(got, keys, bytes.Equal) {
		t.Fatalf("order %x, want %x", got, keys)
	}
}

// A Scan callback may read other records through the same Tx.
func TestGetInsideScan(t *testing.T) {
	s, _ := openTest(t)
	fill(t, s, 100)
	err := s.View(context.Background(), func(tx store.Tx) error {
		var inner error
		err := tx.Scan(nil, nil, store.ScanOptions{}, func(k, v []byte) bool {
			got, err := tx.Get(k)
			if err != nil || !bytes.Equal(got, v) {
				inner = fmt.Errorf("Get(%x) inside Scan = %q, %v; want %q", k, got, err, v)
				return false
			}
			return true
		})
		if inner != nil {
			return inner
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}
