package storetest

import (
	"context"
	"encoding/binary"
	"sync/atomic"
	"testing"

	"github.com/lazuli-storage/lazuli/internal/engine/store"
)

// Benchmarks of an engine's two hot paths, for its bench_test.go: an
// Update writing one record, and a View reading one.

func benchKey(i int) []byte {
	return store.NewKey(store.SpaceBlob).Str("bench").Uint(uint64(i)).Bytes()
}

// BenchUpdatePut runs Updates that each put one fresh 200-byte record,
// from writers goroutines per GOMAXPROCS: on an engine with group commit,
// more writers spread each durable commit over more Updates.
func BenchUpdatePut(b *testing.B, s store.Store, writers int) {
	value := make([]byte, 200)
	b.ReportAllocs()
	b.SetParallelism(writers)
	var next atomic.Int64
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

// BenchViewGet fills s with records records, then runs Views that each get
// one of them, in parallel.
func BenchViewGet(b *testing.B, s store.Store, records int) {
	err := s.Update(context.Background(), func(tx store.Tx) error {
		for i := range records {
			if err := tx.Put(benchKey(i), binary.BigEndian.AppendUint64(nil, uint64(i))); err != nil {
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
