package table_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/lazuli-storage/lazuli/internal/check/lazulitest"
)

// typedBody is an entity with every EDM type, special doubles included.
const typedBody = `{"PartitionKey":"p","RowKey":"r1",
"Str":"héllo \"q\"",
"Bin@odata.type":"Edm.Binary","Bin":"AAEC/w==",
"Flag":true,
"When@odata.type":"Edm.DateTime","When":"2020-01-02T03:04:05.1234567Z",
"Dbl":1.5,
"Whole@odata.type":"Edm.Double","Whole":2,
"Nan@odata.type":"Edm.Double","Nan":"NaN",
"Inf@odata.type":"Edm.Double","Inf":"Infinity",
"NInf@odata.type":"Edm.Double","NInf":"-Infinity",
"Id@odata.type":"Edm.Guid","Id":"C9DA6455-213D-42C9-9A79-3E9149A57833",
"I32":7,
"I64@odata.type":"Edm.Int64","I64":"9007199254740993"}`

// want lists, per property, the JSON value and its annotation at each level
// (nometadata, minimalmetadata, fullmetadata; "" for none).
var typedWant = []struct {
	name, value string
	ann         [3]string
}{
	{"Str", `"héllo \"q\""`, [3]string{"", "", ""}},
	{"Bin", `"AAEC/w=="`, [3]string{"", "Edm.Binary", "Edm.Binary"}},
	{"Flag", `true`, [3]string{"", "", ""}},
	{"When", `"2020-01-02T03:04:05.1234567Z"`, [3]string{"", "Edm.DateTime", "Edm.DateTime"}},
	{"Dbl", `1.5`, [3]string{"", "", "Edm.Double"}},
	{"Whole", `2.0`, [3]string{"", "", "Edm.Double"}},
	{"Nan", `"NaN"`, [3]string{"", "Edm.Double", "Edm.Double"}},
	{"Inf", `"Infinity"`, [3]string{"", "Edm.Double", "Edm.Double"}},
	{"NInf", `"-Infinity"`, [3]string{"", "Edm.Double", "Edm.Double"}},
	{"Id", `"c9da6455-213d-42c9-9a79-3e9149a57833"`, [3]string{"", "Edm.Guid", "Edm.Guid"}},
	{"I32", `7`, [3]string{"", "", ""}},
	{"I64", `"9007199254740993"`, [3]string{"", "Edm.Int64", "Edm.Int64"}},
}

var levels = []string{"nometadata", "minimalmetadata", "fullmetadata"}

func getRaw(t *testing.T, e *env, path, level string) map[string]json.RawMessage {
	t.Helper()
	resp, body := e.raw(t, "GET", path, http.Header{"Accept": {"application/json;odata=" + level}}, "")
	if resp.StatusCode != 200 {
		t.Fatalf("GET %s: %d %s", path, resp.StatusCode, body)
	}
	if !strings.Contains(resp.Header.Get("Content-Type"), "odata="+level) {
		t.Fatalf("Content-Type %q for %s", resp.Header.Get("Content-Type"), level)
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal([]byte(body), &m); err != nil {
		t.Fatalf("%s: %v", body, err)
	}
	return m
}

func TestEDMRoundTripAllLevels(t *testing.T) {
	e := start(t, lazulitest.Options{InMemory: true})
	e.table(t, "types")
	resp, body := e.raw(t, "POST", "/types", http.Header{"Content-Type": {"application/json"}}, typedBody)
	if resp.StatusCode != 201 {
		t.Fatalf("insert: %d %s", resp.StatusCode, body)
	}
	for li, level := range levels {
		m := getRaw(t, e, "/types(PartitionKey='p',RowKey='r1')", level)
		checkTyped(t, level, li, m)
		// $format overrides Accept.
		resp, body := e.raw(t, "GET", "/types(PartitionKey='p',RowKey='r1')?$format="+url.QueryEscape("application/json;odata="+level),
			http.Header{"Accept": {"application/json;odata=fullmetadata"}}, "")
		if resp.StatusCode != 200 || !strings.Contains(resp.Header.Get("Content-Type"), level) {
			t.Fatalf("$format %s: %d %s", level, resp.StatusCode, body)
		}
	}
	// The fullmetadata rendering, sent back as a new entity, reads back the
	// same: every type survives the trip.
	full := getRaw(t, e, "/types(PartitionKey='p',RowKey='r1')", "fullmetadata")
	full["RowKey"] = json.RawMessage(`"r2"`)
	back, _ := json.Marshal(full)
	resp, body = e.raw(t, "POST", "/types", http.Header{"Content-Type": {"application/json"}}, string(back))
	if resp.StatusCode != 201 {
		t.Fatalf("re-insert: %d %s", resp.StatusCode, body)
	}
	checkTyped(t, "fullmetadata", 2, getRaw(t, e, "/types(PartitionKey='p',RowKey='r2')", "fullmetadata"))
	// Minimal metadata round trip as well.
	minimal := getRaw(t, e, "/types(PartitionKey='p',RowKey='r1')", "minimalmetadata")
	minimal["RowKey"] = json.RawMessage(`"r3"`)
	back, _ = json.Marshal(minimal)
	if resp, body := e.raw(t, "POST", "/types", http.Header{"Content-Type": {"application/json"}}, string(back)); resp.StatusCode != 201 {
		t.Fatalf("re-insert minimal: %d %s", resp.StatusCode, body)
	}
	checkTyped(t, "minimalmetadata", 1, getRaw(t, e, "/types(PartitionKey='p',RowKey='r3')", "minimalmetadata"))
}

func checkTyped(t *testing.T, level string, li int, m map[string]json.RawMessage) {
	t.Helper()
	for _, w := range typedWant {
		if got := string(m[w.name]); got != w.value {
			t.Errorf("%s %s = %s, want %s", level, w.name, got, w.value)
		}
		ann := string(m[w.name+"@odata.type"])
		want := ""
		if w.ann[li] != "" {
			want = `"` + w.ann[li] + `"`
		}
		if ann != want {
			t.Errorf("%s %s@odata.type = %s, want %s", level, w.name, ann, want)
		}
	}
	_, hasEtag := m["odata.etag"]
	_, hasMeta := m["odata.metadata"]
	_, hasID := m["odata.id"]
	if hasEtag != (li > 0) || hasMeta != (li > 0) || hasID != (li == 2) {
		t.Errorf("%s: odata.etag %v, odata.metadata %v, odata.id %v", level, hasEtag, hasMeta, hasID)
	}
	if string(m["Timestamp"]) == "" || len(string(m["Timestamp"])) != len(`"2020-01-02T03:04:05.1234567Z"`) {
		t.Errorf("%s: Timestamp %s", level, m["Timestamp"])
	}
}
