// Package quickquery runs Query Blob Contents: the SQL dialect of Azure's
// "Query acceleration SQL language reference" over a blob read as
// delimited text (CSV), JSON or Parquet (parquet.go), with results written as delimited text,
// JSON or an Arrow IPC stream (arrow.go) inside the Avro object container
// the service answers with (resultData, progress, error and end records).
//
// The language: SELECT * | expressions | aggregates (COUNT, AVG or AVERAGE,
// MIN, MAX, SUM) FROM BlobStorage (or BlobStorage[*].path for JSON) with
// WHERE and LIMIT; fields by name (quoted names match case-sensitively),
// by ordinal (_1) in CSV, and by member and index paths in JSON; the
// operators = != <> < <= > >= + - * / % || AND OR NOT, IS [NOT] NULL,
// IS [NOT] MISSING, [NOT] BETWEEN, [NOT] IN, [NOT] LIKE [ESCAPE]; CAST to
// INT, FLOAT, STRING, TIMESTAMP, BOOLEAN; NULLIF, COALESCE, CHAR_LENGTH,
// CHARACTER_LENGTH, LOWER, UPPER, SUBSTRING, TRIM, DATE_ADD, DATE_DIFF,
// EXTRACT, TO_STRING, TO_TIMESTAMP, UTCNOW; and sys.split(n).
//
// Values read from CSV are strings; operators convert them as the
// language's type precedence says (a string beside a number is read as a
// number). A record whose values do not convert is reported as a non-fatal
// error and skipped; input that is not in the declared format ends the
// query with a fatal error, as the service does.
package quickquery
