package console_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/data/aztables"
	"github.com/chromedp/chromedp"

	"github.com/lazuli-storage/lazuli/lazulitest"
)

// pageRows reads the first cell of every row of a listing's table.
func pageRows(table string) string {
	return `[...document.querySelectorAll('` + table + ` tr:has(td)')].map(tr => tr.cells[0].innerText)`
}

// walkPages turns the pages of the listing shown with next page, from
// the first to the last (pages of them), and answers the first cells of
// each page's rows; waitFor(page) is text that shows once that page has
// loaded.
func walkPages(t *testing.T, ctx context.Context, table string, pages int, waitFor func(page int) string) [][]string {
	t.Helper()
	var out [][]string
	for page := 1; page <= pages; page++ {
		var rows []string
		var next bool
		if err := chromedp.Run(ctx, waitText(ctx, ".pager", fmt.Sprintf("page %d", page)),
			waitText(ctx, table, waitFor(page)), chromedp.Evaluate(pageRows(table), &rows),
			chromedp.Evaluate(`!document.querySelector('.pager button[data-page="1"]').disabled`, &next)); err != nil {
			t.Fatalf("page %d: %v", page, err)
		}
		out = append(out, rows)
		if next != (page < pages) {
			t.Errorf("page %d of %d: next page enabled %v", page, pages, next)
		}
		if page < pages {
			if err := chromedp.Run(ctx, chromedp.Click(`.pager button[data-page="1"]`)); err != nil {
				t.Fatal(err)
			}
		}
	}
	return out
}

func sizes(pages [][]string) string {
	var n []int
	for _, p := range pages {
		n = append(n, len(p))
	}
	return fmt.Sprint(n)
}

// A table of more entities than a page holds is read a page of 100 at a
// time through Query Entities' continuation (NextPartitionKey,
// NextRowKey); a filter starts again at the first page.
func TestConsoleTablePages(t *testing.T) {
	ctx := browser(t)
	srv := lazulitest.Start(t, lazulitest.Options{Services: []string{"table"}})
	bg := context.Background()
	tc := srv.TableClient(t)
	if _, err := tc.CreateTable(bg, "big", nil); err != nil {
		t.Fatal(err)
	}
	tbl := tc.NewClient("big")
	for batch := range 3 {
		var actions []aztables.TransactionAction
		for i := batch * 100; i < min(batch*100+100, 250); i++ {
			actions = append(actions, aztables.TransactionAction{ActionType: aztables.TransactionTypeAdd,
				Entity: fmt.Appendf(nil, `{"PartitionKey":"p","RowKey":"r%03d","N":%d}`, i, i)})
		}
		if _, err := tbl.SubmitTransaction(bg, actions, nil); err != nil {
			t.Fatal(err)
		}
	}
	if err := chromedp.Run(ctx, openPage(srv, "t/devstoreaccount1/big")); err != nil {
		t.Fatal(err)
	}
	pages := walkPages(t, ctx, "#entities", 3, func(page int) string { return fmt.Sprintf("r%03d", (page-1)*100) })
	if sizes(pages) != "[100 100 50]" {
		t.Errorf("entities per page %s, want [100 100 50]", sizes(pages))
	}
	if all := slices.Concat(pages...); len(all) != 250 || all[0] != "p" {
		t.Errorf("the pages' rows: %d, first cell %q", len(all), all[0])
	}
	var n int
	if err := chromedp.Run(ctx, chromedp.Click(`.pager button[data-page="-1"]`), waitText(ctx, ".pager", "page 2"),
		waitText(ctx, "#entities", "r100"),
		chromedp.SetValue(`#filter-form input`, "N lt 5"), chromedp.Click(`#filter-form button`),
		waitText(ctx, ".pager", "page 1"), poll(`document.querySelectorAll('#entities tr:has(td)').length === 5`),
		chromedp.Evaluate(`document.querySelectorAll('#entities tr:has(td)').length`, &n)); err != nil {
		t.Fatalf("previous page, then a filter: %v (%d rows)", err, n)
	}
	screenshot(t, ctx, "console-table-pages")
}

// A queue of more messages than a page holds is shown a page of 100 at a
// time, every message once.
func TestConsoleQueuePages(t *testing.T) {
	ctx := browser(t)
	srv := lazulitest.Start(t, lazulitest.Options{Services: []string{"queue"}})
	bg := context.Background()
	q := srv.QueueClient(t).NewQueueClient("busy")
	if _, err := q.Create(bg, nil); err != nil {
		t.Fatal(err)
	}
	for i := range 150 {
		if _, err := q.EnqueueMessage(bg, fmt.Sprintf("msg-%03d", i), nil); err != nil {
			t.Fatal(err)
		}
	}
	if err := chromedp.Run(ctx, openPage(srv, "q/devstoreaccount1/busy")); err != nil {
		t.Fatal(err)
	}
	pages := walkPages(t, ctx, "#messages", 2, func(int) string { return "msg-" })
	if sizes(pages) != "[100 50]" {
		t.Errorf("messages per page %s, want [100 50]", sizes(pages))
	}
	ids := slices.Concat(pages...)
	slices.Sort(ids)
	if len(slices.Compact(ids)) != 150 {
		t.Errorf("the pages show %d distinct messages, want 150", len(ids))
	}
	var text string
	if err := chromedp.Run(ctx, chromedp.Click(`.pager button[data-page="-1"]`), waitText(ctx, ".pager", "page 1"),
		chromedp.Text(".pager", &text)); err != nil || !strings.Contains(text, "page 1") {
		t.Fatalf("previous page: %v %q", err, text)
	}
}
