package queue_test

import (
	"net/http"
	"os"
	"testing"

	"github.com/lazuli-storage/lazuli/internal/check/lazulitest"
	"github.com/lazuli-storage/lazuli/internal/service/queue"
)

// TestQueueStoredAsJSONServesTheSameACL: a queue whose record the JSON
// format wrote answers Get Queue ACL as it did, and a Set Queue Metadata
// stores it again in the current format without losing its policies.
func TestQueueStoredAsJSONServesTheSameACL(t *testing.T) {
	e := start(t, lazulitest.Options{InMemory: true})
	stored, err := os.ReadFile("testdata/queue_record_v1.json")
	if err != nil {
		t.Fatal(err)
	}
	st := e.in.App.Store
	if err := queue.StoreQueueRecord(st, lazulitest.Account, "older", stored); err != nil {
		t.Fatal(err)
	}
	getACL := func() {
		t.Helper()
		if resp, body := e.raw(http.MethodGet, "/older?comp=acl", "", nil); resp.StatusCode != http.StatusOK || body != queue.GoldenQueueACL {
			t.Fatalf("Get Queue ACL: %s\n%s\nwant\n%s", resp.Status, body, queue.GoldenQueueACL)
		}
	}
	getACL()
	if resp, body := e.raw(http.MethodPut, "/older?comp=metadata", "", http.Header{"X-Ms-Meta-Beta": {"2"}}); resp.StatusCode != http.StatusNoContent {
		t.Fatalf("Set Queue Metadata: %s %s", resp.Status, body)
	}
	if v, err := queue.QueueRecord(st, lazulitest.Account, "older"); err != nil || len(v) == 0 || v[0] != queue.QueueFormat {
		t.Fatalf("stored again as %q (%v)", v, err)
	}
	getACL()
}
