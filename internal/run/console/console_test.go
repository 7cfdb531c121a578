package console_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/lease"
	filelease "github.com/Azure/azure-sdk-for-go/sdk/storage/azfile/lease"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azqueue"
	"github.com/chromedp/chromedp"

	"github.com/lazuli-storage/lazuli/lazulitest"
)

// browser starts headless Chromium with extra options, or skips when
// there is none. Its context lasts until shortly before the test binary's
// deadline (go test -timeout) rather than a fixed time: on two cores at a
// load of 25 Chromium took 28 to 37 s to start and the accounts page's
// create-and-delete test up to 72 s of the 90 s it was given, where an
// idle machine runs it in 5. Ending a little before the deadline lets a
// wait that never ends fail naming its step, and the cleanups run.
func browser(t *testing.T, extra ...chromedp.ExecAllocatorOption) context.Context {
	t.Helper()
	path := os.Getenv("LAZULI_CHROMIUM")
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if path != "" {
			break
		}
		path, _ = exec.LookPath(name)
	}
	if path == "" {
		t.Skip("no Chromium to drive (install Debian's chromium or set LAZULI_CHROMIUM)")
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(path), chromedp.NoSandbox,
		chromedp.WindowSize(1400, 900), chromedp.Flag("disable-gpu", true))
	opts = append(opts, extra...)
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelCtx := chromedp.NewContext(alloc)
	ctx, cancelTimeout := untilDeadline(t, ctx)
	t.Cleanup(func() { cancelTimeout(); cancelCtx(); cancelAlloc() })
	return ctx
}

// cleanupMargin is the time a test whose wait never ends keeps, before
// the binary's deadline, to report which wait it was and close Chromium.
const cleanupMargin = 15 * time.Second

// untilDeadline is ctx ending cleanupMargin before the test binary's
// deadline, or when cancelled if it has none.
func untilDeadline(t *testing.T, ctx context.Context) (context.Context, context.CancelFunc) {
	deadline, ok := t.Deadline()
	if !ok {
		return context.WithCancel(ctx)
	}
	return context.WithDeadline(ctx, deadline.Add(-cleanupMargin))
}

// screenshot saves the page under $LAZULI_SCREENSHOTS, when set.
func screenshot(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	dir := os.Getenv("LAZULI_SCREENSHOTS")
	if dir == "" {
		return
	}
	var png []byte
	if err := chromedp.Run(ctx, chromedp.FullScreenshot(&png, 100)); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name+".png"), png, 0o644); err != nil {
		t.Fatal(err)
	}
}

// fill creates, through the SDKs, what the console must show.
func fill(t *testing.T, srv *lazulitest.Server) {
	t.Helper()
	ctx := context.Background()
	bc := srv.BlobClient(t)
	if _, err := bc.CreateContainer(ctx, "photos", nil); err != nil {
		t.Fatal(err)
	}
	if _, err := bc.UploadBuffer(ctx, "photos", "cat.jpg", []byte("meow meow"), &azblobUpload{Tags: map[string]string{"animal": "cat"},
		Metadata: map[string]*string{"author": to.Ptr("ada")}}); err != nil {
		t.Fatal(err)
	}
	cat := bc.ServiceClient().NewContainerClient("photos").NewBlobClient("cat.jpg")
	if _, err := cat.CreateSnapshot(ctx, nil); err != nil {
		t.Fatal(err)
	}
	leaser, _ := lease.NewBlobClient(cat, nil)
	if _, err := leaser.AcquireLease(ctx, -1, nil); err != nil {
		t.Fatal(err)
	}
	q := srv.QueueClient(t).NewQueueClient("jobs")
	if _, err := q.Create(ctx, nil); err != nil {
		t.Fatal(err)
	}
	for _, text := range []string{"first-job", "second-job"} {
		if _, err := q.EnqueueMessage(ctx, text, nil); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := q.DequeueMessage(ctx, &azqueue.DequeueMessageOptions{VisibilityTimeout: to.Ptr(int32(600))}); err != nil {
		t.Fatal(err)
	}
	tc := srv.TableClient(t)
	if _, err := tc.CreateTable(ctx, "orders", nil); err != nil {
		t.Fatal(err)
	}
	tbl := tc.NewClient("orders")
	for _, e := range []string{
		`{"PartitionKey":"eu","RowKey":"1","Item":"apples","Qty":3}`,
		`{"PartitionKey":"us","RowKey":"2","Item":"pears","Qty":7}`,
	} {
		if _, err := tbl.AddEntity(ctx, []byte(e), nil); err != nil {
			t.Fatal(err)
		}
	}
	share := srv.FileClient(t).NewShareClient("docs")
	if _, err := share.Create(ctx, nil); err != nil {
		t.Fatal(err)
	}
	dir := share.NewDirectoryClient("reports")
	if _, err := dir.Create(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := dir.NewFileClient("q3.txt").Create(ctx, 42, nil); err != nil {
		t.Fatal(err)
	}
	locked := dir.NewFileClient("locked.txt")
	if _, err := locked.Create(ctx, 7, nil); err != nil {
		t.Fatal(err)
	}
	fl, err := filelease.NewFileClient(locked, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := fl.Acquire(ctx, nil); err != nil {
		t.Fatal(err)
	}
}

type azblobUpload = azblob.UploadBufferOptions

// poll waits until the JavaScript expression holds, for as long as the
// test's context lasts: chromedp's default gives up after 30 s, which the
// console's first render took on a loaded machine.
func poll(expr string) chromedp.Action {
	return chromedp.Poll(expr, nil, chromedp.WithPollingInterval(100*time.Millisecond), chromedp.WithPollingTimeout(0))
}

// waitText waits until selector's text contains want.
func waitText(ctx context.Context, selector, want string) chromedp.Action {
	return poll(`(() => { const e = document.querySelector(` + quote(selector) + `); return !!e && e.innerText.includes(` + quote(want) + `); })()`)
}

func quote(s string) string {
	return "'" + strings.ReplaceAll(strings.ReplaceAll(s, `\`, `\\`), "'", `\'`) + "'"
}

// The console shows what the SDKs created, on every page, and keeps up
// with changes made while it is open.
func TestConsoleInBrowser(t *testing.T) {
	ctx := browser(t)
	srv := lazulitest.Start(t, lazulitest.Options{})
	fill(t, srv)
	base := srv.AdminURL

	var text string
	if err := chromedp.Run(ctx, chromedp.Navigate(base+"/"),
		waitText(ctx, "#view", "photos"),
		chromedp.Text("#view", &text)); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"devstoreaccount1", "photos", "jobs", "2 msg", "orders", "docs"} {
		if !strings.Contains(text, want) {
			t.Errorf("overview lacks %q:\n%s", want, text)
		}
	}
	screenshot(t, ctx, "1-overview")

	// Live: a container made now appears without a reload.
	if _, err := srv.BlobClient(t).CreateContainer(context.Background(), "created-later", nil); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Run(ctx, waitText(ctx, "#view", "created-later")); err != nil {
		t.Fatalf("the overview did not show a new container: %v", err)
	}

	if err := chromedp.Run(ctx, chromedp.Navigate(base+"/#/c/devstoreaccount1/photos"),
		waitText(ctx, "#blobs", "leased"), chromedp.Text("#blobs", &text)); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"cat.jpg", "BlockBlob", "animal=cat", "author=ada", "infinite", "0x"} {
		if !strings.Contains(text, want) {
			t.Errorf("container page lacks %q:\n%s", want, text)
		}
	}
	if n := strings.Count(text, "cat.jpg"); n != 2 {
		t.Errorf("cat.jpg listed %d times, want the blob and its snapshot", n)
	}
	screenshot(t, ctx, "2-container")
	// Break the lease from the page.
	if err := chromedp.Run(ctx, chromedp.Click(`#blobs button[data-post^="/api/break-lease"]`), waitText(ctx, "#blobs", "broken")); err != nil {
		t.Fatalf("break lease: %v", err)
	}

	if err := chromedp.Run(ctx, chromedp.Navigate(base+"/#/q/devstoreaccount1/jobs"),
		waitText(ctx, "#messages", "second-job"), chromedp.Text("#messages", &text)); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text, "first-job") || !strings.Contains(text, "no") || !strings.Contains(text, "yes") {
		t.Errorf("queue page should show one invisible and one visible message:\n%s", text)
	}
	screenshot(t, ctx, "3-queue")
	// Moving the clock from the side panel makes the invisible message visible.
	if err := chromedp.Run(ctx, chromedp.SetValue(`#advance-form input`, "601s"), chromedp.Click(`#advance-form button`),
		poll(`!document.querySelector('#messages tr.invisible')`)); err != nil {
		t.Fatalf("advance the clock: %v", err)
	}

	if err := chromedp.Run(ctx, chromedp.Navigate(base+"/#/t/devstoreaccount1/orders"),
		waitText(ctx, "#entities", "pears"),
		chromedp.SetValue(`#filter-form input`, "Qty gt 5"), chromedp.Click(`#filter-form button`),
		poll(`!document.querySelector('#entities').innerText.includes('apples')`),
		chromedp.Text("#entities", &text)); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text, "pears") || !strings.Contains(text, "W/") {
		t.Errorf("filtered table page:\n%s", text)
	}
	screenshot(t, ctx, "4-table")

	if err := chromedp.Run(ctx, chromedp.Navigate(base+"/#/s/devstoreaccount1/docs"),
		waitText(ctx, "#files", "reports/"), chromedp.Click(`#files a`),
		waitText(ctx, "#files", "q3.txt"), chromedp.Text("#files", &text)); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text, "42") || !strings.Contains(text, "leased") {
		t.Errorf("share page (want q3.txt's size and locked.txt's lease):\n%s", text)
	}
	screenshot(t, ctx, "5-share")

	// Fault rules show in the side panel.
	srv.InjectFault(t, lazulitest.Fault{Operation: "GetBlob", Status: 503})
	if err := chromedp.Run(ctx, waitText(ctx, "#faults", "ServerBusy")); err != nil {
		t.Fatalf("fault rule not shown: %v", err)
	}
	screenshot(t, ctx, "6-faults")
	// Rules are added, removed and cleared from the page too.
	if err := chromedp.Run(ctx, chromedp.SetValue(`#fault-form textarea`, `{"operation":"PutBlob","status":500}`),
		chromedp.Click(`#fault-form button:not([type])`), waitText(ctx, "#faults", "PutBlob"),
		chromedp.Click(`#faults button[data-delete="/faults/1"]`),
		poll(`!document.querySelector('#faults').innerText.includes('ServerBusy')`)); err != nil {
		t.Fatalf("add and remove a fault rule: %v", err)
	}
	if rules := srv.Faults(); len(rules) != 1 || rules[0].Operation != "PutBlob" {
		t.Fatalf("rules after adding one and removing another from the page: %+v", rules)
	}
	if err := chromedp.Run(ctx, chromedp.Click(`#clear-faults`), waitText(ctx, "#faults", "none")); err != nil {
		t.Fatalf("clear the fault rules: %v", err)
	}
	if rules := srv.Faults(); len(rules) != 0 {
		t.Fatalf("rules left after clearing them from the page: %+v", rules)
	}
}
