package quickquery

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/ipc"
)

// readArrow reads an Arrow IPC stream with the Apache Arrow Go reader and
// returns its schema as "name:type" pairs, its rows as value strings and
// how many record batches held them.
func readArrow(t *testing.T, data []byte) (schema []string, rows [][]string, batches int) {
	t.Helper()
	rdr, err := ipc.NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("not an Arrow stream: %v", err)
	}
	defer rdr.Release()
	for _, f := range rdr.Schema().Fields() {
		schema = append(schema, f.Name+":"+f.Type.String())
	}
	for rdr.Next() {
		rec := rdr.RecordBatch()
		batches++
		for i := 0; i < int(rec.NumRows()); i++ {
			row := make([]string, rec.NumCols())
			for j := range row {
				row[j] = rec.Column(j).ValueStr(i)
			}
			rows = append(rows, row)
		}
	}
	if err := rdr.Err(); err != nil {
		t.Fatalf("reading the Arrow stream: %v", err)
	}
	return schema, rows, batches
}

var peopleFields = []ArrowField{
	{Name: "name", Type: ArrowString},
	{Name: "age", Type: ArrowInt64},
	{Name: "joined", Type: ArrowTimestamp},
	{Name: "half", Type: ArrowDouble},
	{Name: "senior", Type: ArrowBool},
	{Name: "scaled", Type: ArrowDecimal, Precision: 8, Scale: 2},
}

// everyRecord is a non-fatal error at each record of people.
const everyRecord = "false InvalidTypeConversion @21 false InvalidTypeConversion @56 false InvalidTypeConversion @95 false InvalidTypeConversion @140"

// TestArrowOutput: each query's results, read back by Apache Arrow's own
// reader, with the types the request's schema names. A decimal's digits
// are sent unscaled, as Azure does: 45 in a decimal(8,2) column reads
// 0.45 (toDecimal128).
func TestArrowOutput(t *testing.T) {
	cases := []struct {
		name, query, data string
		input             Input
		fields            []ArrowField
		schema, rows      string
		errors            string
	}{
		{"every type", "SELECT name, age, joined, age / 2.0, age > 40, age * 1.25 FROM BlobStorage", people, csvWithHeaders, peopleFields,
			"name:utf8 age:int64 joined:timestamp[ms] half:float64 senior:bool scaled:decimal(8, 2)",
			"[Ada 36 2019-03-01T10:00:00Z 18 false 0.45] [Linus 28 2021-07-15T08:30:00Z 14 false 0.35] " +
				"[Grace 85 2015-12-09T00:00:00Z 42.5 true 106.25] [alan 41 2020-01-31T23:59:59Z 20.5 true 51.25]", ""},
		{"strings convert to the column type", "SELECT age, joined FROM BlobStorage WHERE age < 40", people, csvWithHeaders,
			[]ArrowField{{Name: "a", Type: ArrowDouble}, {Name: "j", Type: ArrowString}},
			"a:float64 j:utf8", "[36 2019-03-01T10:00:00Z] [28 2021-07-15T08:30:00Z]", ""},
		{"nulls", "SELECT id, price, NULLIF(name, 'mouse') FROM BlobStorage", products, jsonLines,
			[]ArrowField{{Name: "id", Type: ArrowInt64}, {Name: "price", Type: ArrowDecimal, Precision: 5, Scale: 1}, {Name: "name", Type: ArrowString}},
			"id:int64 price:decimal(5, 1) name:utf8", "[1 12.5 (null)] [2 3 keyboard] [3 (null) cable]", ""},
		{"a value that does not convert skips its record", "SELECT name FROM BlobStorage", people, csvWithHeaders,
			[]ArrowField{{Name: "n", Type: ArrowInt64}}, "n:int64", "",
			everyRecord},
		{"a record wider than the schema ends the query", "SELECT name, age FROM BlobStorage", people, csvWithHeaders,
			[]ArrowField{{Name: "n", Type: ArrowString}}, "n:utf8", "", "true ClientError @21"},
		{"a decimal past its precision", "SELECT age * 1000 FROM BlobStorage WHERE age > 80", people, csvWithHeaders,
			[]ArrowField{{Name: "d", Type: ArrowDecimal, Precision: 4, Scale: 2}}, "d:decimal(4, 2)", "", "false InvalidTypeConversion @95"},
		{"negative decimals", "SELECT 0 - age * 1.5 FROM BlobStorage LIMIT 2", people, csvWithHeaders,
			[]ArrowField{{Name: "d", Type: ArrowDecimal, Precision: 10, Scale: 1}}, "d:decimal(10, 1)", "[-5.4] [-4.2]", ""},
		{"aggregates", "SELECT COUNT(*), AVG(age), MAX(joined) FROM BlobStorage", people, csvWithHeaders,
			[]ArrowField{{Name: "n", Type: ArrowInt64}, {Name: "avg", Type: ArrowDouble}, {Name: "last", Type: ArrowTimestamp}},
			"n:int64 avg:float64 last:timestamp[ms]", "[4 47.5 2021-07-15T08:30:00Z]", ""},
		{"no rows: the schema alone", "SELECT name FROM BlobStorage WHERE age > 100", people, csvWithHeaders,
			[]ArrowField{{Name: "n", Type: ArrowString}}, "n:utf8", "", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := run(t, tc.query, tc.data, tc.input, Output{Arrow: tc.fields})
			schema, rows, _ := readArrow(t, []byte(c.data.String()))
			got := ""
			for i, r := range rows {
				if i > 0 {
					got += " "
				}
				got += fmt.Sprint(r)
			}
			if s := strings.Join(schema, " "); s != tc.schema {
				t.Errorf("schema %q, want %q", s, tc.schema)
			}
			if got != tc.rows {
				t.Errorf("rows %q, want %q", got, tc.rows)
			}
			if e := strings.Join(c.errors, " "); e != tc.errors {
				t.Errorf("errors %q, want %q", e, tc.errors)
			}
		})
	}
}

// TestArrowOutputBatches: a large result comes as several record batches
// that together hold every row.
func TestArrowOutputBatches(t *testing.T) {
	var data strings.Builder
	data.WriteString("n,s\n")
	const total = 3*arrowBatchRows + 5
	for i := 0; i < total; i++ {
		fmt.Fprintf(&data, "%d,row-%d\n", i, i)
	}
	c := run(t, "SELECT n, s FROM BlobStorage", data.String(), csvWithHeaders,
		Output{Arrow: []ArrowField{{Name: "n", Type: ArrowInt64}, {Name: "s", Type: ArrowString}}})
	_, rows, batches := readArrow(t, []byte(c.data.String()))
	if len(rows) != total || batches < 4 {
		t.Fatalf("%d rows in %d batches, want %d rows in at least 4", len(rows), batches, total)
	}
	for i, r := range rows {
		if r[0] != fmt.Sprint(i) || r[1] != fmt.Sprintf("row-%d", i) {
			t.Fatalf("row %d is %v", i, r)
		}
	}
}
