package file_test

import (
	"crypto/md5"
	"net/http"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azfile/file"

	"github.com/lazuli-storage/lazuli/internal/check/lazulitest"
)

// TestCreateFileWithContent creates files whose content travels with
// Create File (azfile's CreateOptions.OptionalBody). Before, the body was
// read by no one and the file came out zero-filled.
func TestCreateFileWithContent(t *testing.T) {
	_, svc := start(t, lazulitest.Options{InMemory: true})
	root := newShare(t, svc, "withbody").NewRootDirectoryClient()
	content := []byte("created with its content in one request")
	sum := md5.Sum(content)
	f := root.NewFileClient("one-shot.txt")
	resp, err := f.Create(ctx, int64(len(content)), &file.CreateOptions{
		OptionalBody: streamOf(content), ContentLength: to.Ptr(int64(len(content))), ContentMD5: sum[:]})
	must(t, err)
	if resp.ETag == nil {
		t.Fatal("no ETag")
	}
	if got := download(t, f); got != string(content) {
		t.Fatalf("file reads %q", got)
	}
	ranges, err := f.GetRangeList(ctx, nil)
	must(t, err)
	if got := rangeString(ranges.Ranges); got != "[0-38]" {
		t.Errorf("ranges %s", got)
	}
	// A body of another length than the file, or with a wrong MD5, is refused.
	_, err = root.NewFileClient("short.txt").Create(ctx, 100, &file.CreateOptions{
		OptionalBody: streamOf(content), ContentLength: to.Ptr(int64(len(content)))})
	wantCode(t, err, http.StatusBadRequest, "InvalidHeaderValue")
	wrong := md5.Sum([]byte("other"))
	_, err = root.NewFileClient("bad-md5.txt").Create(ctx, int64(len(content)), &file.CreateOptions{
		OptionalBody: streamOf(content), ContentLength: to.Ptr(int64(len(content))), ContentMD5: wrong[:]})
	wantCode(t, err, http.StatusBadRequest, "Md5Mismatch")
}
