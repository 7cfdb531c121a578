package console_test

import (
	"context"
	"io"
	"mime"
	"net/http"
	"net/url"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/bloberror"

	"github.com/lazuli-storage/lazuli/lazulitest"
)

// htmlPage is a blob that would run its script if a browser rendered it.
const htmlPage = `<!doctype html><title>blob</title><script>document.title = "script ran"</script>`

// uploadHTML stores body as a blob that asks to be rendered: text/html,
// inline, as anyone with a write SAS on the container may.
func uploadHTML(t *testing.T, srv *lazulitest.Server, container, name, body string) {
	t.Helper()
	ctx := context.Background()
	bc := srv.BlobClient(t)
	if _, err := bc.CreateContainer(ctx, container, nil); err != nil && !bloberror.HasCode(err, bloberror.ContainerAlreadyExists) {
		t.Fatal(err)
	}
	_, err := bc.UploadBuffer(ctx, container, name, []byte(body), &azblob.UploadBufferOptions{HTTPHeaders: &blob.HTTPHeaders{
		BlobContentType: to.Ptr("text/html"), BlobContentDisposition: to.Ptr("inline")}})
	if err != nil {
		t.Fatal(err)
	}
}

// downloadURL is the console's download link for a blob.
func downloadURL(srv *lazulitest.Server, container, name string) string {
	return srv.AdminURL + "/api/download?" + url.Values{"account": {lazulitest.Account}, "container": {container}, "blob": {name}}.Encode()
}

// A download is an attachment under its own name, of a type no browser
// renders, whatever type and disposition the blob was stored with.
func TestDownloadNeverRenders(t *testing.T) {
	srv := lazulitest.Start(t, lazulitest.Options{Services: []string{"blob"}})
	for _, c := range []struct{ name, filename string }{
		{"page.html", "page.html"},
		{"dir/r\u00e9\"sum\u00e9 <b>.html", "r\u00e9\"sum\u00e9 <b>.html"},
		{"line\r\nSet-Cookie: a=b.html", "line\r\nSet-Cookie: a=b.html"},
	} {
		uploadHTML(t, srv, "pages", c.name, htmlPage)
		resp, err := http.Get(downloadURL(srv, "pages", c.name))
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || string(body) != htmlPage {
			t.Fatalf("%q: %d %q", c.name, resp.StatusCode, body)
		}
		h := resp.Header
		disposition, params, err := mime.ParseMediaType(h.Get("Content-Disposition"))
		if err != nil || disposition != "attachment" || params["filename"] != c.filename {
			t.Errorf("%q: Content-Disposition %q, want an attachment named %q", c.name, h.Get("Content-Disposition"), c.filename)
		}
		if h.Get("Content-Type") != "application/octet-stream" || h.Get("X-Content-Type-Options") != "nosniff" ||
			h.Get("Content-Security-Policy") != "sandbox; default-src 'none'" || h.Get("Set-Cookie") != "" {
			t.Errorf("%q: headers %v", c.name, h)
		}
	}
}
