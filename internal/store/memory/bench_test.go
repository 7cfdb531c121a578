package memory

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/lazuli-storage/lazuli/internal/store"
)

// Benchmarks of the two hot paths; run them briefly, e.g. -benchtime 20000x.

func benchKey(i int) []byte {
	return store.NewKey(store.SpaceBlob).Str("bench").Uint(uint64(i)).Bytes()
}

func BenchmarkUpdatePut(b *testing.B) {
	s := New()
	value := make([]byte, 200)
	var next atomic.Int64
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			key := benchKey(int(next.Add(1)))
			if err := s.Update(context.Background(), func(tx store.Tx) error { return tx.Put(key, value) }); err != nil {
				b.Error(err)
				return
			}
		}
	})
}

func BenchmarkViewGet(b *testing.B) {
	s := New()
	const records = 100000
	err := s.Update(context.Background(), func(tx store.Tx) error {
		for i := range records {
			if err := tx.Put(benchKey(i), []byte("value")); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		i := 0
		for pb.Next() {
			i++
			key := benchKey(i % records)
			if err := s.View(context.Background(), func(tx store.Tx) error {
				_, err := tx.Get(key)
				return err
			}); err != nil {
				b.Error(err)
				return
			}
		}
	})
}
