package table_test

import (
	"strings"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/data/aztables"

	"github.com/lazuli-storage/lazuli/internal/check/lazulitest"
)

// TestEntityETagForms pins how If-Match is read on entity writes. A value
// that is not an entity ETag at all, such as W/"wrong", is 400 InvalidInput:
// the Table service error codes page lists "The etag value '{0}' specified
// in one of the request headers is not valid." under InvalidInput. A
// well-formed ETag, weak (W/"datetime'...'") or strong ("datetime'...'"),
// names a timestamp: the current one matches, a stale one is 412
// UpdateConditionNotSatisfied.
func TestEntityETagForms(t *testing.T) {
	e := start(t, lazulitest.Options{InMemory: true})
	tc := e.table(t, "etagforms")
	add, err := tc.AddEntity(e.ctx, mustJSON(t, map[string]any{"PartitionKey": "p", "RowKey": "r", "N": 1}), nil)
	if err != nil {
		t.Fatal(err)
	}
	weak := add.ETag
	strong := azcore.ETag(strings.TrimPrefix(string(weak), "W/"))
	update := func(tag azcore.ETag) error {
		_, err := tc.UpdateEntity(e.ctx, mustJSON(t, map[string]any{"PartitionKey": "p", "RowKey": "r", "N": 2}),
			&aztables.UpdateEntityOptions{IfMatch: &tag, UpdateMode: aztables.UpdateModeMerge})
		return err
	}
	for _, bad := range []azcore.ETag{`W/"wrong"`, `"wrong"`, `W/"datetime'not-a-time'"`} {
		wantCode(t, update(bad), 400, "InvalidInput")
	}
	if err := update(strong); err != nil {
		t.Fatalf("current ETag in strong form: %v", err)
	}
	wantCode(t, update(weak), 412, "UpdateConditionNotSatisfied")
	wantCode(t, update(strong), 412, "UpdateConditionNotSatisfied")
}
