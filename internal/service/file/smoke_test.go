package file_test

import (
	"bytes"
	"io"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/storage/azfile/file"

	"github.com/lazuli-storage/lazuli/internal/check/lazulitest"
)

func TestSmoke(t *testing.T) {
	_, svc := start(t, lazulitest.Options{InMemory: true})
	sh := newShare(t, svc, "smoke")
	dir := sh.NewDirectoryClient("d1")
	_, err := dir.Create(ctx, nil)
	must(t, err)
	f := dir.NewFileClient("a.txt")
	_, err = f.Create(ctx, 1024, nil)
	must(t, err)
	_, err = f.UploadRange(ctx, 0, streamOf([]byte("hello world")), nil)
	must(t, err)
	resp, err := f.DownloadStream(ctx, &file.DownloadStreamOptions{})
	must(t, err)
	b, _ := io.ReadAll(resp.Body)
	if len(b) != 1024 || !bytes.HasPrefix(b, []byte("hello world")) {
		t.Fatalf("got %d bytes %q", len(b), b[:20])
	}
}
