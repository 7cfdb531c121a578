package blob_test

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

// TestQueryCRLFRecords replays azure-sdk-for-python's recorded quick query
// tests (azure-storage-blob tests/test_quick_query.py) over CSV whose lines
// end in "\r\n": test_quick_query_readall sends no serialization (CSV with
// "\n" records both ways) and reads back the data with every "\r\n" turned
// into "\n"; test_quick_query_readall_with_serialization_setting reads it
// with RecordSeparator "\n" and writes ";"-separated, "'"-quoted,
// "."-terminated records whose last fields carry no "\r" (CONVERTED_CSV_DATA
// ends its records "FALSE."). The "\r" is part of the line end, not of the
// last field.
func TestQueryCRLFRecords(t *testing.T) {
	e := start(t)
	c := e.container("crlf")
	data := "Service,Package,Version,RepoPath,MissingDocs\r\n" +
		"App Configuration,azure-data-appconfiguration,1,appconfiguration,FALSE\r\n" +
		"Event Hubs\r\n" +
		"Event Hubs - Azure Storage CheckpointStore,azure-messaging-eventhubs-checkpointstore-blob,1.0.1,eventhubs,FALSE\r\n"
	e.upload(c, "data.csv", []byte(data))
	run := func(body string) string {
		t.Helper()
		resp := e.raw(http.MethodPost, "crlf/data.csv?comp=query", nil, []byte(body))
		if resp.StatusCode != http.StatusOK {
			msg, _ := io.ReadAll(resp.Body)
			t.Fatalf("%d %s", resp.StatusCode, msg)
		}
		var out strings.Builder
		for _, r := range decodeQueryResponse(t, resp.Body) {
			if r.kind == "error" {
				t.Fatalf("error record %s: %s", r.name, r.data)
			}
			out.Write(r.data)
		}
		return out.String()
	}
	plain := `<?xml version="1.0" encoding="utf-8"?><QueryRequest><QueryType>SQL</QueryType>` +
		`<Expression>SELECT * from BlobStorage</Expression></QueryRequest>`
	if got, want := run(plain), strings.ReplaceAll(data, "\r\n", "\n"); got != want {
		t.Errorf("default serialization:\n got %q\nwant %q", got, want)
	}
	in := `<Type>delimited</Type><DelimitedTextConfiguration><ColumnSeparator>,</ColumnSeparator><FieldQuote>"</FieldQuote>` +
		"<RecordSeparator>\n</RecordSeparator><EscapeChar></EscapeChar><HasHeaders>false</HasHeaders></DelimitedTextConfiguration>"
	out := `<Type>delimited</Type><DelimitedTextConfiguration><ColumnSeparator>;</ColumnSeparator><FieldQuote>'</FieldQuote>` +
		`<RecordSeparator>.</RecordSeparator><EscapeChar>\</EscapeChar><HasHeaders>false</HasHeaders></DelimitedTextConfiguration>`
	want := "Service;Package;Version;RepoPath;MissingDocs.App Configuration;azure-data-appconfiguration;1;appconfiguration;FALSE." +
		"Event Hubs.Event Hubs - Azure Storage CheckpointStore;azure-messaging-eventhubs-checkpointstore-blob;'1.0.1';eventhubs;FALSE."
	if got := run(string(queryBody("SELECT * from BlobStorage", in, out))); got != want {
		t.Errorf("converted:\n got %q\nwant %q", got, want)
	}
}
