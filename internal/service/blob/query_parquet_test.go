package blob_test

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// TestQueryBlobContentsParquetInput queries a Parquet blob written by
// Apache Arrow's writer (SNAPPY, dictionary pages, several row groups)
// through the REST API, answering JSON; a blob that is not Parquet ends
// with a fatal ParseError record.
func TestQueryBlobContentsParquetInput(t *testing.T) {
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "city", Type: arrow.BinaryTypes.String, Nullable: true},
	}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer b.Release()
	const rows = 200000
	cities := []string{"Oslo", "Lima", "Pune"}
	for i := 0; i < rows; i++ {
		b.Field(0).(*array.Int64Builder).Append(int64(i))
		if i%10 == 9 {
			b.Field(1).AppendNull()
		} else {
			b.Field(1).(*array.StringBuilder).Append(cities[i%3])
		}
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	var file bytes.Buffer
	w := must(pqarrow.NewFileWriter(schema, &file, parquet.NewWriterProperties(
		parquet.WithCompression(compress.Codecs.Snappy), parquet.WithMaxRowGroupLength(50000)), pqarrow.DefaultWriterProps())).on(t)
	if err := w.Write(rec); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}

	e := start(t)
	c := e.container("parquetq")
	e.upload(c, "cities.parquet", file.Bytes())
	e.upload(c, "not.parquet", []byte("id,city\n1,Oslo\n"))
	query := func(blob, expression string) string {
		resp := e.raw(http.MethodPost, "parquetq/"+blob+"?comp=query", nil,
			queryBody(expression, "<Type>parquet</Type>", jsonFormat))
		if resp.StatusCode != http.StatusOK {
			msg, _ := io.ReadAll(resp.Body)
			t.Fatalf("query: %d %s", resp.StatusCode, msg)
		}
		var out strings.Builder
		for _, r := range decodeQueryResponse(t, resp.Body) {
			out.Write(r.data)
			if r.kind == "error" {
				fmt.Fprintf(&out, "error:%v:%s", r.fatal, r.name)
			}
		}
		return out.String()
	}
	if got := query("cities.parquet", "SELECT COUNT(*), COUNT(city), MAX(id) FROM BlobStorage WHERE city = 'Lima' OR city IS NULL"); got !=
		`{"_1":80000,"_2":60000,"_3":199999}`+"\n" {
		t.Errorf("aggregates: %q", got)
	}
	if got := query("cities.parquet", "SELECT * FROM BlobStorage WHERE id &gt;= 199998"); got !=
		`{"id":199998,"city":"Oslo"}`+"\n"+`{"id":199999,"city":null}`+"\n" {
		t.Errorf("rows: %q", got)
	}
	if got := query("not.parquet", "SELECT * FROM BlobStorage"); got != "error:true:ParseError" {
		t.Errorf("not Parquet: %q", got)
	}
}
