package table

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/lazuli-storage/lazuli/internal/engine/store"
	"github.com/lazuli-storage/lazuli/internal/engine/store/memory"
	"github.com/lazuli-storage/lazuli/internal/service/table/odata"
)

// versionedTable is a memory store holding one table created as the
// service creates tables (with an ID, so its partitions have versions),
// written through the service's own write path.
type versionedTable struct {
	tb testing.TB
	st store.Store
	id uint64
}

func newVersionedTable(tb testing.TB) *versionedTable {
	vt := &versionedTable{tb: tb, st: memory.New(), id: newTableID()}
	err := vt.st.Update(context.Background(), func(tx store.Tx) error {
		return saveTable(tx, "acct", &tableRecord{Name: "t", ID: vt.id})
	})
	if err != nil {
		tb.Fatal(err)
	}
	return vt
}

// write applies ops (all of one partition) in one Update, as a changeset.
func (vt *versionedTable) write(ops ...*entityOp) {
	vt.tb.Helper()
	err := vt.st.Update(context.Background(), func(tx store.Tx) error {
		tbl, err := loadTable(tx, "acct", "t")
		if err != nil {
			return err
		}
		for _, op := range ops {
			op.table = "t"
			if _, err := op.apply(tx, "acct", time.Now()); err != nil {
				return err
			}
		}
		return touchPartition(tx, tbl, "acct", "t", ops[0].pk)
	})
	if err != nil {
		vt.tb.Fatal(err)
	}
}

func upsert(pk, rk string, props ...Property) *entityOp {
	return &entityOp{kind: opReplace, pk: pk, rk: rk, props: props}
}

func remove(pk, rk string) *entityOp {
	return &entityOp{kind: opDelete, pk: pk, rk: rk, match: ifMatch{present: true, any: true}}
}

// pageOf runs one page either from the store only (cache nil) or through
// the partition cache, recording what the cache learns.
func (vt *versionedTable) pageOf(eq *entityQuery, c *partCache) *page {
	vt.tb.Helper()
	var pg *page
	var ls *lessons
	ref := tableRef{account: "acct", table: "t", id: vt.id}
	err := vt.st.View(context.Background(), func(tx store.Tx) error {
		var err error
		if c == nil {
			pg, err = eq.run(tx)
			return err
		}
		pg, ls, err = eq.runVersioned(tx, c, ref)
		return err
	})
	if err != nil {
		vt.tb.Fatal(err)
	}
	if c != nil {
		c.apply(context.Background(), vt.st, ref, ls)
	}
	return pg
}

// pages follows continuations as a client does and renders every page as
// the client receives it, continuation included.
func (vt *versionedTable) pages(filter string, top int, sas keyRange, c *partCache) []string {
	return vt.budgetPages(filter, top, 0, sas, c)
}

// budgetPages is pages with a scan budget per page (0: the service's).
func (vt *versionedTable) budgetPages(filter string, top, budget int, sas keyRange, c *partCache) []string {
	vt.tb.Helper()
	f, err := odata.Parse(filter)
	if err != nil {
		vt.tb.Fatal(err)
	}
	var out []string
	var nextPK, nextRK string
	for {
		eq, err := newQuery(f, nil, top, "acct", "t", nextPK, nextRK, sas)
		if err != nil {
			vt.tb.Fatal(err)
		}
		eq.budget = budget
		pg := vt.pageOf(eq, c)
		doc := pageDocument(fullMetadata, pg, "http://h/acct", "t", "acct", nil)
		out = append(out, fmt.Sprintf("%s more=%v %q %q", doc, pg.more, pg.nextPK, pg.nextRK))
		if !pg.more {
			return out
		}
		nextPK, nextRK = encodeToken(pg.nextPK), encodeToken(pg.nextRK)
		if len(out) > 10000 {
			vt.tb.Fatal("no end of pages")
		}
	}
}

// fillMixed writes partitions of varied sizes, including empty keys, keys
// with zero bytes and quotes, and a partition emptied by deletes (its
// version stays).
func (vt *versionedTable) fillMixed(r *rand.Rand) {
	pks := []string{"", "\x00x", "a", "a\x00", "b", "b'q", "c", "zz", "é"}
	for _, pk := range pks {
		n := r.IntN(50)
		var ops []*entityOp
		for i := 0; i < n; i++ {
			rk := fmt.Sprintf("%04d", r.IntN(500))
			if i == 0 {
				rk = ""
			}
			props := []Property{{"N", odata.Int32(int32(i))}, {"G", odata.Int32(int32(i % 7))},
				{"S", odata.String(fmt.Sprintf("s%d", i%5))}, {"B", odata.Bool(i%2 == 0)},
				{"D", odata.Double(float64(i%9) / 2)}}
			if i%4 == 1 {
				// The same name with another type, and properties in
				// another order, in some rows.
				props = []Property{{"G", odata.Int64(int64(i % 7))}, {"N", odata.Int32(int32(i))}, {"D", odata.Int32(int32(i % 5))}}
			}
			if i%3 == 0 {
				props = append(props, Property{"Bin", odata.Binary([]byte{byte(i), 0, 1})},
					Property{"Id", odata.Guid("c9da6455-213d-42c9-9a79-3e9149a57833")})
			}
			ops = append(ops, upsert(pk, rk, props...))
			if len(ops) == 50 {
				vt.write(dedupe(ops)...)
				ops = nil
			}
		}
		if len(ops) > 0 {
			vt.write(dedupe(ops)...)
		}
	}
	vt.write(upsert("c", "gone"))
	vt.write(remove("c", "gone"))
}

// dedupe keeps the last op of each row, as a changeset must.
func dedupe(ops []*entityOp) []*entityOp {
	seen := map[string]int{}
	var out []*entityOp
	for _, op := range ops {
		if i, ok := seen[op.rk]; ok {
			out[i] = op
			continue
		}
		seen[op.rk] = len(out)
		out = append(out, op)
	}
	return out
}

var cacheTestFilters = []string{
	"", "G eq 3", "N lt 50", "S eq 's1' and B", "not B", "Missing eq 1",
	"G eq 3L", "D eq 2", "D eq 2.5", "D eq 2.0", "B eq true", "S eq 's1' and G eq 2", "G eq 2 and S eq 's1'",
	"Id eq guid'c9da6455-213d-42c9-9a79-3e9149a57833'", "Bin eq X'000001'", "G eq 3 or S eq 's2'",
	"G eq 3 and PartitionKey eq 'a'", "N eq 10 and G eq 3",
	"PartitionKey eq 'a'", "PartitionKey eq 'a' and G eq 2", "PartitionKey eq 'c'",
	"PartitionKey ge 'a' and PartitionKey lt 'c'", "PartitionKey gt 'b'", "RowKey ge '0250'",
	"PartitionKey eq 'b' and RowKey gt '0010' and RowKey le '0300'",
	"PartitionKey eq 'zz' and RowKey eq ''", "PartitionKey eq 'nope'",
}

var cacheTestRanges = []keyRange{
	{},
	{startPK: "a", endPK: "b", hasStart: true, hasEnd: true},
	{startPK: "a", startRK: "0100", endPK: "b", endRK: "0300", hasStart: true, hasEnd: true},
	{startPK: "b'q", hasStart: true},
}

// TestVersionedQueryMatchesScan checks that answering from the partition
// cache changes nothing a client sees: for every filter, page size and SAS
// range, the pages (entities, order, continuations) are those of a plain
// scan, whether the cache is cold, half warm or warm, and after writes.
func TestVersionedQueryMatchesScan(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	vt := newVersionedTable(t)
	vt.fillMixed(r)
	c := newPartCache(defaultCacheBytes)
	// Track and index every partition: filters without equality conjuncts
	// still take the walk that examines every entity.
	c.minIndexRows, c.minTrackRows = 0, 0
	vt.compareRounds(c)
}

// compareRounds compares cached and plain answers, with writes between
// rounds.
func (vt *versionedTable) compareRounds(c *partCache) {
	t := vt.tb
	for round := 0; round < 2; round++ {
		for fi, filter := range cacheTestFilters {
			for _, pg := range []struct{ top, budget int }{{2, 0}, {1000, 0}, {5, 11}, {1000, 23}} {
				for ri, sas := range cacheTestRanges {
					want := vt.budgetPages(filter, pg.top, pg.budget, sas, nil)
					// The first filter after writes meets partitions cold,
					// then ghosts, then decoded; later ones find them warm.
					passes := 1
					if fi == 0 {
						passes = 3
					}
					for pass := 0; pass < passes; pass++ {
						got := vt.budgetPages(filter, pg.top, pg.budget, sas, c)
						if !equalPages(got, want) {
							t.Fatalf("round %d %q %+v range %d pass %d:\ngot  %.600s\nwant %.600s", round, filter, pg, ri, pass, got, want)
						}
					}
				}
			}
		}
		// Writes between rounds: every later answer must reflect them.
		vt.write(upsert("a", fmt.Sprintf("x%d", round), Property{"G", odata.Int32(3)}))
		if round > 0 {
			vt.write(remove("a", fmt.Sprintf("x%d", round-1)))
		}
		vt.write(upsert("new", "x", Property{"G", odata.Int32(3)}))
		vt.write(&entityOp{kind: opMerge, pk: "zz", rk: "", props: []Property{{"S", odata.String("s1")}}})
	}
	if c.hits.Load() == 0 {
		t.Fatal("the cache never served a partition")
	}
}

func equalPages(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestPartitionCacheFillsOnSecondScan checks the ghost rule and that a
// version bump stops an entry from matching.
func TestPartitionCacheFillsOnSecondScan(t *testing.T) {
	vt := newVersionedTable(t)
	for i := 0; i < 30; i++ {
		vt.write(upsert("p", fmt.Sprintf("%02d", i), Property{"G", odata.Int32(int32(i % 3))}))
	}
	c := newPartCache(defaultCacheBytes)
	c.minTrackRows = 0
	count := func() int {
		pages := vt.pages("G eq 1", 1000, keyRange{}, c)
		return bytes.Count([]byte(pages[0]), []byte(`"RowKey"`))
	}
	for pass, wantHits := range []int64{0, 0, 1, 2} {
		if n := count(); n != 10 {
			t.Fatalf("pass %d: %d matches, want 10", pass, n)
		}
		if got := c.hits.Load(); got != wantHits {
			t.Fatalf("pass %d: %d hits, want %d", pass, got, wantHits)
		}
	}
	vt.write(upsert("p", "new", Property{"G", odata.Int32(1)}))
	if n := count(); n != 11 {
		t.Fatalf("after insert: %d matches, want 11", n)
	}
	if got := c.hits.Load(); got != 2 {
		t.Fatalf("a stale entry was used: %d hits", got)
	}
}

// TestPartitionCacheBounds checks the LRU byte bound and the per-partition
// cap.
func TestPartitionCacheBounds(t *testing.T) {
	c := newPartCache(64 << 10)
	for i := 0; i < 100; i++ {
		rows := make([]Entity, 10)
		c.put(&cachedPart{key: partKey{pk: fmt.Sprint(i)}, version: 1, state: partEntries, rows: rows, size: 4 << 10})
		if _, used := c.stats(); used > 64<<10 {
			t.Fatalf("cache holds %d bytes, over its bound", used)
		}
	}
	n, _ := c.stats()
	if n != 16 {
		t.Fatalf("%d entries, want the 16 most recent", n)
	}
	hits, _ := c.lookup("", "", 0, []partVersion{{pk: "99", version: 1}, {pk: "0", version: 1}, {pk: "98", version: 2}})
	if hits[0] == nil || hits[1] != nil || hits[2] != nil {
		t.Fatalf("lookup = %v", hits)
	}
	c.put(&cachedPart{key: partKey{pk: "big"}, version: 1, state: partEntries, rows: make([]Entity, 1), size: 32 << 10})
	hits, fill := c.lookup("", "", 0, []partVersion{{pk: "big", version: 1}})
	if hits[0] != nil || fill[0] {
		t.Fatal("a partition over the cap was cached, or is decoded again")
	}
	// An older version never replaces a newer one.
	c.put(&cachedPart{key: partKey{pk: "99"}, version: 0, state: partGhost, size: ghostBytes})
	if hits, _ := c.lookup("", "", 0, []partVersion{{pk: "99", version: 1}}); hits[0] == nil {
		t.Fatal("an older version replaced the cached one")
	}
}

// TestTrackingAndTableDelete checks that partitions become tracked after
// two whole scans, that the table record lists them, and that deleting
// the table leaves none of their version records behind.
func TestTrackingAndTableDelete(t *testing.T) {
	vt := newVersionedTable(t)
	for _, pk := range []string{"p", "q\x00", "s"} {
		vt.write(upsert(pk, "a"), upsert(pk, "b"))
	}
	c := newPartCache(defaultCacheBytes)
	c.minTrackRows = 2
	for i := 0; i < 2; i++ {
		vt.pages("PartitionKey lt 'r'", 1000, keyRange{}, c)
	}
	prefix := tablePrefix("acct", "t")
	versions := func() []partVersion {
		var vers []partVersion
		err := vt.st.View(context.Background(), func(tx store.Tx) error {
			var err error
			vers, err = partitionVersions(tx, prefix, versionPrefix("acct", "t"), prefix, store.PrefixEnd(prefix))
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		return vers
	}
	if got := fmt.Sprint(versions()); got != "[{p 1} {q\x00 1}]" {
		t.Fatalf("versions %q", got)
	}
	vt.write(upsert("q\x00", "c"))
	vt.write(upsert("s", "c")) // untracked: no version
	if got := fmt.Sprint(versions()); got != "[{p 1} {q\x00 2}]" {
		t.Fatalf("after writes, versions %q", got)
	}
	_ = vt.st.View(context.Background(), func(tx store.Tx) error {
		tbl, err := loadTable(tx, "acct", "t")
		if err != nil || !tbl.tracks("p") || !tbl.tracks("q\x00") || tbl.tracks("s") {
			t.Fatalf("tracked %q, %v", tbl.Tracked, err)
		}
		return nil
	})
	err := vt.st.Update(context.Background(), func(tx store.Tx) error { return dropTable(tx, "acct", "t") })
	if err != nil {
		t.Fatal(err)
	}
	if vers := versions(); len(vers) != 0 {
		t.Fatalf("versions left after the table was deleted: %v", vers)
	}
}

// BenchmarkNonKeyFilterCached is BenchmarkNonKeyFilter on a table with
// partition versions, answered through the partition cache.
func BenchmarkNonKeyFilterCached(b *testing.B) {
	vt := newVersionedTable(b)
	for i := 0; i < 20000; i += 100 {
		var ops []*entityOp
		for j := i; j < i+100; j++ {
			kind := "common"
			if j%100 == 0 {
				kind = "rare"
			}
			ops = append(ops, upsert("p", fmt.Sprintf("%06d", j), Property{"Name", odata.String(fmt.Sprintf("entity number %d", j))},
				Property{"Count", odata.Int32(int32(j))}, Property{"Score", odata.Double(float64(j) / 3)}, Property{"Kind", odata.String(kind)}))
		}
		vt.write(ops...)
	}
	// An equality conjunct is answered from a property index; a range
	// filter walks every cached entity.
	for _, filter := range []string{"Kind eq 'rare'", "Count ge 19800"} {
		b.Run(filter, func(b *testing.B) {
			c := newPartCache(defaultCacheBytes)
			for i := 0; i < b.N; i++ {
				pages := vt.pages(filter, 1000, keyRange{}, c)
				if n := bytes.Count([]byte(pages[0]), []byte(`"Count"`)); n != 200 {
					b.Fatalf("matched %d", n)
				}
			}
		})
	}
}

// TestTrackingStopsAtTheLimit: a table tracks maxTracked partitions at
// most; others stay answered by the store.
func TestTrackingStopsAtTheLimit(t *testing.T) {
	vt := newVersionedTable(t)
	c := newPartCache(defaultCacheBytes)
	ref := tableRef{account: "acct", table: "t", id: vt.id}
	for i := 0; i <= maxTracked; i++ {
		pk := fmt.Sprintf("p%03d", i)
		vt.write(upsert(pk, "r"))
		if err := trackPartition(context.Background(), vt.st, c, ref, pk); err != nil {
			t.Fatal(err)
		}
	}
	_ = vt.st.View(context.Background(), func(tx store.Tx) error {
		tbl, err := loadTable(tx, "acct", "t")
		if err != nil || len(tbl.Tracked) != maxTracked || tbl.tracks(fmt.Sprintf("p%03d", maxTracked)) {
			t.Fatalf("%d tracked partitions (%v)", len(tbl.Tracked), err)
		}
		return nil
	})
	if got := vt.pages("", 1000, keyRange{}, c); strings.Count(got[0], `"RowKey"`) != maxTracked+1 {
		t.Fatalf("query over tracked and untracked partitions: %.300s", got[0])
	}
}
