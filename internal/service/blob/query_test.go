package blob_test

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
)

// avroRecord is one decoded record of a Query Blob Contents response.
type avroRecord struct {
	kind  string // resultData, error, progress, end
	data  []byte
	fatal bool
	name  string
	desc  string
	a, b  int64 // bytesScanned and totalBytes; position; totalBytes
}

// decodeQueryResponse reads the Avro object container a query answers with,
// checking the header, the schema's record names and every sync marker.
func decodeQueryResponse(t *testing.T, body io.Reader) []avroRecord {
	t.Helper()
	r := bufio.NewReader(body)
	magic := make([]byte, 4)
	if _, err := io.ReadFull(r, magic); err != nil || string(magic) != "Obj\x01" {
		t.Fatalf("not an Avro container: %q %v", magic, err)
	}
	long := func() int64 {
		u, err := binary.ReadUvarint(r)
		if err != nil {
			t.Fatalf("avro long: %v", err)
		}
		return int64(u>>1) ^ -int64(u&1)
	}
	bytesOf := func() []byte {
		b := make([]byte, long())
		if _, err := io.ReadFull(r, b); err != nil {
			t.Fatalf("avro bytes: %v", err)
		}
		return b
	}
	meta := map[string]string{}
	for n := long(); n != 0; n = long() {
		for i := int64(0); i < n; i++ {
			k := string(bytesOf())
			meta[k] = string(bytesOf())
		}
	}
	var schema []struct{ Name string }
	if err := json.Unmarshal([]byte(meta["avro.schema"]), &schema); err != nil || len(schema) != 4 {
		t.Fatalf("schema %q: %v", meta["avro.schema"], err)
	}
	kinds := []string{"resultData", "error", "progress", "end"}
	for i, s := range schema {
		if s.Name != "com.microsoft.azure.storage.queryBlobContents."+kinds[i] {
			t.Fatalf("schema branch %d is %s", i, s.Name)
		}
	}
	sync := make([]byte, 16)
	io.ReadFull(r, sync)
	var out []avroRecord
	for {
		if _, err := r.Peek(1); err == io.EOF {
			return out
		}
		count := long()
		long() // block size
		for i := int64(0); i < count; i++ {
			rec := avroRecord{kind: kinds[long()]}
			switch rec.kind {
			case "resultData":
				rec.data = bytesOf()
			case "error":
				flag, _ := r.ReadByte()
				rec.fatal, rec.name = flag == 1, string(bytesOf())
				rec.desc = string(bytesOf())
				rec.a = long()
			case "progress":
				rec.a, rec.b = long(), long()
			case "end":
				rec.a = long()
			}
			out = append(out, rec)
		}
		marker := make([]byte, 16)
		if _, err := io.ReadFull(r, marker); err != nil || !bytes.Equal(marker, sync) {
			t.Fatalf("bad sync marker after a block: %v", err)
		}
	}
}

func queryBody(expression, input, output string) []byte {
	return []byte(`<?xml version="1.0" encoding="utf-8"?><QueryRequest><QueryType>SQL</QueryType><Expression>` +
		expression + `</Expression><InputSerialization><Format>` + input + `</Format></InputSerialization>` +
		`<OutputSerialization><Format>` + output + `</Format></OutputSerialization></QueryRequest>`)
}

const (
	csvWithHeader = `<Type>delimited</Type><DelimitedTextConfiguration><ColumnSeparator>,</ColumnSeparator><FieldQuote>"</FieldQuote>` +
		"<RecordSeparator>\n</RecordSeparator><EscapeChar></EscapeChar><HasHeaders>true</HasHeaders></DelimitedTextConfiguration>"
	jsonFormat = "<Type>json</Type><JsonTextConfiguration><RecordSeparator>\n</RecordSeparator></JsonTextConfiguration>"
)

// TestQueryBlobContents runs queries over a 10 MiB CSV blob and a JSON blob
// through the REST API and reads the Avro stream back.
func TestQueryBlobContents(t *testing.T) {
	e := start(t)
	c := e.container("query")
	var csv bytes.Buffer
	csv.WriteString("id,name,score\n")
	rows := 0
	for csv.Len() < 10<<20 {
		fmt.Fprintf(&csv, "%d,player-%d,%d\n", rows, rows, rows%1000)
		rows++
	}
	e.upload(c, "scores.csv", csv.Bytes())
	e.upload(c, "items.json", []byte(`{"id":1,"kind":"a"}`+"\n"+`{"id":2,"kind":"b"}`+"\n"+`{"id":3,"kind":"a"}`+"\n"))

	query := func(blob string, body []byte) (*http.Response, []avroRecord) {
		resp := e.raw(http.MethodPost, "query/"+blob+"?comp=query", nil, body)
		if resp.StatusCode != http.StatusOK {
			msg, _ := io.ReadAll(resp.Body)
			t.Fatalf("%s: %d %s", blob, resp.StatusCode, msg)
		}
		return resp, decodeQueryResponse(t, resp.Body)
	}
	resultOf := func(records []avroRecord) string {
		var b strings.Builder
		for _, r := range records {
			b.Write(r.data)
		}
		return b.String()
	}

	resp, records := query("scores.csv", queryBody("SELECT COUNT(*) FROM BlobStorage WHERE score >= 990", csvWithHeader, csvWithHeader))
	if ct := resp.Header.Get("Content-Type"); ct != "avro/binary" {
		t.Errorf("Content-Type %q", ct)
	}
	if resp.Header.Get("ETag") == "" || resp.Header.Get("X-Ms-Blob-Type") != "BlockBlob" {
		t.Errorf("Get Blob headers missing: %v", resp.Header)
	}
	wantCount := 0
	for i := 0; i < rows; i++ {
		if i%1000 >= 990 {
			wantCount++
		}
	}
	if got := resultOf(records); got != fmt.Sprintf("_1\n%d\n", wantCount) {
		t.Errorf("count: got %q, want %d", got, wantCount)
	}
	last := records[len(records)-1]
	if last.kind != "end" || last.a != int64(csv.Len()) {
		t.Errorf("last record %+v, want end with totalBytes %d", last, csv.Len())
	}
	progress := 0
	for _, r := range records {
		if r.kind == "progress" {
			progress++
			if r.b != int64(csv.Len()) || r.a > r.b {
				t.Errorf("progress %d of %d", r.a, r.b)
			}
		}
	}
	if progress < 2 {
		t.Errorf("%d progress records over 10 MiB, want several", progress)
	}

	_, records = query("scores.csv", queryBody("SELECT name, score FROM BlobStorage WHERE id &lt; 3", csvWithHeader, jsonFormat))
	want := `{"name":"player-0","score":"0"}` + "\n" + `{"name":"player-1","score":"1"}` + "\n" + `{"name":"player-2","score":"2"}` + "\n"
	if got := resultOf(records); got != want {
		t.Errorf("projection: got %q, want %q", got, want)
	}

	_, records = query("items.json", queryBody("SELECT id FROM BlobStorage WHERE kind = 'a'", jsonFormat, jsonFormat))
	if got := resultOf(records); got != `{"id":1}`+"\n"+`{"id":3}`+"\n" {
		t.Errorf("json: got %q", got)
	}

	// CSV read as JSON is a fatal InternalError record, as the service
	// sends (TestQueryFatalErrorOrder replays its recording).
	_, records = query("scores.csv", queryBody("SELECT * FROM BlobStorage", jsonFormat, jsonFormat))
	fatal := false
	for _, r := range records {
		fatal = fatal || (r.kind == "error" && r.fatal && r.name == "InternalError")
	}
	if !fatal {
		t.Errorf("no fatal InternalError in %+v", records)
	}

	for _, bad := range []struct {
		body   []byte
		status int
		code   string
	}{
		{[]byte("<QueryRequest>"), 400, "InvalidXmlDocument"},
		{queryBody("SELECT FROM", csvWithHeader, csvWithHeader), 400, "InvalidInput"},
		{queryBody("SELECT * FROM BlobStorage", "<Type>xml</Type>", csvWithHeader), 400, "InvalidXmlNodeValue"},
		{queryBody("SELECT * FROM BlobStorage", csvWithHeader, "<Type>arrow</Type>"), 400, "InvalidXmlNodeValue"},
	} {
		resp := e.raw(http.MethodPost, "query/scores.csv?comp=query", nil, bad.body)
		if resp.StatusCode != bad.status || resp.Header.Get("X-Ms-Error-Code") != bad.code {
			t.Errorf("%s: %d %s, want %d %s", bad.body, resp.StatusCode, resp.Header.Get("X-Ms-Error-Code"), bad.status, bad.code)
		}
	}
	if resp := e.raw(http.MethodPost, "query/absent.csv?comp=query", nil, queryBody("SELECT * FROM BlobStorage", csvWithHeader, csvWithHeader)); resp.StatusCode != 404 {
		t.Errorf("absent blob: %d", resp.StatusCode)
	}
}
