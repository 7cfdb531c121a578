package table_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/data/aztables"
	"github.com/lazuli-storage/lazuli/internal/check/lazulitest"
)

func TestEntityLifecycle(t *testing.T) {
	e := start(t, lazulitest.Options{InMemory: true})
	tc := e.table(t, "people")
	ent := map[string]any{"PartitionKey": "smith", "RowKey": "o'brien", "Age": 42, "City": "Oslo"}
	added, err := tc.AddEntity(e.ctx, mustJSON(t, ent), nil)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(added.ETag), `W/"datetime'`) || !strings.Contains(string(added.ETag), "%3A") {
		t.Fatalf("ETag %q is not the service's weak datetime form", added.ETag)
	}
	_, err = tc.AddEntity(e.ctx, mustJSON(t, ent), nil)
	wantCode(t, err, 409, "EntityAlreadyExists")

	got, err := tc.GetEntity(e.ctx, "smith", "o'brien", nil)
	if err != nil {
		t.Fatal(err)
	}
	if got.ETag != added.ETag {
		t.Fatalf("GetEntity ETag %q, insert gave %q", got.ETag, added.ETag)
	}
	m := decode(t, got.Value)
	if m["Age"].(float64) != 42 || m["City"] != "Oslo" || m["RowKey"] != "o'brien" {
		t.Fatalf("entity %s", got.Value)
	}

	// Replace with the current ETag drops City; a stale ETag is refused.
	upd, err := tc.UpdateEntity(e.ctx, mustJSON(t, map[string]any{"PartitionKey": "smith", "RowKey": "o'brien", "Age": 43}),
		&aztables.UpdateEntityOptions{IfMatch: &got.ETag, UpdateMode: aztables.UpdateModeReplace})
	if err != nil {
		t.Fatal(err)
	}
	if upd.ETag == got.ETag {
		t.Fatal("ETag did not change on update")
	}
	_, err = tc.UpdateEntity(e.ctx, mustJSON(t, map[string]any{"PartitionKey": "smith", "RowKey": "o'brien", "Age": 44}),
		&aztables.UpdateEntityOptions{IfMatch: &got.ETag, UpdateMode: aztables.UpdateModeMerge})
	wantCode(t, err, 412, "UpdateConditionNotSatisfied")

	// Merge adds a property and keeps the rest.
	if _, err := tc.UpdateEntity(e.ctx, mustJSON(t, map[string]any{"PartitionKey": "smith", "RowKey": "o'brien", "Pet": "cat"}),
		&aztables.UpdateEntityOptions{IfMatch: &upd.ETag, UpdateMode: aztables.UpdateModeMerge}); err != nil {
		t.Fatal(err)
	}
	got, _ = tc.GetEntity(e.ctx, "smith", "o'brien", nil)
	m = decode(t, got.Value)
	if m["Age"].(float64) != 43 || m["Pet"] != "cat" || m["City"] != nil {
		t.Fatalf("after replace and merge: %s", got.Value)
	}

	// Update with If-Match on a missing entity is 404; without, an upsert.
	star := azcore.ETagAny
	_, err = tc.UpdateEntity(e.ctx, mustJSON(t, map[string]any{"PartitionKey": "smith", "RowKey": "nobody"}),
		&aztables.UpdateEntityOptions{IfMatch: &star, UpdateMode: aztables.UpdateModeReplace})
	wantCode(t, err, 404, "ResourceNotFound")
	for _, mode := range []aztables.UpdateMode{aztables.UpdateModeMerge, aztables.UpdateModeReplace} {
		if _, err := tc.UpsertEntity(e.ctx, mustJSON(t, map[string]any{"PartitionKey": "smith", "RowKey": "up-" + string(mode), "N": 1}),
			&aztables.UpsertEntityOptions{UpdateMode: mode}); err != nil {
			t.Fatalf("upsert %s: %v", mode, err)
		}
	}

	// Delete: stale ETag 412, current ETag ok, then 404.
	_, err = tc.DeleteEntity(e.ctx, "smith", "o'brien", &aztables.DeleteEntityOptions{IfMatch: &upd.ETag})
	wantCode(t, err, 412, "UpdateConditionNotSatisfied")
	if _, err := tc.DeleteEntity(e.ctx, "smith", "o'brien", &aztables.DeleteEntityOptions{IfMatch: &got.ETag}); err != nil {
		t.Fatal(err)
	}
	_, err = tc.DeleteEntity(e.ctx, "smith", "o'brien", nil)
	wantCode(t, err, 404, "ResourceNotFound")
	_, err = tc.GetEntity(e.ctx, "smith", "o'brien", nil)
	wantCode(t, err, 404, "ResourceNotFound")

	_, err = e.svc.NewClient("nosuchtable").AddEntity(e.ctx, mustJSON(t, ent), nil)
	wantCode(t, err, 404, "TableNotFound")
}

func TestDeleteNeedsIfMatch(t *testing.T) {
	e := start(t, lazulitest.Options{InMemory: true})
	e.table(t, "tone")
	resp, body := e.raw(t, "DELETE", "/tone(PartitionKey='a',RowKey='b')", nil, "")
	if resp.StatusCode != 400 || resp.Header.Get("x-ms-error-code") != "MissingRequiredHeader" {
		t.Fatalf("got %d %s", resp.StatusCode, body)
	}
}

func TestMergeVerbs(t *testing.T) {
	e := start(t, lazulitest.Options{InMemory: true})
	tc := e.table(t, "verbs")
	if _, err := tc.AddEntity(e.ctx, mustJSON(t, map[string]any{"PartitionKey": "p", "RowKey": "r", "A": 1}), nil); err != nil {
		t.Fatal(err)
	}
	h := http.Header{"Content-Type": {"application/json"}, "If-Match": {"*"}}
	resp, body := e.raw(t, "MERGE", "/verbs(PartitionKey='p',RowKey='r')", h, `{"B":2}`)
	if resp.StatusCode != 204 || resp.Header.Get("ETag") == "" {
		t.Fatalf("MERGE: %d %s", resp.StatusCode, body)
	}
	h.Set("X-HTTP-Method", "MERGE")
	resp, body = e.raw(t, "POST", "/verbs(PartitionKey='p',RowKey='r')", h, `{"C":3}`)
	if resp.StatusCode != 204 {
		t.Fatalf("POST X-HTTP-Method MERGE: %d %s", resp.StatusCode, body)
	}
	got, err := tc.GetEntity(e.ctx, "p", "r", nil)
	if err != nil {
		t.Fatal(err)
	}
	m := decode(t, got.Value)
	if m["A"].(float64) != 1 || m["B"].(float64) != 2 || m["C"].(float64) != 3 {
		t.Fatalf("merged entity %s", got.Value)
	}
}

func TestInsertNoContentAndLimits(t *testing.T) {
	e := start(t, lazulitest.Options{InMemory: true})
	e.table(t, "limits")
	h := http.Header{"Content-Type": {"application/json"}, "Prefer": {"return-no-content"}}
	resp, body := e.raw(t, "POST", "/limits", h, `{"PartitionKey":"p","RowKey":"r1","X":"y"}`)
	if resp.StatusCode != 204 || resp.Header.Get("Preference-Applied") != "return-no-content" || resp.Header.Get("ETag") == "" {
		t.Fatalf("no-content insert: %d %v %s", resp.StatusCode, resp.Header, body)
	}
	many := `{"PartitionKey":"p","RowKey":"r2"`
	for i := 0; i < 253; i++ {
		many += `,"P` + strings.Repeat("x", i%5) + string(rune('a'+i%26)) + itoa(i) + `":1`
	}
	many += "}"
	cases := []struct {
		body, code string
	}{
		{many, "TooManyProperties"},
		{`{"PartitionKey":"p","RowKey":"r3","Big":"` + strings.Repeat("x", 32*1024+1) + `"}`, "PropertyValueTooLarge"},
		{`{"PartitionKey":"p","RowKey":"r4","1bad":1}`, "PropertyNameInvalid"},
		{`{"PartitionKey":"p","RowKey":"r5","` + strings.Repeat("n", 256) + `":1}`, "PropertyNameTooLong"},
		{`{"PartitionKey":"p","RowKey":"a/b"}`, "OutOfRangeInput"},
		{`{"PartitionKey":"p#","RowKey":"r"}`, "OutOfRangeInput"},
		{`{"PartitionKey":"p","RowKey":"` + strings.Repeat("k", 513) + `"}`, "OutOfRangeInput"},
		{`{"RowKey":"r6"}`, "PropertiesNeedValue"},
		{`{"PartitionKey":"p","RowKey":"r7","X":1,"X":2}`, "DuplicatePropertiesSpecified"},
		{`{"PartitionKey":"p","RowKey":"r8","X@odata.type":"Edm.Int64","X":"notanumber"}`, "InvalidInput"},
		{`not json`, "InvalidInput"},
	}
	for _, c := range cases {
		resp, body := e.raw(t, "POST", "/limits", http.Header{"Content-Type": {"application/json"}}, c.body)
		if resp.StatusCode != 400 || resp.Header.Get("x-ms-error-code") != c.code {
			t.Errorf("%.60s: got %d %s, want 400 %s", c.body, resp.StatusCode, body, c.code)
		}
	}
	// Several large properties exceed the 1 MiB entity limit.
	big := `{"PartitionKey":"p","RowKey":"r9"`
	for i := 0; i < 20; i++ {
		big += `,"B` + itoa(i) + `":"` + strings.Repeat("z", 30000) + `"`
	}
	big += "}"
	resp, body = e.raw(t, "POST", "/limits", http.Header{"Content-Type": {"application/json"}}, big)
	if resp.StatusCode != 400 || resp.Header.Get("x-ms-error-code") != "EntityTooLarge" {
		t.Errorf("1 MiB limit: %d %.200s", resp.StatusCode, body)
	}
}

func itoa(i int) string {
	const digits = "0123456789"
	if i < 10 {
		return digits[i : i+1]
	}
	return itoa(i/10) + digits[i%10:i%10+1]
}
