package dfs_test

import (
	"bytes"
	"crypto/md5"
	"encoding/base64"
	"io"
	"net/http"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azdatalake/file"
)

// nopCloser is a body the SDK's AppendData takes.
type nopCloser struct{ *bytes.Reader }

func (nopCloser) Close() error { return nil }

func chunk(s string) io.ReadSeekCloser { return nopCloser{bytes.NewReader([]byte(s))} }

// newFile creates an empty file and returns its client.
func (e *env) newFile(fs, path string) *file.Client {
	e.t.Helper()
	f := e.file(fs, path)
	if _, err := f.Create(e.ctx, nil); err != nil {
		e.t.Fatalf("create %s: %v", path, err)
	}
	return f
}

// read downloads a file's content.
func (e *env) read(f *file.Client) string {
	e.t.Helper()
	resp, err := f.DownloadStream(e.ctx, nil)
	if err != nil {
		e.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		e.t.Fatal(err)
	}
	return string(b)
}

// Appended data is invisible until a flush commits it; appends may come
// in any order, and a flush takes them in position order.
func TestAppendThenFlush(t *testing.T) {
	e := start(t)
	e.filesystem("lake")
	f := e.newFile("lake", "logs/today.txt")
	if _, err := f.AppendData(e.ctx, 6, chunk("world"), nil); err != nil {
		t.Fatal(err)
	}
	if _, err := f.AppendData(e.ctx, 0, chunk("hello "), nil); err != nil {
		t.Fatal(err)
	}
	if got := e.read(f); got != "" {
		t.Fatalf("before the flush the file reads %q", got)
	}
	flushed, err := f.FlushData(e.ctx, 11, &file.FlushDataOptions{HTTPHeaders: &file.HTTPHeaders{ContentType: to.Ptr("text/plain")}})
	if err != nil {
		t.Fatal(err)
	}
	if got := e.read(f); got != "hello world" {
		t.Fatalf("after the flush the file reads %q", got)
	}
	props, err := f.GetProperties(e.ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if *props.ContentLength != 11 || *props.ContentType != "text/plain" || *props.ETag != *flushed.ETag {
		t.Fatalf("properties: length %d, type %s, ETag %s (flush answered %s)", *props.ContentLength, *props.ContentType, *props.ETag, *flushed.ETag)
	}

	// A second round appends after what is there.
	if _, err := f.AppendData(e.ctx, 11, chunk("!"), &file.AppendDataOptions{Flush: to.Ptr(true)}); err != nil {
		t.Fatal(err)
	}
	if got := e.read(f); got != "hello world!" {
		t.Fatalf("after append with flush the file reads %q", got)
	}
}

// The SDK's Upload appends in chunks, in parallel, and flushes once.
func TestUploadBufferAndDownload(t *testing.T) {
	e := start(t)
	e.filesystem("lake")
	f := e.newFile("lake", "big.bin")
	data := bytes.Repeat([]byte("0123456789abcdef"), 64<<10) // 1 MiB
	if err := f.UploadBuffer(e.ctx, data, &file.UploadBufferOptions{ChunkSize: 256 << 10}); err != nil {
		t.Fatal(err)
	}
	if got := e.read(f); got != string(data) {
		t.Fatalf("downloaded %d bytes, uploaded %d", len(got), len(data))
	}
}

// A flush to a position the staged data does not reach end to end is 400
// InvalidFlushPosition, in the dfs JSON error form; the right position
// then flushes.
func TestFlushAtWrongPosition(t *testing.T) {
	e := start(t)
	e.filesystem("lake")
	e.newFile("lake", "f")
	resp, b := e.raw(http.MethodPatch, "lake/f?action=append&position=0", nil, []byte("12345"))
	if resp.StatusCode != http.StatusAccepted {
		t.Fatalf("append: %d %s", resp.StatusCode, b)
	}
	for _, pos := range []string{"4", "6", "10"} {
		resp, b = e.raw(http.MethodPatch, "lake/f?action=flush&position="+pos, nil, nil)
		wantJSONError(t, resp, b, http.StatusBadRequest, "InvalidFlushPosition")
	}
	resp, b = e.raw(http.MethodPatch, "lake/f?action=flush&position=5", nil, nil)
	if resp.StatusCode != http.StatusOK || resp.Header.Get("ETag") == "" {
		t.Fatalf("flush at 5: %d %s %s", resp.StatusCode, resp.Header, b)
	}
	resp, b = e.raw(http.MethodPatch, "lake/f?action=append", nil, []byte("x"))
	wantJSONError(t, resp, b, http.StatusBadRequest, "MissingRequiredQueryParameter")
	resp, b = e.raw(http.MethodPatch, "lake/nothing?action=append&position=0", nil, []byte("x"))
	wantJSONError(t, resp, b, http.StatusNotFound, "PathNotFound")
}

// An append's Content-MD5 is checked and answered.
func TestAppendChecksum(t *testing.T) {
	e := start(t)
	e.filesystem("lake")
	e.newFile("lake", "f")
	wrong := md5.Sum([]byte("other"))
	resp, b := e.raw(http.MethodPatch, "lake/f?action=append&position=0",
		http.Header{"Content-Md5": {base64.StdEncoding.EncodeToString(wrong[:])}}, []byte("data"))
	wantJSONError(t, resp, b, http.StatusBadRequest, "Md5Mismatch")
	right := md5.Sum([]byte("data"))
	resp, _ = e.raw(http.MethodPatch, "lake/f?action=append&position=0",
		http.Header{"Content-Md5": {base64.StdEncoding.EncodeToString(right[:])}}, []byte("data"))
	if resp.StatusCode != http.StatusAccepted || resp.Header.Get("Content-MD5") != base64.StdEncoding.EncodeToString(right[:]) {
		t.Fatalf("append with its MD5: %d %s", resp.StatusCode, resp.Header)
	}
}

// A flush's conditional headers are checked against the file.
func TestFlushConditions(t *testing.T) {
	e := start(t)
	e.filesystem("lake")
	f := e.newFile("lake", "f")
	if _, err := f.AppendData(e.ctx, 0, chunk("abc"), nil); err != nil {
		t.Fatal(err)
	}
	stale := azcore.ETag(`"0x8D0000000000000"`)
	_, err := f.FlushData(e.ctx, 3, &file.FlushDataOptions{AccessConditions: &file.AccessConditions{
		ModifiedAccessConditions: &file.ModifiedAccessConditions{IfMatch: &stale}}})
	wantCode(t, err, http.StatusPreconditionFailed, "ConditionNotMet")
	props, err := f.GetProperties(e.ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.FlushData(e.ctx, 3, &file.FlushDataOptions{AccessConditions: &file.AccessConditions{
		ModifiedAccessConditions: &file.ModifiedAccessConditions{IfMatch: props.ETag}}}); err != nil {
		t.Fatal(err)
	}
}
