package quickquery

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// writeParquet writes rows of (id, name, price, day, at, ok, amount) with
// Apache Arrow's Parquet writer, every fifth name and price NULL, in row
// groups of groupRows.
func writeParquet(t *testing.T, rows, groupRows int, props ...parquet.WriterProperty) []byte {
	t.Helper()
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "name", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "price", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
		{Name: "day", Type: arrow.FixedWidthTypes.Date32},
		{Name: "at", Type: &arrow.TimestampType{Unit: arrow.Millisecond, TimeZone: "UTC"}},
		{Name: "ok", Type: arrow.FixedWidthTypes.Boolean},
		{Name: "amount", Type: &arrow.Decimal128Type{Precision: 9, Scale: 2}},
		{Name: "small", Type: arrow.PrimitiveTypes.Int32},
	}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer b.Release()
	base := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := 0; i < rows; i++ {
		b.Field(0).(*array.Int64Builder).Append(int64(i))
		if i%5 == 4 {
			b.Field(1).AppendNull()
			b.Field(2).AppendNull()
		} else {
			b.Field(1).(*array.StringBuilder).Append(fmt.Sprintf("item-%d", i%7))
			b.Field(2).(*array.Float64Builder).Append(float64(i) + 0.5)
		}
		b.Field(3).(*array.Date32Builder).Append(arrow.Date32FromTime(base.AddDate(0, 0, i%30)))
		b.Field(4).(*array.TimestampBuilder).Append(arrow.Timestamp(base.Add(time.Duration(i) * time.Minute).UnixMilli()))
		b.Field(5).(*array.BooleanBuilder).Append(i%2 == 0)
		b.Field(6).(*array.Decimal128Builder).Append(decimal128.FromI64(int64(i*100 + 25)))
		b.Field(7).(*array.Int32Builder).Append(int32(-i))
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	var out bytes.Buffer
	w, err := pqarrow.NewFileWriter(schema, &out, parquet.NewWriterProperties(append(props, parquet.WithMaxRowGroupLength(int64(groupRows)))...),
		pqarrow.DefaultWriterProps())
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(rec); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

// TestParquetInput reads files of Apache Arrow's Parquet writer with each
// codec, page version and encoding Lazuli reads.
func TestParquetInput(t *testing.T) {
	files := map[string][]parquet.WriterProperty{
		"snappy, dictionary, v1": {parquet.WithCompression(compress.Codecs.Snappy)},
		"gzip, plain, v2": {parquet.WithCompression(compress.Codecs.Gzip), parquet.WithDictionaryDefault(false),
			parquet.WithDataPageVersion(parquet.DataPageV2)},
		"uncompressed, dictionary, v2": {parquet.WithDataPageVersion(parquet.DataPageV2)},
		"uncompressed, plain, v1":      {parquet.WithDictionaryDefault(false)},
	}
	queries := []struct{ query, want string }{
		{"SELECT * FROM BlobStorage WHERE id < 2",
			"0,item-0,0.5,2024-01-01T00:00:00Z,2024-01-01T00:00:00Z,true,0.25,0\n" +
				"1,item-1,1.5,2024-01-02T00:00:00Z,2024-01-01T00:01:00Z,false,1.25,-1\n"},
		{"SELECT id, name, price FROM BlobStorage WHERE id BETWEEN 3 AND 5", "3,item-3,3.5\n4,,\n5,item-5,5.5\n"},
		{"SELECT COUNT(*), COUNT(name), SUM(id), MAX(price) FROM BlobStorage", "1000,800,499500,998.5\n"},
		{"SELECT COUNT(*) FROM BlobStorage WHERE name IS NULL", "200\n"},
		{"SELECT id FROM BlobStorage WHERE name = 'item-3' AND ok AND id < 40", "10\n38\n"},
		{"SELECT _1, small FROM BlobStorage WHERE at >= TO_TIMESTAMP('2024-01-01T16:38:00Z') LIMIT 2", "998,-998\n999,-999\n"},
		{"SELECT MIN(day), MAX(amount) FROM BlobStorage", "2024-01-01T00:00:00Z,999.25\n"},
	}
	for name, props := range files {
		data := writeParquet(t, 1000, 300, props...)
		for _, q := range queries {
			c := run(t, q.query, string(data), Input{Parquet: true}, csvOut)
			if c.data.String() != q.want || len(c.errors) != 0 {
				t.Errorf("%s: %s: %q %v, want %q", name, q.query, c.data.String(), c.errors, q.want)
			}
		}
	}
}

// TestParquetInputErrors: input that is not Parquet, and what is not
// read, end the query with a fatal error record.
func TestParquetInputErrors(t *testing.T) {
	for _, tc := range []struct{ name, data, want string }{
		{"not parquet", "id,name\n1,a\n", "true ParseError @0"},
		{"truncated", string(writeParquet(t, 10, 10)[:40]), "true ParseError @0"},
		{"zstd", string(writeParquet(t, 10, 10, parquet.WithCompression(compress.Codecs.Zstd))), "true ParseError @0"},
	} {
		c := run(t, "SELECT * FROM BlobStorage", tc.data, Input{Parquet: true}, csvOut)
		if got := strings.Join(c.errors, " "); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}

// FuzzParquetInput: whatever the bytes, a Parquet query ends with rows or
// an error record, never a panic.
func FuzzParquetInput(f *testing.F) {
	f.Add(writeParquet(&testing.T{}, 20, 7, parquet.WithCompression(compress.Codecs.Snappy)))
	f.Add(writeParquet(&testing.T{}, 20, 7, parquet.WithDataPageVersion(parquet.DataPageV2), parquet.WithDictionaryDefault(false)))
	q, err := Parse("SELECT * FROM BlobStorage")
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		c := &collect{}
		_ = Run(context.Background(), q, bytes.NewReader(data), int64(len(data)), Input{Parquet: true}, csvOut, c, fixedNow)
	})
}
