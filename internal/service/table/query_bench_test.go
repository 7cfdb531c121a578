package table

import (
	"context"
	"fmt"
	"testing"

	"github.com/lazuli-storage/lazuli/internal/engine/store"
	"github.com/lazuli-storage/lazuli/internal/engine/store/memory"
	"github.com/lazuli-storage/lazuli/internal/service/table/odata"
)

// partitionStore holds one table with n entities in one partition; 1% of
// them have Kind "rare".
func partitionStore(tb testing.TB, n int) store.Store {
	tb.Helper()
	st := memory.New()
	err := st.Update(context.Background(), func(tx store.Tx) error {
		if err := saveTable(tx, "acct", &tableRecord{Name: "bench"}); err != nil {
			return err
		}
		for i := 0; i < n; i++ {
			kind := "common"
			if i%100 == 0 {
				kind = "rare"
			}
			e := &Entity{PK: "p", RK: fmt.Sprintf("%06d", i), Timestamp: int64(i + 1), Props: []Property{
				{"Name", odata.String(fmt.Sprintf("entity number %d", i))},
				{"Count", odata.Int32(int32(i))},
				{"Score", odata.Double(float64(i) / 3)},
				{"Kind", odata.String(kind)},
			}}
			if err := tx.Put(entityKey("acct", "bench", e.PK, e.RK), encodeEntity(e)); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
	return st
}

// queryAll runs a filter over the table following continuations, as a
// client does, and returns the number of matches.
func queryAll(tb testing.TB, st store.Store, filter string) int {
	f, err := odata.Parse(filter)
	if err != nil {
		tb.Fatal(err)
	}
	prefix := tablePrefix("acct", "bench")
	start, end := planBounds(prefix, f.Plan())
	total := 0
	for {
		eq := &entityQuery{filter: f, top: maxPageSize, start: start, end: end, prefixLen: len(prefix)}
		var pg *page
		err := st.View(context.Background(), func(tx store.Tx) error {
			var err error
			pg, err = eq.run(tx)
			return err
		})
		if err != nil {
			tb.Fatal(err)
		}
		total += len(pg.entities)
		_ = pageDocument(minimalMetadata, pg, "http://h/acct", "bench", "acct", nil)
		if !pg.more {
			return total
		}
		start = keyWith(prefix, pg.nextPK, pg.nextRK)
	}
}

func TestQueryScanFindsRareEntities(t *testing.T) {
	st := partitionStore(t, 5000)
	if n := queryAll(t, st, "PartitionKey eq 'p' and Kind eq 'rare'"); n != 50 {
		t.Fatalf("non-key filter matched %d, want 50", n)
	}
	if n := queryAll(t, st, "Count ge 1000 and Count lt 3500"); n != 2500 {
		t.Fatalf("range filter matched %d, want 2500", n)
	}
	if n := queryAll(t, st, "PartitionKey eq 'p' and RowKey ge '000100' and RowKey lt '000110'"); n != 10 {
		t.Fatalf("key range matched %d, want 10", n)
	}
}

// BenchmarkNonKeyFilter is the table-query scenario: a non-key filter over
// 20,000 entities of one partition matching 1%.
func BenchmarkNonKeyFilter(b *testing.B) {
	st := partitionStore(b, 20000)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if n := queryAll(b, st, "PartitionKey eq 'p' and Kind eq 'rare'"); n != 200 {
			b.Fatalf("matched %d", n)
		}
	}
}
