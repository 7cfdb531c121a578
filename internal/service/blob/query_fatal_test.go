package blob_test

import (
	"fmt"
	"net/http"
	"testing"
)

// TestQueryFatalErrorOrder replays azure-sdk-for-python
// sdk/storage/azure-storage-blob/tests/recordings/test_quick_query.test_quick_query_readall_with_fatal_error_handler.yaml:
// JSON records with unquoted names. The recorded Avro answer is an empty
// resultData record, then the fatal error {fatal: true, name:
// "InternalError", description: "Internal parse exception.", position: 0},
// then progress 43 of 43 and end 43.
func TestQueryFatalErrorOrder(t *testing.T) {
	e := start(t)
	c := e.container("fatal")
	e.upload(c, "bad.json", []byte("{name: owner}\n{name2: owner2}\n{name: owner}"))
	output := `<Type>delimited</Type><DelimitedTextConfiguration><ColumnSeparator>;</ColumnSeparator><FieldQuote>'</FieldQuote>` +
		`<RecordSeparator>.</RecordSeparator><EscapeChar>\</EscapeChar><HasHeaders>false</HasHeaders></DelimitedTextConfiguration>`
	resp := e.raw(http.MethodPost, "fatal/bad.json?comp=query", nil, queryBody("SELECT * from BlobStorage", jsonFormat, output))
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("query: %d", resp.StatusCode)
	}
	var got []string
	for _, r := range decodeQueryResponse(t, resp.Body) {
		switch r.kind {
		case "resultData":
			got = append(got, fmt.Sprintf("data %q", r.data))
		case "error":
			got = append(got, fmt.Sprintf("error %v %s %s @%d", r.fatal, r.name, r.desc, r.a))
		default:
			got = append(got, fmt.Sprintf("%s %d %d", r.kind, r.a, r.b))
		}
	}
	want := `[data "" error true InternalError Internal parse exception. @0 progress 43 43 end 43 0]`
	if fmt.Sprint(got) != want {
		t.Errorf("records %v\nwant %s", got, want)
	}
}
