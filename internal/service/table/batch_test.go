package table_test

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/data/aztables"
	"github.com/lazuli-storage/lazuli/internal/check/lazulitest"
)

func action(t *testing.T, kind aztables.TransactionType, pk, rk string, props map[string]any) aztables.TransactionAction {
	t.Helper()
	ent := map[string]any{"PartitionKey": pk, "RowKey": rk}
	for k, v := range props {
		ent[k] = v
	}
	return aztables.TransactionAction{ActionType: kind, Entity: mustJSON(t, ent)}
}

// batchFailure asserts the transaction failed the service's way: a 202 whose
// body holds the failing status and an error message starting "<index>:".
func batchFailure(t *testing.T, err error, index int, code string) {
	t.Helper()
	var re *azcore.ResponseError
	if !errors.As(err, &re) {
		t.Fatalf("want a failed transaction, got %v", err)
	}
	body, _ := io.ReadAll(re.RawResponse.Body)
	text := string(body)
	if re.StatusCode != http.StatusAccepted || !strings.Contains(text, `"code":"`+code+`"`) ||
		!strings.Contains(text, fmt.Sprintf(`"value":"%d:`, index)) {
		t.Fatalf("status %d, body %s; want 202 with %s at index %d", re.StatusCode, text, code, index)
	}
}

func TestBatchCommitsAll(t *testing.T) {
	e := start(t, lazulitest.Options{InMemory: true})
	tc := e.table(t, "batched")
	if _, err := tc.AddEntity(e.ctx, mustJSON(t, map[string]any{"PartitionKey": "p", "RowKey": "old", "V": 1}), nil); err != nil {
		t.Fatal(err)
	}
	if _, err := tc.AddEntity(e.ctx, mustJSON(t, map[string]any{"PartitionKey": "p", "RowKey": "gone"}), nil); err != nil {
		t.Fatal(err)
	}
	actions := []aztables.TransactionAction{
		action(t, aztables.TransactionTypeAdd, "p", "new1", map[string]any{"V": 1}),
		action(t, aztables.TransactionTypeUpdateMerge, "p", "old", map[string]any{"W": 2}),
		action(t, aztables.TransactionTypeInsertReplace, "p", "new2", map[string]any{"V": 3}),
		action(t, aztables.TransactionTypeInsertMerge, "p", "new3", map[string]any{"V": 4}),
		action(t, aztables.TransactionTypeDelete, "p", "gone", nil),
	}
	if _, err := tc.SubmitTransaction(e.ctx, actions, nil); err != nil {
		t.Fatal(err)
	}
	got, _ := listAll(t, e, tc, nil)
	var rows []string
	for _, m := range got {
		rows = append(rows, m["RowKey"].(string))
	}
	if strings.Join(rows, ",") != "new1,new2,new3,old" {
		t.Fatalf("rows after batch: %v", rows)
	}
	old, _ := tc.GetEntity(e.ctx, "p", "old", nil)
	if m := decode(t, old.Value); m["V"].(float64) != 1 || m["W"].(float64) != 2 {
		t.Fatalf("merged row: %s", old.Value)
	}
}

func TestBatchFailureLeavesTableUnchanged(t *testing.T) {
	e := start(t, lazulitest.Options{InMemory: true})
	tc := e.table(t, "atomic")
	if _, err := tc.AddEntity(e.ctx, mustJSON(t, map[string]any{"PartitionKey": "p", "RowKey": "exists"}), nil); err != nil {
		t.Fatal(err)
	}
	before, _ := listAll(t, e, tc, nil)
	_, err := tc.SubmitTransaction(e.ctx, []aztables.TransactionAction{
		action(t, aztables.TransactionTypeAdd, "p", "a", nil),
		action(t, aztables.TransactionTypeAdd, "p", "exists", nil),
		action(t, aztables.TransactionTypeAdd, "p", "b", nil),
	}, nil)
	batchFailure(t, err, 1, "EntityAlreadyExists")
	after, _ := listAll(t, e, tc, nil)
	if len(after) != len(before) {
		t.Fatalf("failed batch changed the table: %d -> %d entities", len(before), len(after))
	}

	_, err = tc.SubmitTransaction(e.ctx, []aztables.TransactionAction{
		action(t, aztables.TransactionTypeAdd, "p", "a", nil),
		action(t, aztables.TransactionTypeAdd, "q", "b", nil),
	}, nil)
	batchFailure(t, err, 1, "CommandsInBatchActOnDifferentPartitions")

	_, err = tc.SubmitTransaction(e.ctx, []aztables.TransactionAction{
		action(t, aztables.TransactionTypeAdd, "p", "a", nil),
		action(t, aztables.TransactionTypeUpdateMerge, "p", "a", nil),
	}, nil)
	batchFailure(t, err, 1, "InvalidDuplicateRow")

	var many []aztables.TransactionAction
	for i := 0; i < 101; i++ {
		many = append(many, action(t, aztables.TransactionTypeAdd, "p", fmt.Sprintf("m%03d", i), nil))
	}
	_, err = tc.SubmitTransaction(e.ctx, many, nil)
	batchFailure(t, err, 100, "InvalidInput")

	star := azcore.ETagAny
	del := action(t, aztables.TransactionTypeDelete, "p", "missing", nil)
	del.IfMatch = &star
	_, err = tc.SubmitTransaction(e.ctx, []aztables.TransactionAction{action(t, aztables.TransactionTypeAdd, "p", "z", nil), del}, nil)
	batchFailure(t, err, 1, "ResourceNotFound")

	final, _ := listAll(t, e, tc, nil)
	if len(final) != len(before) {
		t.Fatalf("failed batches changed the table: %d -> %d entities", len(before), len(final))
	}
}

func TestBatchSingleQuery(t *testing.T) {
	e := start(t, lazulitest.Options{InMemory: true})
	tc := e.table(t, "bqtable")
	if _, err := tc.AddEntity(e.ctx, mustJSON(t, map[string]any{"PartitionKey": "p", "RowKey": "r", "V": 5}), nil); err != nil {
		t.Fatal(err)
	}
	base := strings.TrimSuffix(e.in.TableURL, "/")
	body := "--batch_1\r\nContent-Type: application/http\r\nContent-Transfer-Encoding: binary\r\n\r\n" +
		"GET " + base + "/bqtable(PartitionKey='p',RowKey='r') HTTP/1.1\r\nAccept: application/json;odata=nometadata\r\n\r\n\r\n--batch_1--\r\n"
	resp, out := e.raw(t, "POST", "/$batch", http.Header{"Content-Type": {"multipart/mixed; boundary=batch_1"}}, body)
	if resp.StatusCode != 202 || !strings.Contains(out, "HTTP/1.1 200 OK") || !strings.Contains(out, `"V":5`) {
		t.Fatalf("batch query: %d %s", resp.StatusCode, out)
	}
}

// TestAnonymousBatchRefusedWhole: an entity group transaction without
// credentials is refused as a whole with 403, not answered 202 with every
// operation failing inside it.
func TestAnonymousBatchRefusedWhole(t *testing.T) {
	e := start(t, lazulitest.Options{InMemory: true})
	if _, err := e.svc.CreateTable(e.ctx, "anonbatch", nil); err != nil {
		t.Fatal(err)
	}
	anon, err := aztables.NewClientWithNoCredential(e.in.TableURL+"anonbatch", nil)
	if err != nil {
		t.Fatal(err)
	}
	_, err = anon.SubmitTransaction(e.ctx, []aztables.TransactionAction{
		action(t, aztables.TransactionTypeAdd, "p", "r", nil)}, nil)
	var re *azcore.ResponseError
	if !errors.As(err, &re) || re.StatusCode != http.StatusForbidden || re.ErrorCode != "AuthorizationFailure" {
		t.Fatalf("anonymous batch: %v", err)
	}
}

// TestBatchPartsAuthorizedByTheirRows: each operation of a batch needs what
// it would need on its own: an upsert add and update, an update with
// If-Match update only.
func TestBatchPartsAuthorizedByTheirRows(t *testing.T) {
	e := start(t, lazulitest.Options{InMemory: true})
	e.table(t, "partsauth")
	now := e.in.Clock.Now()
	upsert := []aztables.TransactionAction{action(t, aztables.TransactionTypeAdd, "p", "r1", nil),
		action(t, aztables.TransactionTypeInsertReplace, "p", "r2", nil)}
	_, err := sasClient(t, e, "partsauth", "a", now, nil).SubmitTransaction(e.ctx, upsert, nil)
	batchFailure(t, err, 1, "AuthorizationPermissionMismatch")
	if _, err := sasClient(t, e, "partsauth", "au", now, nil).SubmitTransaction(e.ctx, upsert, nil); err != nil {
		t.Fatalf("upsert with a and u: %v", err)
	}
	updater := sasClient(t, e, "partsauth", "u", now, nil)
	// The SDK sends If-Match only when the action names an ETag; without
	// one an update is an upsert on the wire.
	merge := action(t, aztables.TransactionTypeUpdateMerge, "p", "r1", map[string]any{"v": 1})
	merge.IfMatch = to.Ptr(azcore.ETagAny)
	if _, err := updater.SubmitTransaction(e.ctx, []aztables.TransactionAction{merge}, nil); err != nil {
		t.Fatalf("merge with u: %v", err)
	}
	_, err = updater.SubmitTransaction(e.ctx, []aztables.TransactionAction{
		action(t, aztables.TransactionTypeInsertMerge, "p", "r3", nil)}, nil)
	batchFailure(t, err, 0, "AuthorizationPermissionMismatch")
}
