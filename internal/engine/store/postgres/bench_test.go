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

// BenchmarkUpdateRename measures the shape of a Data Lake directory rename:
// one Update that deletes renameRecords records and writes each again under
// a new prefix, its cost reported per record moved.
func BenchmarkUpdateRename(b *testing.B) {
	const renameRecords = 10000
	s, _ := openTest(b)
	ctx := context.Background()
	v := make([]byte, 200)
	key := func(prefix byte, i int) []byte { return binary.BigEndian.AppendUint32([]byte{prefix, '/'}, uint32(i)) }
	err := s.Update(ctx, func(tx store.Tx) error {
		for i := range renameRecords {
			if err := tx.Put(key('a', i), v); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	from, to := byte('a'), byte('b')
	for b.Loop() {
		err := s.Update(ctx, func(tx store.Tx) error {
			for i := range renameRecords {
				if err := tx.Delete(key(from, i)); err != nil {
					return err
				}
				if err := tx.Put(key(to, i), v); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
		from, to = to, from
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N*renameRecords), "µs/record")
}
