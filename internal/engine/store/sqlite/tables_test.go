package sqlite

import (
	"bytes"
	"context"
	"database/sql/driver"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/lazuli-storage/lazuli/internal/engine/store"
)

// version1Schemas are the schemas version 1 wrote, written out here rather
// than taken from the code, which now writes version 2: the rowid kv of
// the last version-1 releases and the WITHOUT ROWID kv of earlier ones.
var version1Schemas = map[string]string{
	"rowid":         "CREATE TABLE kv (k BLOB PRIMARY KEY NOT NULL, v BLOB NOT NULL)",
	"without rowid": "CREATE TABLE kv (k BLOB PRIMARY KEY, v BLOB NOT NULL) WITHOUT ROWID",
}

// everySpace lists the spaces of store/keys.go.
var everySpace = []store.Space{
	store.SpaceMeta, store.SpaceAccount, store.SpaceContainer, store.SpaceBlob, store.SpaceBlock,
	store.SpaceBlobIndex, store.SpaceBlobExpiry, store.SpaceQueue, store.SpaceMessage, store.SpaceMsgIndex,
	store.SpaceTable, store.SpaceEntity, store.SpaceShare, store.SpaceFile, store.SpaceFileIndex,
	store.SpaceShareExpiry, store.SpaceExtentRef, store.SpaceExtentGC,
}

// wantInKVI lists the spaces whose keys must live in kvi.
var wantInKVI = []store.Space{
	store.SpaceBlobIndex, store.SpaceBlobExpiry, store.SpaceFileIndex, store.SpaceShareExpiry, store.SpaceExtentGC,
}

type kvRecord struct{ key, value []byte }

// mixedRecords returns records in every space, and beside them, sorted by
// key: the bare space byte, keys that extend one another, a NUL inside an
// element, a value past a page, and the empty key.
func mixedRecords() []kvRecord {
	recs := []kvRecord{{key: []byte{}, value: []byte("empty key")}}
	for _, sp := range everySpace {
		for i, k := range []store.Key{
			{byte(sp)},
			store.NewKey(sp).Str("a"),
			store.NewKey(sp).Str("a").Uint(1),
			store.NewKey(sp).Str("a").Uint(2),
			store.NewKey(sp).Str("b\x00c"),
			store.NewKey(sp).Str("c"),
		} {
			v := fmt.Appendf(nil, "%02x/%d", byte(sp), i)
			if i == 5 {
				v = bytes.Repeat(v, 1000)
			}
			recs = append(recs, kvRecord{key: k, value: v})
		}
	}
	recs = append(recs, kvRecord{key: []byte{0xFF, 0xFF}, value: nil})
	slices.SortFunc(recs, func(a, b kvRecord) int { return bytes.Compare(a.key, b.key) })
	return recs
}

// writeVersion1File writes a version-1 database holding recs, with the
// given kv schema.
func writeVersion1File(t *testing.T, path, createKV string, recs []kvRecord) {
	t.Helper()
	c, err := openConn(path, Options{}.withDefaults())
	if err != nil {
		t.Fatal(err)
	}
	defer c.close()
	steps := []string{
		"PRAGMA journal_mode = WAL",
		createKV,
		"CREATE TABLE lazuli_meta (name TEXT PRIMARY KEY, value INTEGER NOT NULL) WITHOUT ROWID",
		"INSERT INTO lazuli_meta (name, value) VALUES ('schema_version', 1)",
	}
	for _, r := range recs {
		steps = append(steps, fmt.Sprintf("INSERT INTO kv (k, v) VALUES (x'%x', x'%x')", r.key, r.value))
	}
	for _, sql := range steps {
		if err := c.execSQL(sql); err != nil {
			t.Fatal(err)
		}
	}
}

// TestOpenMigratesVersion1Files opens version-1 files of both kv layouts
// and checks that the index spaces moved to kvi, that Open logged how
// many, and that every record reads back as it was written.
func TestOpenMigratesVersion1Files(t *testing.T) {
	recs := mixedRecords()
	var wantMoved int
	for _, r := range recs {
		if len(r.key) > 0 && slices.Contains(wantInKVI, store.Space(r.key[0])) {
			wantMoved++
		}
	}
	for layout, createKV := range version1Schemas {
		t.Run(layout, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "lazuli.db")
			writeVersion1File(t, path, createKV, recs)
			var logged bytes.Buffer
			s, err := Open(path, Options{Logger: slog.New(slog.NewTextHandler(&logged, nil))})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			if want := fmt.Sprintf("rows_moved=%d", wantMoved); !strings.Contains(logged.String(), want) {
				t.Errorf("Open logged %q, want it to say %s", logged.String(), want)
			}
			checkFileLayout(t, s, recs)
			checkReadsBack(t, s, recs)
		})
	}
}

// checkFileLayout checks the file's version and which table holds each
// record.
func checkFileLayout(t *testing.T, s *Store, recs []kvRecord) {
	t.Helper()
	err := s.Update(context.Background(), func(tx store.Tx) error {
		c := tx.(*writeTx).c
		version, err := c.querySQL("SELECT value FROM lazuli_meta WHERE name = 'schema_version'")
		if err != nil {
			return err
		}
		if version != int64(schemaVersion) {
			t.Errorf("schema version %v, want %d", version, schemaVersion)
		}
		for _, r := range recs {
			want := "kv"
			if len(r.key) > 0 && slices.Contains(wantInKVI, store.Space(r.key[0])) {
				want = "kvi"
			}
			got, err := tablesHolding(c, r.key)
			if err != nil {
				return err
			}
			if got != want {
				t.Errorf("key %x is in %q, want %q", r.key, got, want)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// tablesHolding names the tables that have a row at key.
func tablesHolding(c *conn, key []byte) (string, error) {
	var in []string
	for _, name := range []string{"kv", "kvi"} {
		n, err := c.querySQL(fmt.Sprintf("SELECT count(*) FROM %s WHERE k = x'%x'", name, key))
		if err != nil {
			return "", err
		}
		if n != int64(0) {
			in = append(in, name)
		}
	}
	return strings.Join(in, ","), nil
}

// checkReadsBack reads every record by Get, by a scan of everything and
// by a scan of each space, forward and reverse, whole and with limits.
func checkReadsBack(t *testing.T, s *Store, recs []kvRecord) {
	t.Helper()
	err := s.View(context.Background(), func(tx store.Tx) error {
		for _, r := range recs {
			v, err := tx.Get(r.key)
			if err != nil || !bytes.Equal(v, r.value) {
				t.Errorf("Get(%x) = %.20q, %v; want %.20q", r.key, v, err, r.value)
			}
		}
		checkScans(t, tx, nil, nil, recs)
		for _, sp := range everySpace {
			start := store.NewKey(sp).Bytes()
			end := store.PrefixEnd(start)
			var want []kvRecord
			for _, r := range recs {
				if len(r.key) > 0 && r.key[0] == byte(sp) {
					want = append(want, r)
				}
			}
			checkScans(t, tx, start, end, want)
		}
		// Ranges that end inside a space of the other table.
		checkScans(t, tx, []byte{byte(store.SpaceBlob)}, store.NewKey(store.SpaceBlobIndex).Str("a").Uint(2), between(recs, []byte{byte(store.SpaceBlob)}, store.NewKey(store.SpaceBlobIndex).Str("a").Uint(2)))
		checkScans(t, tx, store.NewKey(store.SpaceBlobExpiry).Str("b"), []byte{byte(store.SpaceMessage)}, between(recs, store.NewKey(store.SpaceBlobExpiry).Str("b"), []byte{byte(store.SpaceMessage)}))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// between returns the records of recs in [start, end); nil end: no bound.
func between(recs []kvRecord, start, end []byte) []kvRecord {
	var in []kvRecord
	for _, r := range recs {
		if bytes.Compare(r.key, start) >= 0 && (end == nil || bytes.Compare(r.key, end) < 0) {
			in = append(in, r)
		}
	}
	return in
}

// checkScans scans [start, end) forward and reverse, with no limit and
// with limits below, at and above the number of records, and compares
// with want, the range's records in ascending order.
func checkScans(t *testing.T, tx store.Tx, start, end []byte, want []kvRecord) {
	t.Helper()
	reversed := slices.Clone(want)
	slices.Reverse(reversed)
	for _, limit := range []int{0, 1, 2, len(want) - 1, len(want), len(want) + 1} {
		if limit < 0 {
			continue
		}
		for _, reverse := range []bool{false, true} {
			expect := want
			if reverse {
				expect = reversed
			}
			if limit > 0 && limit < len(expect) {
				expect = expect[:limit]
			}
			var got []kvRecord
			err := tx.Scan(start, end, store.ScanOptions{Limit: limit, Reverse: reverse}, func(k, v []byte) bool {
				got = append(got, kvRecord{key: bytes.Clone(k), value: bytes.Clone(v)})
				return true
			})
			if err != nil {
				t.Fatalf("scan [%x, %x) limit %d reverse %v: %v", start, end, limit, reverse, err)
			}
			if !slices.EqualFunc(got, expect, func(a, b kvRecord) bool {
				return bytes.Equal(a.key, b.key) && bytes.Equal(a.value, b.value)
			}) {
				t.Errorf("scan [%x, %x) limit %d reverse %v: keys %x, want %x", start, end, limit, reverse, keys(got), keys(expect))
			}
		}
	}
}

func keys(recs []kvRecord) [][]byte {
	out := make([][]byte, len(recs))
	for i, r := range recs {
		out[i] = r.key
	}
	return out
}

// TestNewFilesKeepIndexSpacesInKVI writes records of every space through
// the store and checks which table each landed in.
func TestNewFilesKeepIndexSpacesInKVI(t *testing.T) {
	s := openTemp(t, Options{})
	recs := mixedRecords()
	err := s.Update(context.Background(), func(tx store.Tx) error {
		for _, r := range recs {
			if err := tx.Put(r.key, r.value); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	checkFileLayout(t, s, recs)
	checkReadsBack(t, s, recs)
	// Deletes find the records in their table.
	err = s.Update(context.Background(), func(tx store.Tx) error {
		for _, r := range recs {
			if err := tx.Delete(r.key); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	checkReadsBack(t, s, nil)
}

// TestFailedMigrationLeavesVersion1 makes the migration fail half-way (a
// kvi already holding one of the keys it moves, so the copy breaks its
// primary key) and checks that Open refuses the file and leaves it as it
// was: version 1, every record still in kv.
func TestFailedMigrationLeavesVersion1(t *testing.T) {
	path := filepath.Join(t.TempDir(), "lazuli.db")
	clash := store.NewKey(store.SpaceBlobIndex).Str("a")
	recs := []kvRecord{{store.NewKey(store.SpaceBlob).Str("a"), []byte("blob")}, {clash, []byte("index")}}
	writeVersion1File(t, path, version1Schemas["rowid"], recs)
	c, err := openConn(path, Options{}.withDefaults())
	if err != nil {
		t.Fatal(err)
	}
	defer c.close()
	for _, sql := range []string{createKVI, fmt.Sprintf("INSERT INTO kvi (k, v) VALUES (x'%x', x'00')", clash)} {
		if err := c.execSQL(sql); err != nil {
			t.Fatal(err)
		}
	}
	if s, err := Open(path, Options{Logger: slog.New(slog.DiscardHandler)}); err == nil {
		s.Close()
		t.Fatal("Open succeeded although the migration could not copy its rows")
	}
	version, err := c.querySQL("SELECT value FROM lazuli_meta WHERE name = 'schema_version'")
	if err != nil || version != int64(1) {
		t.Fatalf("schema version after a failed migration: %v, %v; want 1", version, err)
	}
	n, err := c.querySQL("SELECT count(*) FROM kv")
	if err != nil || n != int64(len(recs)) {
		t.Fatalf("kv holds %v rows after a failed migration (%v), want %d", n, err, len(recs))
	}
}

// TestScanOfBothTablesMerges checks the plan of every scan of both
// tables: SQLite merges the tables' key-ordered searches, and builds no
// temporary b-tree to sort the rows.
func TestScanOfBothTablesMerges(t *testing.T) {
	s := openTemp(t, Options{})
	err := s.Update(context.Background(), func(tx store.Tx) error {
		c := tx.(*writeTx).c
		for _, sql := range scanSQL[scanBoth] {
			plan, err := queryPlan(c, sql)
			if err != nil {
				return err
			}
			if !strings.Contains(plan, "MERGE (UNION ALL)") || strings.Contains(plan, "TEMP B-TREE") {
				t.Errorf("%s\nplan:\n%s", sql, plan)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// queryPlan returns the detail lines of EXPLAIN QUERY PLAN of a scan.
func queryPlan(c *conn, sql string) (string, error) {
	args := []driver.NamedValue{{Ordinal: 1, Value: []byte{0}}, {Ordinal: 2, Value: []byte{0xFF}}, {Ordinal: 3, Value: int64(10)}}
	rows, err := c.raw.(driver.QueryerContext).QueryContext(context.Background(), "EXPLAIN QUERY PLAN "+sql, args)
	if err != nil {
		return "", err
	}
	defer rows.Close()
	var plan strings.Builder
	dest := make([]driver.Value, len(rows.Columns()))
	for {
		switch err := rows.Next(dest); err {
		case nil:
			fmt.Fprintf(&plan, "%v\n", dest[len(dest)-1])
		case io.EOF:
			return plan.String(), nil
		default:
			return "", err
		}
	}
}

// TestScanTargets checks which table a Scan reads for ranges at the edges
// of spaces.
func TestScanTargets(t *testing.T) {
	idx, exp, msg := byte(store.SpaceBlobIndex), byte(store.SpaceBlobExpiry), byte(store.SpaceMessage)
	for _, tc := range []struct {
		start, end []byte
		want       scanTarget
	}{
		{[]byte{idx}, []byte{idx + 1}, scanKVI},
		{[]byte{idx}, []byte{exp + 1}, scanKVI},
		{[]byte{idx, 'a'}, []byte{exp, 'b'}, scanKVI},
		{[]byte{idx}, []byte{exp + 1, 0}, scanBoth}, // reaches the bare key exp+1
		{[]byte{idx - 1, 0xFF}, []byte{idx + 1}, scanBoth},
		{[]byte{msg}, []byte{msg + 1}, scanKV},
		{nil, []byte{idx}, scanKV},
		{nil, []byte{idx, 0}, scanBoth},
		{[]byte{idx}, nil, scanBoth},
		{[]byte{0xFF}, nil, scanKV},
		{nil, nil, scanBoth},
		{[]byte{idx}, []byte{idx}, scanKV},     // empty
		{[]byte{idx + 5}, []byte{idx}, scanKV}, // empty
		{nil, []byte{}, scanKV},                // empty
		{nil, []byte{0}, scanKV},               // only the empty key, which is in kv
	} {
		if got := targetOf(tc.start, tc.end); got != tc.want {
			t.Errorf("targetOf(%x, %x) = %d, want %d", tc.start, tc.end, got, tc.want)
		}
	}
}
