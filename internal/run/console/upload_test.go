package console_test

import (
	"context"
	"crypto/md5"
	"crypto/rand"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blob"
	"github.com/chromedp/chromedp"

	"github.com/lazuli-storage/lazuli/lazulitest"
)

// randomFile writes size random bytes to a file named name and answers
// its path and MD5.
func randomFile(t *testing.T, name string, size int) (string, [16]byte) {
	t.Helper()
	data := make([]byte, size)
	_, _ = rand.Read(data)
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path, md5.Sum(data)
}

// readMD5 is the MD5 of what r holds.
func readMD5(t *testing.T, r io.ReadCloser) [16]byte {
	t.Helper()
	defer r.Close()
	h := md5.New()
	if _, err := io.Copy(h, r); err != nil {
		t.Fatal(err)
	}
	var sum [16]byte
	copy(sum[:], h.Sum(nil))
	return sum
}

// uploadDone waits until the upload of name shows 100% and committed; the
// progress bar must stand at its end.
func uploadDone(name string) chromedp.Action {
	return poll(`[...document.querySelectorAll('.upload.done')].some(u => u.innerText.includes(` + quote(name) +
		`) && u.innerText.includes('(100%) uploaded') && u.querySelector('progress').value === 100)`)
}

// dropFile drops a file of the given text on the page's drop zone, as a
// user dragging it from the desktop.
func dropFile(name, text string) chromedp.Action {
	return chromedp.Evaluate(`(() => {
		const dt = new DataTransfer();
		dt.items.add(new File([`+quote(text)+`], `+quote(name)+`, {type: "text/plain"}));
		document.getElementById("drop").dispatchEvent(new DragEvent("drop", {dataTransfer: dt, bubbles: true, cancelable: true}));
	})()`, nil)
}

// A 50 MiB file picked on a container's page is uploaded in 4 MiB blocks
// with a progress bar that reaches 100%, and reads back equal through the
// service; a dropped file lands in the folder shown, and a file on a share
// is written in ranges.
func TestConsoleUploads(t *testing.T) {
	ctx := browser(t)
	srv := lazulitest.Start(t, lazulitest.Options{Services: []string{"blob", "file"}})
	bg := context.Background()
	bc := srv.BlobClient(t)
	if _, err := bc.CreateContainer(bg, "uploads", nil); err != nil {
		t.Fatal(err)
	}
	if _, err := bc.UploadBuffer(bg, "uploads", "inbox/.keep", nil, nil); err != nil {
		t.Fatal(err)
	}
	big, sum := randomFile(t, "big.bin", 50<<20)
	if err := chromedp.Run(ctx, openPage(srv, "c/devstoreaccount1/uploads"), waitText(ctx, "#blobs", "inbox/"),
		chromedp.SetUploadFiles(`#upload-input`, []string{big}), uploadDone("big.bin"), waitText(ctx, "#blobs", "50.0 MiB")); err != nil {
		t.Fatalf("upload 50 MiB: %v", err)
	}
	screenshot(t, ctx, "console-upload")
	blobClient := bc.ServiceClient().NewContainerClient("uploads").NewBlobClient("big.bin")
	got, err := blobClient.DownloadStream(bg, nil)
	if err != nil {
		t.Fatal(err)
	}
	if readMD5(t, got.Body) != sum {
		t.Fatal("the uploaded blob does not read back equal")
	}
	blocks, err := bc.ServiceClient().NewContainerClient("uploads").NewBlockBlobClient("big.bin").GetBlockList(bg, "committed", nil)
	if err != nil || len(blocks.CommittedBlocks) != 13 || *blocks.CommittedBlocks[0].Size != 4<<20 {
		t.Fatalf("want 13 blocks of 4 MiB and one of 2 MiB: %v", err)
	}

	if err := chromedp.Run(ctx, openPage(srv, "c/devstoreaccount1/uploads/inbox"), waitText(ctx, "#blobs", ".keep"),
		dropFile("note.txt", "dropped text"), uploadDone("inbox/note.txt")); err != nil {
		t.Fatalf("drop a file: %v", err)
	}
	dropped, err := bc.DownloadStream(bg, "uploads", "inbox/note.txt", nil)
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := io.ReadAll(dropped.Body); string(b) != "dropped text" || *dropped.ContentType != "text/plain" {
		t.Fatalf("dropped blob %q of type %v", b, *dropped.ContentType)
	}
	// A name with characters URLs reserve reaches the service as it is.
	const odd = "50% off #1?&x=y+z é.txt"
	if err := chromedp.Run(ctx, dropFile(odd, "odd"), uploadDone("inbox/"+odd), waitText(ctx, "#blobs", odd)); err != nil {
		t.Fatalf("drop a file with reserved characters in its name: %v", err)
	}
	if _, err := bc.ServiceClient().NewContainerClient("uploads").NewBlobClient("inbox/"+odd).GetProperties(bg, nil); err != nil {
		t.Fatalf("the blob named %q: %v", odd, err)
	}

	share := srv.FileClient(t).NewShareClient("team")
	if _, err := share.Create(bg, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := share.NewDirectoryClient("docs").Create(bg, nil); err != nil {
		t.Fatal(err)
	}
	onShare, shareSum := randomFile(t, "report.bin", 9<<20+17)
	if err := chromedp.Run(ctx, openPage(srv, "s/devstoreaccount1/team/docs"), waitText(ctx, "#rows", "empty directory"),
		chromedp.SetUploadFiles(`#upload-input`, []string{onShare}), uploadDone("team/docs/report.bin"), waitText(ctx, "#files", "9.0 MiB")); err != nil {
		t.Fatalf("upload to a share: %v", err)
	}
	file, err := share.NewDirectoryClient("docs").NewFileClient("report.bin").DownloadStream(bg, nil)
	if err != nil {
		t.Fatal(err)
	}
	if readMD5(t, file.Body) != shareSum {
		t.Fatal("the file uploaded to the share does not read back equal")
	}

	// Directories are created and deleted, files deleted; a directory
	// that holds anything stays, with the service's reason shown.
	docs := share.NewDirectoryClient("docs")
	if err := chromedp.Run(ctx, chromedp.SetValue(`#mkdir input`, "drafts"), chromedp.Click(`#mkdir button`), waitText(ctx, "#files", "drafts/")); err != nil {
		t.Fatalf("create a directory: %v", err)
	}
	if _, err := docs.NewSubdirectoryClient("drafts").GetProperties(bg, nil); err != nil {
		t.Fatalf("the directory the page created: %v", err)
	}
	if _, err := share.NewDirectoryClient("docs/drafts").NewFileClient("keep.txt").Create(bg, 1, nil); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Run(ctx, chromedp.Click(`#files button[data-delete-entry="drafts"]`), waitText(ctx, "#notice.error", "409 DirectoryNotEmpty")); err != nil {
		t.Fatalf("delete a directory that holds a file: %v", err)
	}
	if err := chromedp.Run(ctx, chromedp.Click(`#files button[data-delete-entry="report.bin"]`),
		poll(`!document.querySelector('#files').innerText.includes('report.bin')`)); err != nil {
		t.Fatalf("delete a file: %v", err)
	}
	if _, err := docs.NewFileClient("report.bin").GetProperties(bg, nil); err == nil {
		t.Fatal("the file the page deleted is still there")
	}
}

// A blob's properties panel shows its content headers, metadata, tags,
// tier, lease, snapshots and versions, and sets each through the service,
// under the ETag it read.
func TestConsoleBlobProperties(t *testing.T) {
	ctx := browser(t)
	srv := lazulitest.Start(t, lazulitest.Options{Services: []string{"blob"}})
	bg := context.Background()
	bc := srv.BlobClient(t)
	if _, err := bc.CreateContainer(bg, "docs", nil); err != nil {
		t.Fatal(err)
	}
	if _, err := bc.UploadBuffer(bg, "docs", "plan.txt", []byte("the plan"), &azblob.UploadBufferOptions{
		Metadata: map[string]*string{"owner": to.Ptr("ada")}, Tags: map[string]string{"stage": "draft"},
		HTTPHeaders: &blob.HTTPHeaders{BlobContentType: to.Ptr("text/x-plan"), BlobContentDisposition: to.Ptr("inline")}}); err != nil {
		t.Fatal(err)
	}
	plan := bc.ServiceClient().NewContainerClient("docs").NewBlobClient("plan.txt")
	if _, err := plan.CreateSnapshot(bg, nil); err != nil {
		t.Fatal(err)
	}
	var text string
	if err := chromedp.Run(ctx, openPage(srv, "c/devstoreaccount1/docs"), waitText(ctx, "#blobs", "plan.txt"),
		chromedp.Click(`#blobs button[data-props="plan.txt"]`), waitText(ctx, "#props", "Snapshots and versions (1)"),
		chromedp.Text("#props", &text)); err != nil {
		t.Fatalf("open the panel: %v", err)
	}
	for _, want := range []string{"BlockBlob", "8 B", `"0x`, "available", "Hot"} {
		if !strings.Contains(text, want) {
			t.Errorf("panel lacks %q:\n%s", want, text)
		}
	}
	var contentType, disposition string
	if err := chromedp.Run(ctx, chromedp.Value(`#props-headers [name=content-type]`, &contentType),
		chromedp.Value(`#props-headers [name=content-disposition]`, &disposition)); err != nil {
		t.Fatal(err)
	}
	if contentType != "text/x-plan" || disposition != "inline" {
		t.Errorf("the panel shows type %q and disposition %q, want the blob's own", contentType, disposition)
	}
	screenshot(t, ctx, "console-properties")

	// save sends one form and waits for the panel to read the blob again.
	save := func(form, field, value, done string) error {
		return chromedp.Run(ctx, chromedp.Evaluate(`window.oldPanel = document.querySelector("#props h3")`, nil),
			chromedp.SetValue(form+` [name="`+field+`"]`, value), chromedp.Click(form+` button`),
			waitText(ctx, "#notice", done), poll(`!window.oldPanel.isConnected && !!document.querySelector("#props h3")`))
	}
	if err := save("#props-headers", "content-type", "text/markdown", "content headers of plan.txt saved"); err != nil {
		t.Fatal(err)
	}
	if err := save("#props-metadata", "pairs", "owner=bob\nteam=core", "metadata of plan.txt saved"); err != nil {
		t.Fatal(err)
	}
	if err := save("#props-tags", "pairs", "stage=final", "tags of plan.txt saved"); err != nil {
		t.Fatal(err)
	}
	if err := save("#props-tier", "tier", "Cool", "tier of plan.txt saved"); err != nil {
		t.Fatal(err)
	}
	props, err := plan.GetProperties(bg, nil)
	if err != nil {
		t.Fatal(err)
	}
	metadata := map[string]string{}
	for k, v := range props.Metadata {
		metadata[strings.ToLower(k)] = *v
	}
	if *props.ContentType != "text/markdown" || metadata["owner"] != "bob" || metadata["team"] != "core" || len(metadata) != 2 || *props.AccessTier != "Cool" {
		t.Errorf("after the panel's edits: type %v, metadata %v, tier %v", *props.ContentType, metadata, *props.AccessTier)
	}
	tags, err := plan.GetTags(bg, nil)
	if err != nil || len(tags.BlobTagSet) != 1 || *tags.BlobTagSet[0].Value != "final" {
		t.Errorf("tags after the panel's edit: %v", err)
	}

	// The panel's ETag is stale once another client writes: the service
	// refuses the save, and the page shows why.
	if _, err := plan.SetMetadata(bg, map[string]*string{"by": to.Ptr("other")}, nil); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Run(ctx, chromedp.SetValue(`#props-metadata [name=pairs]`, "owner=carol"), chromedp.Click(`#props-metadata button`),
		waitText(ctx, "#notice.error", "412 ConditionNotMet")); err != nil {
		t.Fatalf("a save over a changed blob: %v", err)
	}
}

// A SAS signed on the page opens what its permissions allow through the
// blob endpoint, and nothing more.
func TestConsoleSAS(t *testing.T) {
	ctx := browser(t)
	srv := lazulitest.Start(t, lazulitest.Options{Services: []string{"blob"}})
	bg := context.Background()
	bc := srv.BlobClient(t)
	if _, err := bc.CreateContainer(bg, "shared", nil); err != nil {
		t.Fatal(err)
	}
	if _, err := bc.UploadBuffer(bg, "shared", "a b.txt", []byte("shared text"), &azblob.UploadBufferOptions{
		HTTPHeaders: &blob.HTTPHeaders{BlobContentType: to.Ptr("text/plain")}}); err != nil {
		t.Fatal(err)
	}
	var sasURL string
	if err := chromedp.Run(ctx, openPage(srv, "c/devstoreaccount1/shared"), waitText(ctx, "#blobs", "a b.txt"),
		chromedp.Click(`#blobs button[data-props="a b.txt"]`), waitText(ctx, "#props", "Content headers"),
		chromedp.Click(`#props-sas`), waitText(ctx, "#props", "SAS URL for blob"),
		chromedp.Click(`#sas-form button`), poll(`document.getElementById("sas-url").value !== ""`),
		chromedp.Value(`#sas-url`, &sasURL)); err != nil {
		t.Fatalf("sign a SAS: %v", err)
	}
	screenshot(t, ctx, "console-sas")
	if !strings.HasPrefix(sasURL, strings.TrimSuffix(srv.BlobURL, "/")+"/shared/a%20b.txt?") || !strings.Contains(sasURL, "sp=r&") {
		t.Fatalf("SAS URL %q", sasURL)
	}
	resp, err := http.Get(sasURL)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || string(body) != "shared text" {
		t.Fatalf("GET with the read SAS: %d %q", resp.StatusCode, body)
	}
	req, _ := http.NewRequest(http.MethodDelete, sasURL, nil)
	req.Header.Set("x-ms-version", "2025-01-05")
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Fatalf("DELETE with a read SAS: %d, want 403", resp.StatusCode)
	}

	// A container SAS with list, and an expiry that is not a time.
	expired := time.Now().Add(-time.Hour).UTC().Format(time.RFC3339)
	if err := chromedp.Run(ctx, chromedp.Click(`#container-sas`), waitText(ctx, "#props", "SAS URL for container"),
		chromedp.SetValue(`#sas-form [name=se]`, "tomorrow"), chromedp.Click(`#sas-form button`),
		waitText(ctx, "#notice.error", "400 InvalidQueryParameterValue: se must be an ISO 8601 UTC time"),
		chromedp.SetValue(`#sas-form [name=se]`, expired), chromedp.Click(`#sas-form [value=l]`), chromedp.Click(`#sas-form button`),
		poll(`document.getElementById("sas-url").value.includes("sp=rl")`), chromedp.Value(`#sas-url`, &sasURL)); err != nil {
		t.Fatalf("container SAS: %v", err)
	}
	resp, err = http.Get(sasURL + "&restype=container&comp=list")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Fatalf("list with an expired container SAS: %d, want 403", resp.StatusCode)
	}
}
