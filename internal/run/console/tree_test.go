package console_test

import (
	"context"
	"strings"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob"
	"github.com/chromedp/chromedp"

	"github.com/lazuli-storage/lazuli/internal/check/testhost"
	"github.com/lazuli-storage/lazuli/internal/run/config"
	"github.com/lazuli-storage/lazuli/lazulitest"
)

// treeText is the tree's text, one directory a line.
const treeText = `[...document.querySelectorAll('#tree a')].map(a => a.innerText).join(' ')`

// toggle opens or closes the directory of prefix in the tree.
func toggle(prefix string) chromedp.Action {
	return chromedp.Click(`#tree button[data-toggle="` + prefix + `"]`)
}

// In an account with a hierarchical namespace a container's directories,
// virtual ones (names with '/') and empty ones (blobs with
// hdi_isfolder=true, as the Data Lake API creates them), show as a tree
// whose directories open in place and open in the listing with a click.
func TestConsoleDirectoryTree(t *testing.T) {
	ctx := browser(t)
	srv := lazulitest.Start(t, lazulitest.Options{Services: []string{"blob"}, Host: &testhost.Options{
		Configure: func(c *config.Config) { c.HNSAccounts = []string{lazulitest.Account} }}})
	bc := srv.BlobClient(t)
	bg := context.Background()
	if _, err := bc.CreateContainer(bg, "lake", nil); err != nil {
		t.Fatal(err)
	}
	folder := &azblob.UploadBufferOptions{Metadata: map[string]*string{"hdi_isfolder": to.Ptr("true")}}
	for name, opts := range map[string]*azblob.UploadBufferOptions{
		"raw/2026/01/data.csv": nil, "raw/2026/02/data.csv": nil, "curated/report.txt": nil, "top.txt": nil,
		"raw": folder, "raw/2026": folder, "raw/2026/03": folder, "empty": folder,
	} {
		data := []byte(name)
		if opts != nil {
			data = nil
		}
		if _, err := bc.UploadBuffer(bg, "lake", name, data, opts); err != nil {
			t.Fatal(err)
		}
	}
	var root, text string
	if err := chromedp.Run(ctx, openPage(srv, "c/devstoreaccount1/lake"), waitText(ctx, "#tree", "raw"),
		chromedp.Evaluate(treeText, &root), chromedp.Text("#blobs", &text)); err != nil {
		t.Fatal(err)
	}
	if root != "lake curated empty raw" {
		t.Errorf("the tree at the root: %q", root)
	}
	// The empty directory is a folder of the listing, not a blob.
	if !strings.Contains(text, "empty/") || strings.Count(text, "raw/") != 1 || !strings.Contains(text, "top.txt") {
		t.Errorf("the root's listing:\n%s", text)
	}
	var opened string
	if err := chromedp.Run(ctx, toggle("raw/"), waitText(ctx, "#tree", "2026"), toggle("raw/2026/"), waitText(ctx, "#tree", "03"),
		chromedp.Evaluate(treeText, &opened)); err != nil {
		t.Fatalf("open raw and raw/2026 in the tree: %v", err)
	}
	if opened != "lake curated empty raw 2026 01 02 03" {
		t.Errorf("the tree opened two levels down: %q", opened)
	}
	screenshot(t, ctx, "console-tree")
	if err := chromedp.Run(ctx, chromedp.Click(`#tree a[href$="/raw/2026/02"]`), waitText(ctx, "#crumbs", "02"),
		waitText(ctx, "#blobs", "data.csv"), waitText(ctx, "#tree a.current", "02"), chromedp.Evaluate(treeText, &opened)); err != nil {
		t.Fatalf("open raw/2026/02 from the tree: %v", err)
	}
	if opened != "lake curated empty raw 2026 01 02 03" {
		t.Errorf("the tree after opening a directory in the listing: %q", opened)
	}
	if err := chromedp.Run(ctx, toggle("raw/"), poll(treeText+` === "lake curated empty raw"`)); err != nil {
		t.Fatalf("close raw: %v", err)
	}
}
