package console_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/data/aztables"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azqueue"
	"github.com/chromedp/chromedp"

	"github.com/lazuli-storage/lazuli/lazulitest"
)

// openPage navigates to a console route and lets its confirm dialogs pass,
// as a user who answers OK.
func openPage(srv *lazulitest.Server, route string) chromedp.Action {
	return chromedp.Tasks{chromedp.Navigate(srv.AdminURL + "/#/" + route), chromedp.Evaluate(`window.confirm = () => true`, nil)}
}

// createIn types name into the create form of one kind on the accounts
// page (c, q, t, s) and sends it.
func createIn(kind, name string) chromedp.Action {
	box := `.account[data-account="` + lazulitest.Account + `"] [data-kind="` + kind + `"]`
	return chromedp.Tasks{chromedp.SetValue(box+` form.create input`, name), chromedp.Click(box + ` form.create button`)}
}

// answered waits for the notice of an action's own answer. The lists
// refresh every two seconds on requests of their own, so one may show a
// change before the action's answer reaches the page; that answer then
// resets the form, and would empty a name the next step had typed.
func answered(ctx context.Context, notice string) chromedp.Action {
	return waitText(ctx, "#notice.ok", notice)
}

// Containers, queues, tables and shares are created and deleted from the
// accounts page through each service, which checks the names: a bad one
// shows the service's error code and message.
func TestConsoleCreatesAndDeletes(t *testing.T) {
	ctx := browser(t)
	srv := lazulitest.Start(t, lazulitest.Options{})
	names := map[string]string{"c": "made-container", "q": "made-queue", "t": "madetable", "s": "made-share"}
	if err := chromedp.Run(ctx, openPage(srv, ""), waitText(ctx, "#view", "Containers")); err != nil {
		t.Fatal(err)
	}
	for kind, name := range names {
		if err := chromedp.Run(ctx, createIn(kind, name), answered(ctx, "created "+name), waitText(ctx, `[data-kind="`+kind+`"] .names`, name)); err != nil {
			t.Fatalf("create %s %s: %v", kind, name, err)
		}
	}
	if !exists(t, srv, names) {
		t.Fatal("what the page created is not there")
	}
	screenshot(t, ctx, "console-overview")

	for kind, want := range map[string]string{"c": "400 InvalidResourceName: The specified resource name contains invalid characters.",
		"t": "400 InvalidResourceName", "q": "400 InvalidResourceName", "s": "400 InvalidResourceName"} {
		if err := chromedp.Run(ctx, createIn(kind, "Bad_Name!"), waitText(ctx, "#notice.error", want)); err != nil {
			var notice string
			_ = chromedp.Run(ctx, chromedp.Text("#notice", &notice))
			t.Fatalf("a bad %s name: notice %q, want %q", kind, notice, want)
		}
		if err := chromedp.Run(ctx, chromedp.Evaluate(`document.getElementById("notice").textContent = ""`, nil)); err != nil {
			t.Fatal(err)
		}
	}

	for kind, name := range names {
		if err := chromedp.Run(ctx, chromedp.Click(`[data-kind="`+kind+`"] button[data-remove="`+name+`"]`), answered(ctx, "deleted "+name),
			poll(`!document.querySelector('[data-kind="`+kind+`"] .names').innerText.includes('`+name+`')`)); err != nil {
			t.Fatalf("delete %s %s: %v", kind, name, err)
		}
	}
	if leftovers(t, srv, names) {
		t.Fatal("what the page deleted is still there")
	}
}

// exists reports whether every resource of names is there, read through
// the SDKs.
func exists(t *testing.T, srv *lazulitest.Server, names map[string]string) bool {
	t.Helper()
	return countResources(t, srv, names) == len(names)
}

func leftovers(t *testing.T, srv *lazulitest.Server, names map[string]string) bool {
	t.Helper()
	return countResources(t, srv, names) != 0
}

func countResources(t *testing.T, srv *lazulitest.Server, names map[string]string) int {
	t.Helper()
	ctx := context.Background()
	n := 0
	if _, err := srv.BlobClient(t).ServiceClient().NewContainerClient(names["c"]).GetProperties(ctx, nil); err == nil {
		n++
	}
	if _, err := srv.QueueClient(t).NewQueueClient(names["q"]).GetProperties(ctx, nil); err == nil {
		n++
	}
	if _, err := srv.TableClient(t).NewClient(names["t"]).GetAccessPolicy(ctx, nil); err == nil {
		n++
	}
	if _, err := srv.FileClient(t).NewShareClient(names["s"]).GetProperties(ctx, nil); err == nil {
		n++
	}
	return n
}

// rowCount counts a blob listing's rows on the page.
const rowCount = `document.querySelectorAll('#blobs tr[data-blob]').length`

// A container of many blobs is shown as folders (delimiter '/'), a page of
// 100 at a time through the service's NextMarker, and filtered by name.
func TestConsoleFoldersAndPages(t *testing.T) {
	ctx := browser(t)
	srv := lazulitest.Start(t, lazulitest.Options{Services: []string{"blob"}})
	bc := srv.BlobClient(t)
	bg := context.Background()
	if _, err := bc.CreateContainer(bg, "big", nil); err != nil {
		t.Fatal(err)
	}
	names := []string{"top.txt", "a/b/deep.txt"}
	for i := range 250 {
		names = append(names, fmt.Sprintf("many/item-%03d", i))
	}
	for _, name := range names {
		if _, err := bc.UploadBuffer(bg, "big", name, []byte(name), nil); err != nil {
			t.Fatal(err)
		}
	}
	var text string
	if err := chromedp.Run(ctx, openPage(srv, "c/devstoreaccount1/big"), waitText(ctx, "#blobs", "top.txt"), chromedp.Text("#blobs", &text)); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text, "many/") || !strings.Contains(text, "a/") || strings.Contains(text, "item-") {
		t.Errorf("the root shows folders and its own blobs only:\n%s", text)
	}
	var treeHidden bool
	if err := chromedp.Run(ctx, chromedp.Evaluate(`document.getElementById('tree').hidden`, &treeHidden)); err != nil || !treeHidden {
		t.Errorf("an account without a hierarchical namespace shows a directory tree (hidden %v, %v)", treeHidden, err)
	}
	screenshot(t, ctx, "console-folders")
	var counts []int
	if err := chromedp.Run(ctx, chromedp.Click(`#blobs tr.folder a[href$="/many"]`), waitText(ctx, "#crumbs", "many"), waitText(ctx, "#blobs", "item-000")); err != nil {
		t.Fatal(err)
	}
	for page := 1; page <= 3; page++ {
		var n int
		var next bool
		if err := chromedp.Run(ctx, waitText(ctx, ".pager", fmt.Sprintf("page %d", page)),
			waitText(ctx, "#blobs", fmt.Sprintf("item-%03d", (page-1)*100)), chromedp.Evaluate(rowCount, &n),
			chromedp.Evaluate(`!document.querySelector('.pager button[data-page="1"]').disabled`, &next)); err != nil {
			t.Fatalf("page %d: %v", page, err)
		}
		counts = append(counts, n)
		if next != (page < 3) {
			t.Errorf("page %d: next page enabled %v", page, next)
		}
		if page < 3 {
			if err := chromedp.Run(ctx, chromedp.Click(`.pager button[data-page="1"]`)); err != nil {
				t.Fatal(err)
			}
		}
	}
	if fmt.Sprint(counts) != "[100 100 50]" {
		t.Errorf("rows per page %v, want [100 100 50]", counts)
	}
	if err := chromedp.Run(ctx, chromedp.Click(`.pager button[data-page="-1"]`), waitText(ctx, ".pager", "page 2"), waitText(ctx, "#blobs", "item-100")); err != nil {
		t.Fatalf("previous page: %v", err)
	}
	var n int
	if err := chromedp.Run(ctx, chromedp.SetValue(`#name-filter input`, "item-12"), chromedp.Click(`#name-filter button`),
		waitText(ctx, ".pager", "page 1"), poll(rowCount+` === 10`), chromedp.Evaluate(rowCount, &n)); err != nil {
		t.Fatalf("filter by name: %v (%d rows)", err, n)
	}
}

// Messages are added, peeked, dequeued and deleted from a queue's page
// through the Queue service.
func TestConsoleQueueMessages(t *testing.T) {
	ctx := browser(t)
	srv := lazulitest.Start(t, lazulitest.Options{Services: []string{"queue"}})
	qc := srv.QueueClient(t).NewQueueClient("work")
	bg := context.Background()
	if _, err := qc.Create(bg, nil); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Run(ctx, openPage(srv, "q/devstoreaccount1/work"), waitText(ctx, "#rows", "no messages"),
		chromedp.SetValue(`#put-form input[name=text]`, "hello <world>"), chromedp.Click(`#put-form button`),
		waitText(ctx, "#messages", "hello <world>")); err != nil {
		t.Fatalf("add a message: %v", err)
	}
	peek, err := qc.PeekMessage(bg, nil)
	if err != nil || len(peek.Messages) != 1 || *peek.Messages[0].MessageText != "hello <world>" {
		t.Fatalf("the service does not hold the message the page added: %+v %v", peek, err)
	}
	if err := chromedp.Run(ctx, chromedp.Click(`#peek`), waitText(ctx, "#received", "Peeked 1 message"),
		chromedp.Click(`#dequeue`), waitText(ctx, "#received", "Got 1 message"), waitText(ctx, "#messages", "no")); err != nil {
		t.Fatalf("peek and get: %v", err)
	}
	screenshot(t, ctx, "console-queue")
	if err := chromedp.Run(ctx, chromedp.Click(`#received button[data-delete-message]`), waitText(ctx, "#rows", "no messages")); err != nil {
		t.Fatalf("delete the message got: %v", err)
	}
	props, err := qc.GetProperties(bg, nil)
	if err != nil || *props.ApproximateMessagesCount != 0 {
		t.Fatalf("messages left after deleting from the page: %v %v", props.ApproximateMessagesCount, err)
	}
	if _, err := qc.EnqueueMessage(bg, "later", &azqueue.EnqueueMessageOptions{VisibilityTimeout: to.Ptr(int32(60))}); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Run(ctx, chromedp.Click(`#peek`), waitText(ctx, "#received", "Peeked 0 message")); err != nil {
		t.Fatalf("peek shows only visible messages: %v", err)
	}
}

// propRow is the editor's row of the property name.
func propRow(name string) string {
	return `[...document.querySelectorAll('#entity-props .prop')].find(r => r.querySelector('[name=name]').value === ` + quote(name) + `)`
}

// Entities with each EDM type are added, found with the query builder,
// edited under the entity's ETag and deleted from a table's page.
func TestConsoleTableEntities(t *testing.T) {
	ctx := browser(t)
	srv := lazulitest.Start(t, lazulitest.Options{Services: []string{"table"}})
	bg := context.Background()
	if _, err := srv.TableClient(t).CreateTable(bg, "stock", nil); err != nil {
		t.Fatal(err)
	}
	tbl := srv.TableClient(t).NewClient("stock")
	props := [][3]string{{"Name", "Edm.String", "widget"}, {"Count", "Edm.Int32", "7"}, {"Big", "Edm.Int64", "12345678901"},
		{"Price", "Edm.Double", "2.5"}, {"Ok", "Edm.Boolean", "true"}, {"When", "Edm.DateTime", "2030-01-02T03:04:05Z"},
		{"Id", "Edm.Guid", "c9da6455-213d-42c9-9a79-3e9149a57833"}, {"Blob", "Edm.Binary", "aGk="}}
	tasks := chromedp.Tasks{openPage(srv, "t/devstoreaccount1/stock"), waitText(ctx, "#entity-rows", "no entities"),
		chromedp.SetValue(`#entity-form input[name=pk]`, "p1"), chromedp.SetValue(`#entity-form input[name=rk]`, "r1")}
	for i, p := range props {
		row := fmt.Sprintf(`#entity-props .prop:nth-child(%d) `, i+1)
		tasks = append(tasks, chromedp.Click(`#add-prop`), chromedp.SetValue(row+`[name=name]`, p[0]),
			chromedp.SetValue(row+`[name=type]`, p[1]), chromedp.SetValue(row+`[name=value]`, p[2]))
	}
	tasks = append(tasks, chromedp.Click(`#save-entity`), waitText(ctx, "#entities", "widget"))
	if err := chromedp.Run(ctx, tasks); err != nil {
		t.Fatalf("add an entity: %v", err)
	}
	got, err := tbl.GetEntity(bg, "p1", "r1", &aztables.GetEntityOptions{Format: to.Ptr(aztables.MetadataFormatFull)})
	if err != nil {
		t.Fatal(err)
	}
	var e map[string]any
	_ = json.Unmarshal(got.Value, &e)
	for _, p := range props {
		annotation, _ := e[p[0]+"@odata.type"].(string)
		if want := map[string]string{"Edm.String": "", "Edm.Int32": "", "Edm.Boolean": ""}; annotation != p[1] && !(want[p[1]] == "" && annotation == "") {
			t.Errorf("%s stored as %q, want %s", p[0], annotation, p[1])
		}
	}
	if e["Big"] != "12345678901" || e["Price"] != 2.5 || e["Ok"] != true || e["Count"] != float64(7) || e["Blob"] != "aGk=" {
		t.Errorf("stored entity %v", e)
	}
	if _, err := tbl.AddEntity(bg, []byte(`{"PartitionKey":"p2","RowKey":"r2","Name":"gadget","Big@odata.type":"Edm.Int64","Big":"5"}`), nil); err != nil {
		t.Fatal(err)
	}

	var filter string
	if err := chromedp.Run(ctx, chromedp.SetValue(`#query-builder [name=property]`, "Big"), chromedp.SetValue(`#query-builder [name=op]`, "gt"),
		chromedp.SetValue(`#query-builder [name=type]`, "Edm.Int64"), chromedp.SetValue(`#query-builder [name=value]`, "100"),
		chromedp.Click(`#query-builder button`), chromedp.Value(`#filter-form input`, &filter), chromedp.Click(`#filter-form button`),
		waitText(ctx, "#entities", "widget"), poll(`!document.querySelector('#entities').innerText.includes('gadget')`)); err != nil {
		t.Fatalf("query builder: %v", err)
	}
	if filter != "Big gt 100L" {
		t.Errorf("built filter %q, want Big gt 100L", filter)
	}
	screenshot(t, ctx, "console-table")
	if err := chromedp.Run(ctx, chromedp.SetValue(`#query-builder [name=type]`, "Edm.Binary"), chromedp.SetValue(`#query-builder [name=value]`, "!!"),
		chromedp.Click(`#query-builder button`), waitText(ctx, "#notice.error", "!! is not base64")); err != nil {
		t.Fatalf("a Binary condition that is not base64: %v", err)
	}

	// Edit: the form holds each property with its type; a change made
	// meanwhile makes the save the service's 412.
	if err := chromedp.Run(ctx, chromedp.Click(`#entities button[data-edit="0"]`), waitText(ctx, "#entity-title", "Edit entity p1 / r1"),
		poll(propRow("Big")+`.querySelector('[name=type]').value === 'Edm.Int64'`)); err != nil {
		var dbg string
		_ = chromedp.Run(ctx, chromedp.Evaluate(`document.getElementById("entity-form").outerHTML + document.getElementById("notice").outerHTML`, &dbg))
		t.Fatalf("edit: %v\n%s", err, dbg)
	}
	if _, err := tbl.UpdateEntity(bg, []byte(`{"PartitionKey":"p1","RowKey":"r1","Name":"changed elsewhere"}`), &aztables.UpdateEntityOptions{UpdateMode: aztables.UpdateModeMerge}); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Run(ctx, chromedp.Click(`#save-entity`), waitText(ctx, "#notice.error", "412 UpdateConditionNotSatisfied")); err != nil {
		t.Fatalf("a save over a changed entity: %v", err)
	}
	if err := chromedp.Run(ctx, waitText(ctx, "#entities", "changed elsewhere"), chromedp.Click(`#entities button[data-edit="0"]`),
		waitText(ctx, "#entity-title", "Edit entity"), chromedp.Evaluate(propRow("Name")+`.querySelector('[name=value]').value = 'renamed'`, nil),
		chromedp.Click(`#save-entity`), waitText(ctx, "#entities", "renamed")); err != nil {
		t.Fatalf("edit and save: %v", err)
	}
	got, err = tbl.GetEntity(bg, "p1", "r1", nil)
	if err != nil || !strings.Contains(string(got.Value), `"Name":"renamed"`) || !strings.Contains(string(got.Value), `"Big@odata.type":"Edm.Int64"`) {
		t.Fatalf("after the page's edit: %s %v", got.Value, err)
	}
	if err := chromedp.Run(ctx, chromedp.Click(`#entities button[data-delete-entity="0"]`), waitText(ctx, "#entity-rows", "no entities")); err != nil {
		t.Fatalf("delete: %v", err)
	}
	if _, err := tbl.GetEntity(bg, "p1", "r1", nil); err == nil {
		t.Fatal("the entity deleted from the page is still there")
	}
}
