package blob_test

import (
	"bytes"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/appendblob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/container"
)

func (e *env) newAppendBlob(c *container.Client, name string) *appendblob.Client {
	e.t.Helper()
	ab := c.NewAppendBlobClient(name)
	if _, err := ab.Create(e.ctx, nil); err != nil {
		e.t.Fatalf("create append blob %s: %v", name, err)
	}
	return ab
}

func appendAt(pos int64) *appendblob.AppendBlockOptions {
	return &appendblob.AppendBlockOptions{AppendPositionAccessConditions: &appendblob.AppendPositionAccessConditions{AppendPosition: &pos}}
}

func TestAppendBlobBasics(t *testing.T) {
	e := start(t)
	c := e.container("logs")
	ab := c.NewAppendBlobClient("app.log")
	if _, err := ab.Create(e.ctx, &appendblob.CreateOptions{
		Metadata:    map[string]*string{"source": to.Ptr("web")},
		HTTPHeaders: &blob.HTTPHeaders{BlobContentType: to.Ptr("text/plain")},
	}); err != nil {
		t.Fatal(err)
	}
	var want []byte
	for i, line := range []string{"first line\n", "second line\n", "third\n"} {
		resp, err := ab.AppendBlock(e.ctx, nopCloser([]byte(line)), nil)
		if err != nil {
			t.Fatal(err)
		}
		if *resp.BlobAppendOffset != fmt.Sprint(len(want)) || *resp.BlobCommittedBlockCount != int32(i+1) ||
			len(resp.ContentCRC64) != 8 || resp.ContentMD5 != nil {
			t.Fatalf("append %d: offset %s count %d", i, *resp.BlobAppendOffset, *resp.BlobCommittedBlockCount)
		}
		want = append(want, line...)
	}
	if got := e.read(ab.BlobClient()); got != string(want) {
		t.Fatalf("content %q", got)
	}
	props, err := ab.GetProperties(e.ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if *props.BlobType != blob.BlobTypeAppendBlob || *props.BlobCommittedBlockCount != 3 || *props.ContentType != "text/plain" ||
		*props.ContentLength != int64(len(want)) || props.IsSealed != nil && *props.IsSealed {
		t.Fatalf("properties %+v", props)
	}
	// Conditions: the append position and the maximum size.
	size := int64(len(want))
	_, err = ab.AppendBlock(e.ctx, nopCloser([]byte("x")), appendAt(size-1))
	wantCode(t, err, 412, "AppendPositionConditionNotMet")
	_, err = ab.AppendBlock(e.ctx, nopCloser([]byte("xy")), &appendblob.AppendBlockOptions{
		AppendPositionAccessConditions: &appendblob.AppendPositionAccessConditions{MaxSize: to.Ptr(size + 1)}})
	wantCode(t, err, 412, "MaxBlobSizeConditionNotMet")
	if _, err := ab.AppendBlock(e.ctx, nopCloser([]byte("x")), &appendblob.AppendBlockOptions{
		AppendPositionAccessConditions: &appendblob.AppendPositionAccessConditions{AppendPosition: &size, MaxSize: to.Ptr(size + 1)}}); err != nil {
		t.Fatal(err)
	}
	// Append blobs take no blocks or pages, and other kinds no appends.
	e.upload(c, "block", []byte("b"))
	_, err = c.NewAppendBlobClient("block").AppendBlock(e.ctx, nopCloser([]byte("x")), nil)
	wantCode(t, err, 409, "InvalidBlobType")
	r := e.raw(http.MethodPut, "logs/app.log?comp=blocklist", nil, []byte(`<BlockList></BlockList>`))
	if r.StatusCode != 409 || r.Header.Get("x-ms-error-code") != "InvalidBlobType" {
		t.Fatalf("block list on an append blob: %d %s", r.StatusCode, r.Header.Get("x-ms-error-code"))
	}
	r = e.raw(http.MethodPut, "logs/app.log?comp=appendblock", nil, nil)
	if r.StatusCode != 400 {
		t.Fatalf("empty append: %d", r.StatusCode)
	}
	_, err = c.NewAppendBlobClient("none").AppendBlock(e.ctx, nopCloser([]byte("x")), nil)
	wantCode(t, err, 404, "BlobNotFound")
	// Creating again replaces the blob with an empty one.
	if _, err := ab.Create(e.ctx, nil); err != nil {
		t.Fatal(err)
	}
	if got := e.read(ab.BlobClient()); got != "" {
		t.Fatalf("after re-create: %q", got)
	}
}

func TestAppendBlobSeal(t *testing.T) {
	e := start(t)
	c := e.container("seal")
	ab := e.newAppendBlob(c, "a")
	if _, err := ab.AppendBlock(e.ctx, nopCloser([]byte("data")), nil); err != nil {
		t.Fatal(err)
	}
	_, err := ab.Seal(e.ctx, &appendblob.SealOptions{AppendPositionAccessConditions: &appendblob.AppendPositionAccessConditions{AppendPosition: to.Ptr(int64(3))}})
	wantCode(t, err, 412, "AppendPositionConditionNotMet")
	resp, err := ab.Seal(e.ctx, &appendblob.SealOptions{AppendPositionAccessConditions: &appendblob.AppendPositionAccessConditions{AppendPosition: to.Ptr(int64(4))}})
	if err != nil || resp.IsSealed == nil || !*resp.IsSealed {
		t.Fatalf("seal: %v %+v", err, resp)
	}
	props, _ := ab.GetProperties(e.ctx, nil)
	if props.IsSealed == nil || !*props.IsSealed {
		t.Fatal("Get Blob Properties does not say sealed")
	}
	_, err = ab.AppendBlock(e.ctx, nopCloser([]byte("more")), nil)
	wantCode(t, err, 409, "BlobIsSealed")
	if _, err := ab.Seal(e.ctx, nil); err != nil {
		t.Fatalf("sealing again: %v", err)
	}
	if got := e.read(ab.BlobClient()); got != "data" {
		t.Fatalf("content %q", got)
	}
	items := e.listAll(c, container.ListBlobsInclude{}, 0)
	if len(items) != 1 || items[0].Properties.IsSealed == nil || !*items[0].Properties.IsSealed {
		t.Fatal("List Blobs does not say sealed")
	}
	e.upload(c, "block", []byte("b"))
	_, err = c.NewAppendBlobClient("block").Seal(e.ctx, nil)
	wantCode(t, err, 409, "InvalidBlobType")
}

// block is one appended record: writer and sequence number, fixed size.
func block(writer, seq int) []byte {
	return []byte(fmt.Sprintf("w%02d-s%04d|", writer, seq))
}

// checkBlocks asserts content holds every writer's blocks exactly once.
func checkBlocks(t *testing.T, content []byte, writers, each int) {
	t.Helper()
	size := len(block(0, 0))
	if len(content) != writers*each*size {
		t.Fatalf("content is %d bytes, want %d", len(content), writers*each*size)
	}
	seen := map[string]int{}
	for off := 0; off < len(content); off += size {
		seen[string(content[off:off+size])]++
	}
	for w := 0; w < writers; w++ {
		for s := 0; s < each; s++ {
			if n := seen[string(block(w, s))]; n != 1 {
				t.Fatalf("block %q landed %d times", block(w, s), n)
			}
		}
	}
}

// TestConcurrentAppendersWithPosition: 16 writers append with
// x-ms-blob-condition-appendpos, retrying a lost race at the new end. Every
// block lands exactly once and the blob's block count is the total.
func TestConcurrentAppendersWithPosition(t *testing.T) {
	e := start(t)
	e.ownConnections()
	c := e.container("race")
	ab := e.newAppendBlob(c, "log")
	const writers, each = 16, 6
	var wg sync.WaitGroup
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for s := 0; s < each; {
				props, err := ab.GetProperties(e.ctx, nil)
				if err != nil {
					t.Error(err)
					return
				}
				_, err = ab.AppendBlock(e.ctx, nopCloser(block(w, s)), appendAt(*props.ContentLength))
				var re *azcore.ResponseError
				switch {
				case err == nil:
					s++
				case errors.As(err, &re) && re.ErrorCode == "AppendPositionConditionNotMet":
					// Another writer took this position: read the new end.
				default:
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	checkBlocks(t, []byte(e.read(ab.BlobClient())), writers, each)
	props, _ := ab.GetProperties(e.ctx, nil)
	if *props.BlobCommittedBlockCount != writers*each {
		t.Fatalf("committed block count %d", *props.BlobCommittedBlockCount)
	}
}

// TestConcurrentAppenders: without conditions each append lands once, in
// some order, and no block is torn.
func TestConcurrentAppenders(t *testing.T) {
	e := start(t)
	e.ownConnections()
	c := e.container("free")
	ab := e.newAppendBlob(c, "log")
	const writers, each = 16, 6
	offsets := make(chan string, writers*each)
	var wg sync.WaitGroup
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for s := 0; s < each; s++ {
				resp, err := ab.AppendBlock(e.ctx, nopCloser(block(w, s)), nil)
				if err != nil {
					t.Error(err)
					return
				}
				offsets <- *resp.BlobAppendOffset
			}
		}()
	}
	wg.Wait()
	close(offsets)
	content := []byte(e.read(ab.BlobClient()))
	checkBlocks(t, content, writers, each)
	// Each answer's offset is where its block is.
	seen := map[string]bool{}
	for off := range offsets {
		if seen[off] {
			t.Fatalf("two appends answered offset %s", off)
		}
		seen[off] = true
	}
	size := len(block(0, 0))
	for off := 0; off < len(content); off += size {
		if !seen[fmt.Sprint(off)] || !bytes.HasPrefix(content[off:], []byte("w")) {
			t.Fatalf("no append answered offset %d", off)
		}
	}
	if !strings.HasSuffix(string(content), "|") {
		t.Fatal("torn block at the end")
	}
}

// TestUnsealedAppendBlobHasNoSealedHeader pins that Get Blob Properties and
// Get Blob of an append blob that is not sealed carry no x-ms-blob-sealed:
// azblob's recorded live test TestCopySealedBlob
// (appendblob/client_test.go) copies a sealed blob with x-ms-seal-blob:
// false and requires IsSealed to be nil on the copy's properties, and the
// JavaScript SDK's recorded answers agree: "create with default
// parameters" (storage-blob recordings/browsers/appendblobclient/
// recording_create_with_default_parameters.json, x-ms-version 2021-12-02)
// answers the GET of a new append blob with
// x-ms-blob-committed-block-count and no x-ms-blob-sealed, and "copy seal
// blob" (recording_copy_seal_blob.json) the HEAD of its unsealed copy
// likewise. A sealed one answers true (Get Blob Properties: "returned only
// for append blobs. If the append blob has been sealed, the value is
// true"; recording_seal_append_blob.json).
func TestUnsealedAppendBlobHasNoSealedHeader(t *testing.T) {
	e := start(t)
	c := e.container("unsealed")
	ab := c.NewAppendBlobClient("log")
	if _, err := ab.Create(e.ctx, nil); err != nil {
		t.Fatal(err)
	}
	for _, method := range []string{http.MethodHead, http.MethodGet} {
		r := e.raw(method, "unsealed/log", nil, nil)
		if v, ok := r.Header["X-Ms-Blob-Sealed"]; ok {
			t.Fatalf("%s of an unsealed append blob: x-ms-blob-sealed %q", method, v)
		}
	}
	if _, err := ab.Seal(e.ctx, nil); err != nil {
		t.Fatal(err)
	}
	for _, method := range []string{http.MethodHead, http.MethodGet} {
		if r := e.raw(method, "unsealed/log", nil, nil); r.Header.Get("X-Ms-Blob-Sealed") != "true" {
			t.Fatalf("%s of a sealed append blob: x-ms-blob-sealed %q", method, r.Header.Get("X-Ms-Blob-Sealed"))
		}
	}
}
