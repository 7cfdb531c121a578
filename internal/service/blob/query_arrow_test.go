package blob_test

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
)

// TestQueryBlobContentsArrowOutput runs a query over a 10 MiB CSV blob
// through the REST API with Arrow output and reads the result data, the
// resultData records put together, with Apache Arrow's Go reader.
func TestQueryBlobContentsArrowOutput(t *testing.T) {
	e := start(t)
	c := e.container("arrowq")
	var csv bytes.Buffer
	csv.WriteString("id,name,score\n")
	rows := 0
	for csv.Len() < 10<<20 {
		fmt.Fprintf(&csv, "%d,player-%d,%d.5\n", rows, rows, rows%1000)
		rows++
	}
	e.upload(c, "scores.csv", csv.Bytes())
	arrow := `<Type>arrow</Type><ArrowConfiguration><Schema>` +
		`<Field><Type>int64</Type><Name>id</Name></Field>` +
		`<Field><Type>string</Type><Name>name</Name></Field>` +
		`<Field><Type>decimal</Type><Name>score</Name><Precision>6</Precision><Scale>1</Scale></Field>` +
		`</Schema></ArrowConfiguration>`
	resp := e.raw(http.MethodPost, "arrowq/scores.csv?comp=query", nil,
		queryBody("SELECT id, name, score FROM BlobStorage WHERE score &gt;= 998", csvWithHeader, arrow))
	if resp.StatusCode != http.StatusOK {
		msg, _ := io.ReadAll(resp.Body)
		t.Fatalf("query: %d %s", resp.StatusCode, msg)
	}
	var stream bytes.Buffer
	for _, r := range decodeQueryResponse(t, resp.Body) {
		if r.kind == "error" {
			t.Fatalf("error record %+v", r)
		}
		stream.Write(r.data)
	}
	rdr, err := ipc.NewReader(&stream)
	if err != nil {
		t.Fatalf("not an Arrow stream: %v", err)
	}
	defer rdr.Release()
	if got := rdr.Schema().String(); got != "schema:\n  fields: 3\n    - id: type=int64, nullable\n    - name: type=utf8, nullable\n    - score: type=decimal(6, 1), nullable" {
		t.Fatalf("schema %q", got)
	}
	seen := 0
	for rdr.Next() {
		rec := rdr.RecordBatch()
		ids, names := rec.Column(0).(*array.Int64), rec.Column(1).(*array.String)
		scores := rec.Column(2).(*array.Decimal128)
		for i := 0; i < int(rec.NumRows()); i++ {
			id := ids.Value(i)
			if id%1000 < 998 || names.Value(i) != fmt.Sprintf("player-%d", id) || scores.ValueStr(i) != fmt.Sprintf("%d.5", id%1000) {
				t.Fatalf("row %d: %d %s %s", seen, id, names.Value(i), scores.ValueStr(i))
			}
			seen++
		}
	}
	if err := rdr.Err(); err != nil {
		t.Fatal(err)
	}
	want := 0
	for i := 0; i < rows; i++ {
		if i%1000 >= 998 {
			want++
		}
	}
	if seen != want {
		t.Fatalf("%d rows, want %d", seen, want)
	}
}
