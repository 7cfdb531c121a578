package crc64

import (
	stdcrc64 "hash/crc64"
	"math/rand/v2"
	"testing"
)

var referenceTable = stdcrc64.MakeTable(Poly)

func TestCRC64MatchesHashCRC64(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{0, 1, 7, 8, 9, 63, 64, 2047, 2048, 4099, 1 << 20} {
		p := make([]byte, n)
		for i := range p {
			p[i] = byte(rng.Uint32())
		}
		want := stdcrc64.Checksum(p, referenceTable)
		if got := Update(0, p); got != want {
			t.Fatalf("%d bytes: %x, want %x", n, got, want)
		}
		// Fed in uneven pieces, as a body arrives.
		var crc uint64
		for rest := p; len(rest) > 0; {
			k := min(len(rest), 1+rng.IntN(5000))
			crc, rest = Update(crc, rest[:k]), rest[k:]
		}
		if crc != want {
			t.Fatalf("%d bytes in pieces: %x, want %x", n, crc, want)
		}
	}
}

func FuzzCRC64(f *testing.F) {
	f.Add([]byte("lazuli"), 3)
	f.Fuzz(func(t *testing.T, p []byte, cut int) {
		want := stdcrc64.Checksum(p, referenceTable)
		if cut < 0 || cut > len(p) {
			cut = len(p) / 2
		}
		if got := Update(Update(0, p[:cut]), p[cut:]); got != want {
			t.Fatalf("%x split at %d: %x, want %x", p, cut, got, want)
		}
	})
}

func BenchmarkCRC64(b *testing.B) {
	p := make([]byte, 64<<10)
	b.SetBytes(int64(len(p)))
	b.Run("slicing16", func(b *testing.B) {
		b.SetBytes(int64(len(p)))
		for b.Loop() {
			Update(0, p)
		}
	})
	b.Run("hash/crc64", func(b *testing.B) {
		b.SetBytes(int64(len(p)))
		for b.Loop() {
			stdcrc64.Checksum(p, referenceTable)
		}
	})
}
