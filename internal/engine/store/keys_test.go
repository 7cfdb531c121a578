package store

import (
	"bytes"
	"cmp"
	"fmt"
	"math/rand/v2"
	"testing"
)

// pair is the (string, uint, string) tuple the order tests encode.
type pair struct {
	a string
	n uint64
	b string
}

func (p pair) String() string { return fmt.Sprintf("(%q, %d, %q)", p.a, p.n, p.b) }

func (p pair) key() []byte { return NewKey(SpaceBlob).Str(p.a).Uint(p.n).Str(p.b).Bytes() }

func comparePairs(x, y pair) int {
	return cmp.Or(cmp.Compare(x.a, y.a), cmp.Compare(x.n, y.n), cmp.Compare(x.b, y.b))
}

// checkOrderAndRoundTrip fails unless byte order of the encodings equals
// tuple order and both keys decode back to their tuples.
func checkOrderAndRoundTrip(t *testing.T, x, y pair) {
	t.Helper()
	if got, want := bytes.Compare(x.key(), y.key()), comparePairs(x, y); got != want {
		t.Fatalf("%v vs %v: byte order %d, tuple order %d", x, y, got, want)
	}
	for _, p := range []pair{x, y} {
		r := ReadKey(p.key(), SpaceBlob)
		got := pair{a: r.Str(), n: r.Uint(), b: r.Str()}
		if r.Err() != nil || got != p {
			t.Fatalf("%v decodes to %v, %v", p, got, r.Err())
		}
	}
}

// randomString draws from the bytes that matter to the escaping, so short
// strings often share prefixes and contain 0x00 and 0xFF.
func randomString(rng *rand.Rand) string {
	alphabet := []byte{0x00, 0x01, 0xFE, 0xFF, 'a'}
	b := make([]byte, rng.IntN(5))
	for i := range b {
		b[i] = alphabet[rng.IntN(len(alphabet))]
	}
	return string(b)
}

func TestKeyOrderMatchesTupleOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	uints := []uint64{0, 1, 0xFF, 0x100, 1 << 63, 1<<64 - 1}
	draw := func() pair {
		return pair{randomString(rng), uints[rng.IntN(len(uints))], randomString(rng)}
	}
	for range 20000 {
		checkOrderAndRoundTrip(t, draw(), draw())
	}
}

func FuzzKeyOrder(f *testing.F) {
	f.Add("a", uint64(1), "", "a\x00", uint64(0), "b")
	f.Add("", uint64(0), "\x00", "\x00", uint64(0), "")
	f.Add("ab", uint64(1<<63), "\xff", "a", uint64(1<<64-1), "\xff\x00")
	f.Fuzz(func(t *testing.T, a1 string, n1 uint64, b1, a2 string, n2 uint64, b2 string) {
		checkOrderAndRoundTrip(t, pair{a1, n1, b1}, pair{a2, n2, b2})
	})
}

func TestPrefixEnd(t *testing.T) {
	for _, c := range []struct{ prefix, want []byte }{
		{[]byte{0x11}, []byte{0x12}},
		{[]byte{0x11, 'a', 0x00, 0x01}, []byte{0x11, 'a', 0x00, 0x02}},
		{[]byte{0x11, 0xFF}, []byte{0x12}},
		{[]byte{0x11, 0xFE, 0xFF, 0xFF}, []byte{0x11, 0xFF}},
		{[]byte{0xFF, 0xFF}, nil},
		{nil, nil},
	} {
		if got := PrefixEnd(c.prefix); !bytes.Equal(got, c.want) || (got == nil) != (c.want == nil) {
			t.Errorf("PrefixEnd(%x) = %x, want %x", c.prefix, got, c.want)
		}
	}
	// PrefixEnd must not modify its argument.
	p := []byte{0x11, 0x05}
	PrefixEnd(p)
	if !bytes.Equal(p, []byte{0x11, 0x05}) {
		t.Errorf("PrefixEnd modified its argument: %x", p)
	}
}

func TestReadKeyRejectsMalformed(t *testing.T) {
	for _, key := range [][]byte{
		nil,
		{byte(SpaceQueue), 'a', 0x00, 0x01}, // wrong space
		{byte(SpaceBlob), 'a'},              // unterminated string
		{byte(SpaceBlob), 'a', 0x00, 0x07},  // bad escape
		{byte(SpaceBlob), 0x00, 0x01, 1, 2}, // short integer after the string
	} {
		r := ReadKey(key, SpaceBlob)
		r.Str()
		r.Uint()
		if r.Err() == nil {
			t.Errorf("ReadKey(%x) decoded without error", key)
		}
	}
}
