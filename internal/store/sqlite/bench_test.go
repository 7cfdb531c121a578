package sqlite

import (
	"context"
	"encoding/binary"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/lazuli-storage/lazuli/internal/store"
)

// Benchmarks of the two hot paths: an Update writing one record, and a View
// reading one. Run them briefly, e.g. -bench . -benchtime 2000x.

func benchKey(i int) []byte {
	return store.NewKey(store.SpaceBlob).Str("bench").Uint(uint64(i)).Bytes()
}

func BenchmarkUpdatePut(b *testing.B) {
	for _, writers := range []int{1, 16} {
		b.Run(fmt.Sprintf("writers=%d", writers), func(b *testing.B) { benchUpdatePut(b, writers) })
	}
}

// benchUpdatePut runs Updates from writers goroutines per GOMAXPROCS: with
// more writers, group commit spreads each fsync over more Updates.
func benchUpdatePut(b *testing.B, writers int) {
	s := openBench(b)
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

func BenchmarkViewGet(b *testing.B) {
	s := openBench(b)
	const records = 1000
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

func openBench(b *testing.B) *Store {
	s, err := Open(b.TempDir()+"/bench.db", Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	return s
}
