package blob_test

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"net/http"
	"os"
	"strings"
	"testing"
)

// TestQueryArrowReplay sends recorded Query Blob Contents requests with
// Arrow output over HTTP and compares the answer, record by record and
// the Arrow bytes byte for byte, with Azure's recorded answer (kept in
// quickquery/testdata/azure, which names the recordings).
func TestQueryArrowReplay(t *testing.T) {
	e := start(t)
	c := e.container("arrow-replay")
	cases := []struct {
		name, blob, request, response string
	}{
		{
			// azure-sdk-for-js recording_query_should_work_with_arrow_output_configurations.json:
			// the schema, an empty record batch, then the fatal error.
			"fatal", "100,200,300,400\n150,250,350,450\n",
			`<?xml version="1.0" encoding="UTF-8" standalone="yes"?><QueryRequest><QueryType>SQL</QueryType>` +
				`<Expression>select * from BlobStorage</Expression><OutputSerialization><Format><Type>arrow</Type>` +
				`<ArrowConfiguration><Schema><Field><Type>decimal</Type><Name>name</Name><Precision>4</Precision><Scale>2</Scale></Field></Schema>` +
				`</ArrowConfiguration></Format></OutputSerialization></QueryRequest>`,
			"js_arrow_decimal.b64",
		},
		{
			// azure-sdk-for-python test_quick_query.test_quick_query_output_in_arrow_format.yaml.
			"one row", "100,200,300,400\n300,400,500,600\n",
			"<?xml version='1.0' encoding='utf-8'?>\n<QueryRequest><QueryType>SQL</QueryType><Expression>SELECT _2 from BlobStorage\n" +
				"WHERE _1 &gt; 250</Expression><OutputSerialization><Format><Type>arrow</Type><ArrowConfiguration><Schema>" +
				"<Field><Type>decimal</Type><Name>abc</Name><Precision>4</Precision><Scale>2</Scale></Field></Schema>" +
				"</ArrowConfiguration></Format></OutputSerialization></QueryRequest>",
			"python_arrow_decimal.b64",
		},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			name := fmt.Sprintf("blob%d.csv", i)
			e.upload(c, name, []byte(tc.blob))
			resp := e.raw(http.MethodPost, "arrow-replay/"+name+"?comp=query", nil, []byte(tc.request))
			defer resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("query: %d", resp.StatusCode)
			}
			got := decodeQueryResponse(t, resp.Body)
			text, err := os.ReadFile("quickquery/testdata/azure/" + tc.response)
			if err != nil {
				t.Fatal(err)
			}
			recorded, err := base64.StdEncoding.DecodeString(strings.Join(strings.Fields(string(text)), ""))
			if err != nil {
				t.Fatal(err)
			}
			want := decodeQueryResponse(t, bytes.NewReader(recorded))
			if len(got) != len(want) {
				t.Fatalf("%d records %+v, Azure answered %d: %+v", len(got), got, len(want), want)
			}
			for j := range got {
				if fmt.Sprintf("%+v", got[j]) != fmt.Sprintf("%+v", want[j]) {
					t.Errorf("record %d is %+v, Azure answered %+v", j, got[j], want[j])
				}
			}
		})
	}
}
