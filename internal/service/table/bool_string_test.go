package table_test

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/lazuli-storage/lazuli/internal/check/lazulitest"
)

// TestBooleanAnnotatedString pins that a property annotated Edm.Boolean may
// carry the strings "true" and "false": the JavaScript SDK sends
// {value: "false", type: "Boolean"} as "P":"false","P@odata.type":"Edm.Boolean",
// which the service accepts (Azure/Azurite#1259, microsoft/AzureStorageExplorer#5299:
// "a valid scenario with Azure"). It is stored and read back as a Boolean.
// Any other string is 400 InvalidInput.
func TestBooleanAnnotatedString(t *testing.T) {
	e := start(t, lazulitest.Options{InMemory: true})
	tc := e.table(t, "boolstr")
	body := `{"PartitionKey":"p","RowKey":"r","F":"false","F@odata.type":"Edm.Boolean","T":"true","T@odata.type":"Edm.Boolean"}`
	resp, text := e.raw(t, "POST", "/boolstr", http.Header{"Content-Type": {"application/json"}}, body)
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("insert: %d %s", resp.StatusCode, text)
	}
	got, err := tc.GetEntity(e.ctx, "p", "r", nil)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(got.Value, &m); err != nil {
		t.Fatal(err)
	}
	if m["F"] != false || m["T"] != true {
		t.Fatalf("read back %s", got.Value)
	}
	bad := `{"PartitionKey":"p","RowKey":"r2","B":"yes","B@odata.type":"Edm.Boolean"}`
	if resp, text := e.raw(t, "POST", "/boolstr", http.Header{"Content-Type": {"application/json"}}, bad); resp.StatusCode != 400 ||
		resp.Header.Get("x-ms-error-code") != "InvalidInput" {
		t.Fatalf("\"yes\" as Edm.Boolean: %d %s", resp.StatusCode, text)
	}
}
