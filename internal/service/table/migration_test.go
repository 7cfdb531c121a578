package table_test

import (
	"net/http"
	"os"
	"testing"

	"github.com/lazuli-storage/lazuli/internal/check/lazulitest"
	"github.com/lazuli-storage/lazuli/internal/service/table"
)

// TestTableStoredAsJSONServesTheSameACL: a table whose record the JSON
// format wrote is listed and answers Get Table ACL as it did, and a Set
// Table ACL with the same policies stores it again in the current format,
// which answers the same.
func TestTableStoredAsJSONServesTheSameACL(t *testing.T) {
	e := start(t, lazulitest.Options{InMemory: true})
	stored, err := os.ReadFile("testdata/table_record_v1.json")
	if err != nil {
		t.Fatal(err)
	}
	st := e.in.App.Store
	if err := table.StoreTableRecord(st, lazulitest.Account, "MyTable", stored); err != nil {
		t.Fatal(err)
	}
	if resp, body := e.raw(t, http.MethodGet, "/Tables('MyTable')", http.Header{"Accept": {"application/json;odata=nometadata"}}, ""); resp.StatusCode != http.StatusOK {
		t.Fatalf("Get Table: %s %s", resp.Status, body)
	}
	getACL := func() string {
		t.Helper()
		resp, body := e.raw(t, http.MethodGet, "/MyTable?comp=acl", nil, "")
		if resp.StatusCode != http.StatusOK || body != table.GoldenTableACL {
			t.Fatalf("Get Table ACL: %s\n%s\nwant\n%s", resp.Status, body, table.GoldenTableACL)
		}
		return body
	}
	acl := getACL()
	if resp, body := e.raw(t, http.MethodPut, "/MyTable?comp=acl", nil, acl); resp.StatusCode != http.StatusNoContent {
		t.Fatalf("Set Table ACL: %s %s", resp.Status, body)
	}
	if v, err := table.TableRecord(st, lazulitest.Account, "MyTable"); err != nil || len(v) == 0 || v[0] != table.TableFormat {
		t.Fatalf("stored again as %q (%v)", v, err)
	}
	getACL()
}
