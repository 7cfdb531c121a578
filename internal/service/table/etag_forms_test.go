package table_test

import (
	"strings"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/data/aztables"

	"github.com/lazuli-storage/lazuli/internal/check/lazulitest"
)

// TestEntityETagForms pins how If-Match is read on entity writes, as Azure
// answers in Azure/Azurite issue 1229 ("Azure and Storage Emulator return
// 412" for W/"wrong") and Azurite's tests/table/apis/table.entity.issues.test.ts
// ("should allow any valid weak etag", "should reject invalid or strong
// etag"): any weak ETag, W/"..." or w/"...", is compared with the entity's,
// so one that names no timestamp, or a stale one, is 412
// UpdateConditionNotSatisfied; a strong or unquoted value, even the current
// timestamp in strong form, is 400 InvalidInput (the Table service error
// codes page: "The etag value '{0}' specified in one of the request headers
// is not valid.").
func TestEntityETagForms(t *testing.T) {
	e := start(t, lazulitest.Options{InMemory: true})
	tc := e.table(t, "etagforms")
	add, err := tc.AddEntity(e.ctx, mustJSON(t, map[string]any{"PartitionKey": "p", "RowKey": "r", "N": 1}), nil)
	if err != nil {
		t.Fatal(err)
	}
	weak := add.ETag
	update := func(tag azcore.ETag) error {
		_, err := tc.UpdateEntity(e.ctx, mustJSON(t, map[string]any{"PartitionKey": "p", "RowKey": "r", "N": 2}),
			&aztables.UpdateEntityOptions{IfMatch: &tag, UpdateMode: aztables.UpdateModeReplace})
		return err
	}
	strong := azcore.ETag(strings.TrimPrefix(string(weak), "W/"))
	for _, bad := range []azcore.ETag{strong, `"wrong"`, "wrong", `datetime'2015-01-01T23%3A14%3A33.4980000Z'`, `"`, `W/"`} {
		wantCode(t, update(bad), 400, "InvalidInput")
	}
	for _, stale := range []azcore.ETag{`W/"wrong"`, `w/"wrong"`, `W/"datetime'not-a-time'"`,
		`W/"datetime'2015-01-01T23%3A14%3A33.4980000Z'"`, `w/"datetime'2015-01-01T23%3A14%3A33.4980000Z'"`} {
		wantCode(t, update(stale), 412, "UpdateConditionNotSatisfied")
	}
	lower := azcore.ETag("w" + strings.TrimPrefix(string(weak), "W"))
	if err := update(lower); err != nil {
		t.Fatalf("current ETag with a lower-case w/: %v", err)
	}
	wantCode(t, update(weak), 412, "UpdateConditionNotSatisfied")
}
