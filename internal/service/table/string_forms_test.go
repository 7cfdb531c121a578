package table_test

import (
	"net/http"
	"testing"

	"github.com/lazuli-storage/lazuli/internal/check/lazulitest"
)

// TestAnnotatedStringForms pins the property values Azurite's suite
// (tests/table/apis/table.entity.azure.data-tables.test.ts, "02. Batch API
// should correctly process LogicApp style update request sequence" and "05.
// Should respect Int32 property as edm string", from Azure/Azurite issue
// 1259) sends as the JavaScript SDK writes them: a string that reads as a
// Boolean or a number stays an Edm.String, annotated or not; an Edm.Int32
// may come as a string holding an integer ("32", "-31") and is stored as
// Int32; "-3.1" as Edm.Int32 is 400.
func TestAnnotatedStringForms(t *testing.T) {
	e := start(t, lazulitest.Options{InMemory: true})
	tc := e.table(t, "strforms")
	json := http.Header{"Content-Type": {"application/json"}, "Prefer": {"return-no-content"}}
	body := `{"PartitionKey":"p","RowKey":"r","testString":"1","T":"true","TS":"true","TS@odata.type":"Edm.String",` +
		`"One":"1","One@odata.type":"Edm.String","int32Prop":"-31","int32Prop@odata.type":"Edm.Int32",` +
		`"prop":"false","prop@odata.type":"Edm.Boolean"}`
	if resp, text := e.raw(t, "POST", "/strforms", json, body); resp.StatusCode != http.StatusNoContent {
		t.Fatalf("insert: %d %s", resp.StatusCode, text)
	}
	merge := http.Header{"Content-Type": {"application/json"}, "If-Match": {"*"}}
	if resp, text := e.raw(t, "MERGE", "/strforms(PartitionKey='p',RowKey='r')", merge,
		`{"PartitionKey":"p","RowKey":"r","testString":"1","sequenceNumber":1}`); resp.StatusCode != http.StatusNoContent {
		t.Fatalf("merge: %d %s", resp.StatusCode, text)
	}
	got, err := tc.GetEntity(e.ctx, "p", "r", nil)
	if err != nil {
		t.Fatal(err)
	}
	m := decode(t, got.Value)
	for name, want := range map[string]any{"testString": "1", "T": "true", "TS": "true", "One": "1", "int32Prop": float64(-31), "prop": false} {
		if m[name] != want {
			t.Errorf("%s read back as %#v, want %#v (%s)", name, m[name], want, got.Value)
		}
	}
	bad := `{"PartitionKey":"p","RowKey":"r2","int32Prop":"-3.1","int32Prop@odata.type":"Edm.Int32"}`
	if resp, text := e.raw(t, "POST", "/strforms", json, bad); resp.StatusCode != http.StatusBadRequest ||
		resp.Header.Get("x-ms-error-code") != "InvalidInput" {
		t.Fatalf("\"-3.1\" as Edm.Int32: %d %s", resp.StatusCode, text)
	}
}
