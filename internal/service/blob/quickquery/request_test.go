package quickquery

import (
	"fmt"
	"strings"
	"testing"

	"github.com/lazuli-storage/lazuli/internal/rule/azerr"
)

func TestParseRequest(t *testing.T) {
	const head = `<?xml version="1.0" encoding="UTF-8"?><QueryRequest><QueryType>SQL</QueryType><Expression>SELECT * FROM BlobStorage</Expression>`
	// The body the JavaScript SDK sends for {kind: "csv", recordSeparator:
	// "\n", hasHeaders: true}: its XML serializer drops the newline.
	js := head + `<InputSerialization><Format><Type>delimited</Type><DelimitedTextConfiguration><ColumnSeparator>,</ColumnSeparator>` +
		`<FieldQuote/><RecordSeparator></RecordSeparator><EscapeChar/><HasHeaders>true</HasHeaders></DelimitedTextConfiguration></Format></InputSerialization></QueryRequest>`
	req, err := ParseRequest(strings.NewReader(js))
	if err != nil {
		t.Fatal(err)
	}
	want := CSV{ColumnSeparator: ",", RecordSeparator: "\n", HasHeaders: true}
	if req.Input.JSON || req.Input.CSV != want {
		t.Errorf("input %+v, want CSV %+v", req.Input, want)
	}
	if req.Output.JSON || req.Output.CSV != DefaultCSV {
		t.Errorf("output %+v, want the default CSV", req.Output)
	}
	jsonOut := head + `<OutputSerialization><Format><Type>json</Type><JsonTextConfiguration><RecordSeparator>;</RecordSeparator></JsonTextConfiguration></Format></OutputSerialization></QueryRequest>`
	if req, err := ParseRequest(strings.NewReader(jsonOut)); err != nil || !req.Output.JSON || req.Output.Sep != ";" {
		t.Errorf("JSON output: %+v %v", req, err)
	}
	// The body the JavaScript SDK sends for {kind: "arrow", schema: [...]}.
	arrow := head + arrowOut(`<Field><Type>int64</Type><Name>id</Name></Field>`+
		`<Field><Type>decimal</Type><Name>price</Name><Precision>10</Precision><Scale>2</Scale></Field>`+
		`<Field><Type>timestamp[ms]</Type><Name>at</Name></Field>`)
	req, err = ParseRequest(strings.NewReader(arrow))
	wantFields := []ArrowField{{Name: "id", Type: ArrowInt64}, {Name: "price", Type: ArrowDecimal, Precision: 10, Scale: 2},
		{Name: "at", Type: ArrowTimestamp}}
	if err != nil || fmt.Sprint(req.Output.Arrow) != fmt.Sprint(wantFields) {
		t.Errorf("Arrow output: %+v %v", req, err)
	}
	parquetIn := head + `<InputSerialization><Format><Type>parquet</Type></Format></InputSerialization></QueryRequest>`
	if req, err := ParseRequest(strings.NewReader(parquetIn)); err != nil || !req.Input.Parquet {
		t.Errorf("Parquet input: %+v %v", req, err)
	}
	cases := []struct {
		body, code string
	}{
		{"not xml", azerr.InvalidXmlDocument},
		{`<QueryRequest><QueryType>SQL</QueryType></QueryRequest>`, azerr.InvalidXmlDocument},
		{`<QueryRequest><QueryType>NoSQL</QueryType><Expression>SELECT * FROM BlobStorage</Expression></QueryRequest>`, azerr.InvalidXmlNodeValue},
		{head + `<InputSerialization><Format><Type>delimited</Type><DelimitedTextConfiguration><ColumnSeparator>;;</ColumnSeparator></DelimitedTextConfiguration></Format></InputSerialization></QueryRequest>`, azerr.InvalidXmlNodeValue},
		{head + `<InputSerialization><Format><Type>avro</Type></Format></InputSerialization></QueryRequest>`, azerr.InvalidXmlNodeValue},
		{head + `<OutputSerialization><Format><Type>arrow</Type></Format></OutputSerialization></QueryRequest>`, azerr.InvalidXmlNodeValue},
		{head + `<OutputSerialization><Format><Type>parquet</Type></Format></OutputSerialization></QueryRequest>`, azerr.InvalidXmlNodeValue},
		{head + arrowOut(`<Field><Type>int32</Type><Name>a</Name></Field>`), azerr.InvalidXmlNodeValue},
		{head + arrowOut(`<Field><Type>decimal</Type><Name>a</Name></Field>`), azerr.InvalidXmlNodeValue},
		{head + arrowOut(`<Field><Type>decimal</Type><Name>a</Name><Precision>39</Precision></Field>`), azerr.InvalidXmlNodeValue},
		{head + arrowOut(`<Field><Type>decimal</Type><Name>a</Name><Precision>5</Precision><Scale>6</Scale></Field>`), azerr.InvalidXmlNodeValue},
		{head + `<InputSerialization><Format><Type>arrow</Type></Format></InputSerialization></QueryRequest>`, azerr.InvalidXmlNodeValue},
		{strings.Replace(head, "SELECT * FROM BlobStorage", "SELECT * FROM Elsewhere", 1) + `</QueryRequest>`, azerr.InvalidInput},
	}
	for _, c := range cases {
		if _, err := ParseRequest(strings.NewReader(c.body)); !azerr.Is(err, c.code) {
			t.Errorf("%s: %v, want %s", c.body, err, c.code)
		}
	}
}

// arrowOut is an OutputSerialization of Arrow with the given fields.
func arrowOut(fields string) string {
	return `<OutputSerialization><Format><Type>arrow</Type><ArrowConfiguration><Schema>` + fields +
		`</Schema></ArrowConfiguration></Format></OutputSerialization></QueryRequest>`
}
