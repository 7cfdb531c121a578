package postgres

import (
	"context"
	"encoding/binary"
	"math/rand/v2"
	"testing"

	"github.com/lazuli-storage/lazuli/internal/engine/store"
)

// BenchmarkGet measures a View holding one Get: BEGIN, SELECT, COMMIT.
func BenchmarkGet(b *testing.B) {
	s, _ := openTest(b)
	ctx := context.Background()
	if err := s.Update(ctx, func(tx store.Tx) error { return tx.Put([]byte("k"), make([]byte, 256)) }); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		err := s.View(ctx, func(tx store.Tx) error { _, err := tx.Get([]byte("k")); return err })
		if err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkUpdate measures an Update writing one fresh 256-byte record, a
// durable commit each.
func BenchmarkUpdate(b *testing.B) {
	s, _ := openTest(b)
	ctx := context.Background()
	v := make([]byte, 256)
	var i uint64
	for b.Loop() {
		i++
		k := binary.BigEndian.AppendUint64([]byte("k"), i)
		if err := s.Update(ctx, func(tx store.Tx) error { return tx.Put(k, v) }); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkUpdateParallel runs Updates on distinct keys from many
// goroutines, so commits overlap.
func BenchmarkUpdateParallel(b *testing.B) {
	s, _ := openTest(b)
	ctx := context.Background()
	v := make([]byte, 256)
	b.RunParallel(func(pb *testing.PB) {
		var id [8]byte
		binary.BigEndian.PutUint64(id[:], rand.Uint64())
		var i uint64
		for pb.Next() {
			i++
			k := binary.BigEndian.AppendUint64(id[:], i)
			if err := s.Update(ctx, func(tx store.Tx) error { return tx.Put(k, v) }); err != nil {
				b.Error(err)
				return
			}
		}
	})
}
