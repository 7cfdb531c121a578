package blob_test

import (
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/url"
	"path/filepath"
	"sync"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/container"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/pageblob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/service"

	"github.com/lazuli-storage/lazuli/internal/check/lazulitest"
)

// newPageBlob creates a page blob of size bytes.
func (e *env) newPageBlob(c *container.Client, name string, size int64, o *pageblob.CreateOptions) *pageblob.Client {
	e.t.Helper()
	pb := c.NewPageBlobClient(name)
	if _, err := pb.Create(e.ctx, size, o); err != nil {
		e.t.Fatalf("create page blob %s: %v", name, err)
	}
	return pb
}

// putPages writes data at offset.
func (e *env) putPages(pb *pageblob.Client, offset int64, data []byte) pageblob.UploadPagesResponse {
	e.t.Helper()
	resp, err := pb.UploadPages(e.ctx, nopCloser(data), blob.HTTPRange{Offset: offset, Count: int64(len(data))}, nil)
	if err != nil {
		e.t.Fatalf("put pages at %d: %v", offset, err)
	}
	return resp
}

// pageRanges lists every written range, following markers.
func (e *env) pageRanges(pb *pageblob.Client, o *pageblob.GetPageRangesOptions) [][2]int64 {
	e.t.Helper()
	var out [][2]int64
	pager := pb.NewGetPageRangesPager(o)
	for pager.More() {
		page, err := pager.NextPage(e.ctx)
		if err != nil {
			e.t.Fatalf("get page ranges: %v", err)
		}
		for _, r := range page.PageRange {
			out = append(out, [2]int64{*r.Start, *r.End})
		}
	}
	return out
}

// readRange downloads count bytes at offset.
func (e *env) readRange(b *blob.Client, offset, count int64) []byte {
	e.t.Helper()
	resp, err := b.DownloadStream(e.ctx, &blob.DownloadStreamOptions{Range: blob.HTTPRange{Offset: offset, Count: count}})
	if err != nil {
		e.t.Fatalf("download [%d,+%d): %v", offset, count, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		e.t.Fatal(err)
	}
	return data
}

func fill(n int, seed byte) []byte {
	p := make([]byte, n)
	for i := range p {
		p[i] = seed + byte(i%251)
	}
	return p
}

func TestPageBlobWriteClearRead(t *testing.T) {
	e := start(t)
	c := e.container("pages")
	pb := e.newPageBlob(c, "disk.vhd", 4096, &pageblob.CreateOptions{
		SequenceNumber: to.Ptr(int64(7)),
		Metadata:       map[string]*string{"role": to.Ptr("os")},
		HTTPHeaders:    &blob.HTTPHeaders{BlobContentType: to.Ptr("application/vhd")},
	})
	props, err := pb.GetProperties(e.ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if *props.BlobType != blob.BlobTypePageBlob || *props.ContentLength != 4096 || *props.BlobSequenceNumber != 7 ||
		*props.ContentType != "application/vhd" || *props.Metadata["Role"] != "os" {
		t.Fatalf("properties: type %v size %d seq %d type %q metadata %v", *props.BlobType, *props.ContentLength,
			*props.BlobSequenceNumber, *props.ContentType, props.Metadata)
	}
	// A new page blob reads as zeros and has no ranges.
	if got := e.readRange(pb.BlobClient(), 0, 4096); !bytes.Equal(got, make([]byte, 4096)) {
		t.Fatal("a new page blob does not read as zeros")
	}
	if r := e.pageRanges(pb, nil); len(r) != 0 {
		t.Fatalf("new blob ranges: %v", r)
	}
	a, b := fill(512, 1), fill(1024, 2)
	resp := e.putPages(pb, 512, a)
	if *resp.BlobSequenceNumber != 7 || len(resp.ContentCRC64) != 8 || len(resp.ContentMD5) != 0 || resp.ETag == nil {
		t.Fatalf("put page answer: %+v", resp)
	}
	e.putPages(pb, 2048, b)
	want := make([]byte, 4096)
	copy(want[512:], a)
	copy(want[2048:], b)
	if got := e.readRange(pb.BlobClient(), 0, 4096); !bytes.Equal(got, want) {
		t.Fatal("content after two writes differs")
	}
	if r := e.pageRanges(pb, nil); fmt.Sprint(r) != "[[512 1023] [2048 3071]]" {
		t.Fatalf("ranges: %v", r)
	}
	// Adjacent writes are reported as one range.
	e.putPages(pb, 1024, fill(512, 3))
	copy(want[1024:], fill(512, 3))
	if r := e.pageRanges(pb, nil); fmt.Sprint(r) != "[[512 1535] [2048 3071]]" {
		t.Fatalf("ranges after adjacent write: %v", r)
	}
	if _, err := pb.ClearPages(e.ctx, blob.HTTPRange{Offset: 2048, Count: 512}, nil); err != nil {
		t.Fatal(err)
	}
	clear(want[2048:2560])
	if got := e.readRange(pb.BlobClient(), 0, 4096); !bytes.Equal(got, want) {
		t.Fatal("content after clear differs")
	}
	if r := e.pageRanges(pb, nil); fmt.Sprint(r) != "[[512 1535] [2560 3071]]" {
		t.Fatalf("ranges after clear: %v", r)
	}
	// A range limits the listing, clipped to it.
	r := e.pageRanges(pb, &pageblob.GetPageRangesOptions{Range: blob.HTTPRange{Offset: 1024, Count: 2048}})
	if fmt.Sprint(r) != "[[1024 1535] [2560 3071]]" {
		t.Fatalf("ranges within [1024,3071]: %v", r)
	}
	// A partial read across written and unwritten pages.
	if got := e.readRange(pb.BlobClient(), 1000, 2000); !bytes.Equal(got, want[1000:3000]) {
		t.Fatal("ranged read differs")
	}
}

func TestPageBlobErrors(t *testing.T) {
	e := start(t)
	c := e.container("pageerrs")
	e.newPageBlob(c, "p", 8192, nil)
	e.upload(c, "block", []byte("block content"))
	put := func(name, rng, mode string, body []byte) *http.Response {
		h := http.Header{"x-ms-range": {rng}, "x-ms-page-write": {mode}}
		return e.raw(http.MethodPut, "pageerrs/"+name+"?comp=page", h, body)
	}
	cases := []struct {
		name   string
		resp   *http.Response
		status int
		code   string
	}{
		{"unaligned start", put("p", "bytes=1-512", "update", make([]byte, 512)), 416, "InvalidPageRange"},
		{"unaligned end", put("p", "bytes=0-510", "update", make([]byte, 511)), 416, "InvalidPageRange"},
		{"open range", put("p", "bytes=0-", "update", make([]byte, 512)), 416, "InvalidPageRange"},
		{"length differs", put("p", "bytes=0-1023", "update", make([]byte, 512)), 416, "InvalidPageRange"},
		{"past the end", put("p", "bytes=8192-8703", "update", make([]byte, 512)), 416, "InvalidPageRange"},
		{"bad write mode", put("p", "bytes=0-511", "append", make([]byte, 512)), 400, "InvalidHeaderValue"},
		{"missing write mode", e.raw(http.MethodPut, "pageerrs/p?comp=page", http.Header{"x-ms-range": {"bytes=0-511"}}, make([]byte, 512)), 400, "MissingRequiredHeader"},
		{"clear with a body", put("p", "bytes=0-511", "clear", make([]byte, 512)), 400, "InvalidHeaderValue"},
		{"block blob", put("block", "bytes=0-511", "update", make([]byte, 512)), 409, "InvalidBlobType"},
		{"missing blob", put("none", "bytes=0-511", "update", make([]byte, 512)), 404, "BlobNotFound"},
		{"size not pages", e.raw(http.MethodPut, "pageerrs/q", http.Header{"x-ms-blob-type": {"PageBlob"}, "x-ms-blob-content-length": {"1000"}}, nil), 400, "InvalidHeaderValue"},
		{"size missing", e.raw(http.MethodPut, "pageerrs/q", http.Header{"x-ms-blob-type": {"PageBlob"}}, nil), 400, "MissingRequiredHeader"},
		{"size too large", e.raw(http.MethodPut, "pageerrs/q", http.Header{"x-ms-blob-type": {"PageBlob"}, "x-ms-blob-content-length": {"8796093022720"}}, nil), 400, "InvalidHeaderValue"},
		{"create with a body", e.raw(http.MethodPut, "pageerrs/q", http.Header{"x-ms-blob-type": {"PageBlob"}, "x-ms-blob-content-length": {"512"}}, []byte("x")), 400, "InvalidHeaderValue"},
		{"page ranges of a block blob", e.raw(http.MethodGet, "pageerrs/block?comp=pagelist", nil, nil), 409, "InvalidBlobType"},
		{"resize a block blob", e.raw(http.MethodPut, "pageerrs/block?comp=properties", http.Header{"x-ms-blob-content-length": {"512"}}, nil), 400, "InvalidHeaderValue"},
		{"sequence number of a block blob", e.raw(http.MethodPut, "pageerrs/block?comp=properties", http.Header{"x-ms-sequence-number-action": {"increment"}}, nil), 400, "InvalidHeaderValue"},
		{"block list of a page blob", e.raw(http.MethodGet, "pageerrs/p?comp=blocklist", nil, nil), 409, "InvalidBlobType"},
	}
	for _, c := range cases {
		if c.resp.StatusCode != c.status || c.resp.Header.Get("x-ms-error-code") != c.code {
			t.Errorf("%s: got %d %s, want %d %s", c.name, c.resp.StatusCode, c.resp.Header.Get("x-ms-error-code"), c.status, c.code)
		}
	}
	// More than 4 MiB in one Put Page is refused before the body is read.
	resp := e.headersOnly(http.MethodPut, "pageerrs/p?comp=page", 4<<20+512, http.Header{
		"X-Ms-Range": {fmt.Sprintf("bytes=0-%d", 4<<20+511)}, "X-Ms-Page-Write": {"update"}, "X-Ms-Version": {"2025-01-05"}})
	if resp.StatusCode != http.StatusRequestEntityTooLarge {
		t.Fatalf("5 MiB page write: %d", resp.StatusCode)
	}
	// Exactly 4 MiB is fine.
	pb := c.NewPageBlobClient("p")
	if _, err := pb.Resize(e.ctx, 8<<20, nil); err != nil {
		t.Fatal(err)
	}
	e.putPages(pb, 4<<20, fill(4<<20, 9))
}

func TestPageBlobSequenceNumber(t *testing.T) {
	e := start(t)
	c := e.container("seq")
	pb := e.newPageBlob(c, "p", 1024, nil)
	update := func(action pageblob.SequenceNumberActionType, n *int64) (int64, error) {
		resp, err := pb.UpdateSequenceNumber(e.ctx, &pageblob.UpdateSequenceNumberOptions{ActionType: &action, SequenceNumber: n})
		if err != nil {
			return 0, err
		}
		return *resp.BlobSequenceNumber, nil
	}
	steps := []struct {
		action pageblob.SequenceNumberActionType
		n      *int64
		want   int64
	}{
		{pageblob.SequenceNumberActionTypeUpdate, to.Ptr(int64(10)), 10},
		{pageblob.SequenceNumberActionTypeMax, to.Ptr(int64(5)), 10},
		{pageblob.SequenceNumberActionTypeMax, to.Ptr(int64(20)), 20},
		{pageblob.SequenceNumberActionTypeIncrement, nil, 21},
		{pageblob.SequenceNumberActionTypeUpdate, to.Ptr(int64(3)), 3},
	}
	for _, s := range steps {
		got, err := update(s.action, s.n)
		if err != nil || got != s.want {
			t.Fatalf("%s %v: got %d, %v; want %d", s.action, s.n, got, err, s.want)
		}
	}
	// Increment takes no number; max and update need one.
	h := http.Header{"x-ms-sequence-number-action": {"increment"}, "x-ms-blob-sequence-number": {"4"}}
	if resp := e.raw(http.MethodPut, "seq/p?comp=properties", h, nil); resp.StatusCode != 400 {
		t.Fatalf("increment with a number: %d", resp.StatusCode)
	}
	h = http.Header{"x-ms-sequence-number-action": {"max"}}
	if resp := e.raw(http.MethodPut, "seq/p?comp=properties", h, nil); resp.StatusCode != 400 || resp.Header.Get("x-ms-error-code") != "MissingRequiredHeader" {
		t.Fatalf("max without a number: %d %s", resp.StatusCode, resp.Header.Get("x-ms-error-code"))
	}
	// The largest number cannot be incremented.
	if _, err := update(pageblob.SequenceNumberActionTypeUpdate, to.Ptr(int64(1<<63-1))); err != nil {
		t.Fatal(err)
	}
	_, err := update(pageblob.SequenceNumberActionTypeIncrement, nil)
	wantCode(t, err, 409, "SequenceNumberIncrementTooLarge")
	if _, err := update(pageblob.SequenceNumberActionTypeUpdate, to.Ptr(int64(5))); err != nil {
		t.Fatal(err)
	}
	// Sequence number conditions on Put Page and Clear Pages.
	conds := []struct {
		c  pageblob.SequenceNumberAccessConditions
		ok bool
	}{
		{pageblob.SequenceNumberAccessConditions{IfSequenceNumberEqualTo: to.Ptr(int64(5))}, true},
		{pageblob.SequenceNumberAccessConditions{IfSequenceNumberEqualTo: to.Ptr(int64(4))}, false},
		{pageblob.SequenceNumberAccessConditions{IfSequenceNumberLessThan: to.Ptr(int64(6))}, true},
		{pageblob.SequenceNumberAccessConditions{IfSequenceNumberLessThan: to.Ptr(int64(5))}, false},
		{pageblob.SequenceNumberAccessConditions{IfSequenceNumberLessThanOrEqualTo: to.Ptr(int64(5))}, true},
		{pageblob.SequenceNumberAccessConditions{IfSequenceNumberLessThanOrEqualTo: to.Ptr(int64(4))}, false},
	}
	for i, cc := range conds {
		sc := cc.c
		_, err := pb.UploadPages(e.ctx, nopCloser(make([]byte, 512)), blob.HTTPRange{Offset: 0, Count: 512},
			&pageblob.UploadPagesOptions{SequenceNumberAccessConditions: &sc})
		_, clearErr := pb.ClearPages(e.ctx, blob.HTTPRange{Offset: 512, Count: 512}, &pageblob.ClearPagesOptions{SequenceNumberAccessConditions: &sc})
		if cc.ok && (err != nil || clearErr != nil) {
			t.Fatalf("condition %d should hold: %v, %v", i, err, clearErr)
		}
		if !cc.ok {
			wantCode(t, err, 412, "SequenceNumberConditionNotMet")
			wantCode(t, clearErr, 412, "SequenceNumberConditionNotMet")
		}
	}
}

func TestPageBlobResize(t *testing.T) {
	e := start(t)
	c := e.container("resize")
	pb := e.newPageBlob(c, "p", 4096, nil)
	e.putPages(pb, 0, fill(1024, 1))
	e.putPages(pb, 3072, fill(1024, 2))
	before, _ := pb.GetProperties(e.ctx, nil)
	resp, err := pb.Resize(e.ctx, 1536, nil)
	if err != nil {
		t.Fatal(err)
	}
	if *resp.ETag == *before.ETag {
		t.Fatal("resize kept the ETag")
	}
	if r := e.pageRanges(pb, nil); fmt.Sprint(r) != "[[0 1023]]" {
		t.Fatalf("ranges after shrink: %v", r)
	}
	if _, err := pb.Resize(e.ctx, 8192, nil); err != nil {
		t.Fatal(err)
	}
	props, _ := pb.GetProperties(e.ctx, nil)
	if *props.ContentLength != 8192 || *props.ContentType != "application/octet-stream" {
		t.Fatalf("after growth: size %d type %q", *props.ContentLength, *props.ContentType)
	}
	want := make([]byte, 8192)
	copy(want, fill(1024, 1))
	if got := e.readRange(pb.BlobClient(), 0, 8192); !bytes.Equal(got, want) {
		t.Fatal("pages cut by the shrink came back, or the growth is not zeros")
	}
	_, err = pb.Resize(e.ctx, 1000, nil)
	wantCode(t, err, 400, "InvalidHeaderValue")
	// Resize honours conditions and leases like any write.
	_, err = pb.Resize(e.ctx, 512, &pageblob.ResizeOptions{AccessConditions: &blob.AccessConditions{
		ModifiedAccessConditions: &blob.ModifiedAccessConditions{IfMatch: before.ETag}}})
	wantCode(t, err, 412, "ConditionNotMet")
}

func TestPageRangesDiffAndSnapshots(t *testing.T) {
	e := start(t)
	c := e.container("diff")
	pb := e.newPageBlob(c, "p", 8192, nil)
	e.putPages(pb, 0, fill(2048, 1))
	e.putPages(pb, 4096, fill(1024, 2))
	snap, err := pb.CreateSnapshot(e.ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	e.putPages(pb, 512, fill(512, 3))  // rewrite inside the first range
	e.putPages(pb, 6144, fill(512, 4)) // a new range
	_, err = pb.ClearPages(e.ctx, blob.HTTPRange{Offset: 4608, Count: 512}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var changed, cleared [][2]int64
	pager := pb.NewGetPageRangesDiffPager(&pageblob.GetPageRangesDiffOptions{PrevSnapshot: snap.Snapshot})
	for pager.More() {
		page, err := pager.NextPage(e.ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range page.PageRange {
			changed = append(changed, [2]int64{*r.Start, *r.End})
		}
		for _, r := range page.ClearRange {
			cleared = append(cleared, [2]int64{*r.Start, *r.End})
		}
	}
	if fmt.Sprint(changed) != "[[512 1023] [6144 6655]]" || fmt.Sprint(cleared) != "[[4608 5119]]" {
		t.Fatalf("diff: changed %v cleared %v", changed, cleared)
	}
	// The managed-disk form names the snapshot by URL and gives the same diff.
	snapURL := pb.URL() + "?snapshot=" + url.QueryEscape(*snap.Snapshot)
	byURL, err := pb.NewGetPageRangesDiffPager(&pageblob.GetPageRangesDiffOptions{PrevSnapshotURL: &snapURL}).NextPage(e.ctx)
	if err != nil {
		t.Fatalf("diff by x-ms-previous-snapshot-url: %v", err)
	}
	if len(byURL.PageRange) != 2 || *byURL.PageRange[1].Start != 6144 || len(byURL.ClearRange) != 1 || *byURL.ClearRange[0].Start != 4608 {
		t.Fatalf("diff by URL: %+v", byURL.PageList)
	}
	noSnapshot := pb.URL()
	_, err = pb.NewGetPageRangesDiffPager(&pageblob.GetPageRangesDiffOptions{PrevSnapshotURL: &noSnapshot}).NextPage(e.ctx)
	wantCode(t, err, 400, "InvalidHeaderValue")
	// The snapshot keeps its own map and content.
	if r := e.pageRanges(pb, &pageblob.GetPageRangesOptions{Snapshot: snap.Snapshot}); fmt.Sprint(r) != "[[0 2047] [4096 5119]]" {
		t.Fatalf("snapshot ranges: %v", r)
	}
	snapClient, err := pb.WithSnapshot(*snap.Snapshot)
	if err != nil {
		t.Fatal(err)
	}
	if got := e.readRange(snapClient.BlobClient(), 0, 2048); !bytes.Equal(got, fill(2048, 1)) {
		t.Fatal("snapshot content changed")
	}
	// A snapshot that does not exist.
	missing := "2001-01-01T00:00:00.0000000Z"
	_, err = pb.NewGetPageRangesDiffPager(&pageblob.GetPageRangesDiffOptions{PrevSnapshot: &missing}).NextPage(e.ctx)
	wantCode(t, err, 409, "PreviousSnapshotNotFound")
	_, err = snapClient.NewGetPageRangesDiffPager(&pageblob.GetPageRangesDiffOptions{PrevSnapshot: snap.Snapshot}).NextPage(e.ctx)
	wantCode(t, err, 400, "PreviousSnapshotCannotBeNewer")
}

func TestPageRangesPaging(t *testing.T) {
	e := start(t)
	c := e.container("paging")
	pb := e.newPageBlob(c, "p", 64*512, nil)
	var want [][2]int64
	for i := int64(0); i < 10; i++ {
		e.putPages(pb, i*3*512, fill(512, byte(i)))
		want = append(want, [2]int64{i * 3 * 512, i*3*512 + 511})
	}
	pages := 0
	pager := pb.NewGetPageRangesPager(&pageblob.GetPageRangesOptions{MaxResults: to.Ptr(int32(3))})
	var got [][2]int64
	for pager.More() {
		page, err := pager.NextPage(e.ctx)
		if err != nil {
			t.Fatal(err)
		}
		pages++
		if len(page.PageRange) > 3 {
			t.Fatalf("page of %d ranges", len(page.PageRange))
		}
		for _, r := range page.PageRange {
			got = append(got, [2]int64{*r.Start, *r.End})
		}
	}
	if fmt.Sprint(got) != fmt.Sprint(want) || pages != 4 {
		t.Fatalf("%d pages: %v", pages, got)
	}
}

// TestSparsePageBlob: a 1 TiB page blob with a few MiB written costs about
// what was written on disk, and reads back correctly at both ends.
func TestSparsePageBlob(t *testing.T) {
	e := startWith(t, lazulitest.Options{})
	base := dirSize(t, e.in.Dir)
	c := e.container("sparse")
	const tib = int64(1) << 40
	pb := e.newPageBlob(c, "huge.vhd", tib, nil)
	offsets := []int64{0, tib / 2, tib - 1<<20}
	for i, off := range offsets {
		e.putPages(pb, off, fill(1<<20, byte(i)))
	}
	for i, off := range offsets {
		if got := e.readRange(pb.BlobClient(), off, 1<<20); !bytes.Equal(got, fill(1<<20, byte(i))) {
			t.Fatalf("range at %d differs", off)
		}
	}
	if got := e.readRange(pb.BlobClient(), tib/4, 4096); !bytes.Equal(got, make([]byte, 4096)) {
		t.Fatal("an unwritten page is not zeros")
	}
	want := fmt.Sprint([][2]int64{{0, 1<<20 - 1}, {tib / 2, tib/2 + 1<<20 - 1}, {tib - 1<<20, tib - 1}})
	if r := e.pageRanges(pb, nil); fmt.Sprint(r) != want {
		t.Fatalf("ranges %v", r)
	}
	props, _ := pb.GetProperties(e.ctx, nil)
	if *props.ContentLength != tib {
		t.Fatalf("size %d", *props.ContentLength)
	}
	if grown := dirSize(t, e.in.Dir) - base; grown > 32<<20 {
		t.Fatalf("the data directory grew by %d bytes for 3 MiB written", grown)
	}
}

func dirSize(t *testing.T, dir string) int64 {
	t.Helper()
	var total int64
	err := filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		total += info.Size()
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return total
}

// ownConnections points e's clients at a transport of their own, closed
// before the server stops. Concurrent clients leave connections the server
// has accepted but never read a request from, and its graceful shutdown
// waits seconds for such connections; closing them first keeps the test
// fast.
func (e *env) ownConnections() {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConnsPerHost = 64
	opts := clientOptions()
	opts.Transport = &http.Client{Transport: tr}
	cred, err := service.NewSharedKeyCredential(lazulitest.Account, lazulitest.Key)
	if err != nil {
		e.t.Fatal(err)
	}
	if e.svc, err = service.NewClientWithSharedKeyCredential(e.in.BlobURL, cred, opts); err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(tr.CloseIdleConnections)
}

// TestPageBlobConcurrentWriters: 16 writers of disjoint pages, each write
// kept (no lost update of the page map).
func TestPageBlobConcurrentWriters(t *testing.T) {
	e := start(t)
	e.ownConnections()
	c := e.container("concurrent")
	const writers, each = 16, 8
	pb := e.newPageBlob(c, "p", writers*each*512, nil)
	var wg sync.WaitGroup
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < each; i++ {
				page := int64(i*writers + w)
				_, err := pb.UploadPages(e.ctx, nopCloser(fill(512, byte(page))), blob.HTTPRange{Offset: page * 512, Count: 512}, nil)
				if err != nil {
					t.Error(err)
				}
			}
		}()
	}
	wg.Wait()
	got := e.readRange(pb.BlobClient(), 0, writers*each*512)
	for page := 0; page < writers*each; page++ {
		if !bytes.Equal(got[page*512:(page+1)*512], fill(512, byte(page))) {
			t.Fatalf("page %d lost", page)
		}
	}
	if r := e.pageRanges(pb, nil); fmt.Sprint(r) != fmt.Sprint([][2]int64{{0, writers*each*512 - 1}}) {
		t.Fatalf("ranges %v", r)
	}
}

func TestPageBlobLeaseAndConditions(t *testing.T) {
	e := start(t)
	c := e.container("pagelease")
	pb := e.newPageBlob(c, "p", 1024, nil)
	props, _ := pb.GetProperties(e.ctx, nil)
	_, err := pb.UploadPages(e.ctx, nopCloser(make([]byte, 512)), blob.HTTPRange{Count: 512}, &pageblob.UploadPagesOptions{
		AccessConditions: &blob.AccessConditions{ModifiedAccessConditions: &blob.ModifiedAccessConditions{IfNoneMatch: props.ETag}}})
	wantCode(t, err, 412, "ConditionNotMet")
	id := "8f9d2d3a-1c2b-4a5e-9f00-000000000001"
	h := http.Header{"x-ms-lease-action": {"acquire"}, "x-ms-lease-duration": {"-1"}, "x-ms-proposed-lease-id": {id}}
	if resp := e.raw(http.MethodPut, "pagelease/p?comp=lease", h, nil); resp.StatusCode != 201 {
		t.Fatalf("acquire: %d", resp.StatusCode)
	}
	_, err = pb.UploadPages(e.ctx, nopCloser(make([]byte, 512)), blob.HTTPRange{Count: 512}, nil)
	wantCode(t, err, 412, "LeaseIdMissing")
	_, err = pb.UploadPages(e.ctx, nopCloser(make([]byte, 512)), blob.HTTPRange{Count: 512}, &pageblob.UploadPagesOptions{
		AccessConditions: &blob.AccessConditions{LeaseAccessConditions: &blob.LeaseAccessConditions{LeaseID: &id}}})
	if err != nil {
		t.Fatal(err)
	}
	// Get Page Ranges needs no lease ID.
	if r := e.pageRanges(pb, nil); len(r) != 1 {
		t.Fatalf("ranges %v", r)
	}
}

// TestNegativeSequenceNumberConditionIsInvalidInput follows azblob's
// recorded tests TestBlobPutPagesIfSequenceNumberLessThanNegOne and
// TestBlobClearPagesIfSequenceNumberEqualNegOne (and the LT/LTE ones):
// a sequence-number condition of -1 is 400 InvalidInput.
func TestNegativeSequenceNumberConditionIsInvalidInput(t *testing.T) {
	e := start(t)
	c := e.container("negseq")
	pb := c.NewPageBlobClient("p")
	if _, err := pb.Create(e.ctx, 1024, nil); err != nil {
		t.Fatal(err)
	}
	minus := to.Ptr(int64(-1))
	for _, cond := range []pageblob.SequenceNumberAccessConditions{
		{IfSequenceNumberLessThanOrEqualTo: minus}, {IfSequenceNumberLessThan: minus}, {IfSequenceNumberEqualTo: minus},
	} {
		_, err := pb.UploadPages(e.ctx, nopCloser(make([]byte, 512)), blob.HTTPRange{Count: 512},
			&pageblob.UploadPagesOptions{SequenceNumberAccessConditions: &cond})
		wantCode(t, err, 400, "InvalidInput")
		_, err = pb.ClearPages(e.ctx, blob.HTTPRange{Count: 512}, &pageblob.ClearPagesOptions{SequenceNumberAccessConditions: &cond})
		wantCode(t, err, 400, "InvalidInput")
	}
}

// TestGetPageRangesStartPastTheEnd follows azure-sdk-for-net's recorded
// GetPageRangesAsync_Error and GetPageRangesDiffAsync_Error: a range that
// starts at or past the blob's length is 416 InvalidRange, "The range
// specified is invalid for the current size of the resource."; one that
// starts inside and runs past the end is cut to the blob.
func TestGetPageRangesStartPastTheEnd(t *testing.T) {
	e := start(t)
	pb := e.container("prend").NewPageBlobClient("p")
	if _, err := pb.Create(e.ctx, 4096, nil); err != nil {
		t.Fatal(err)
	}
	snap := must(pb.CreateSnapshot(e.ctx, nil)).on(t)
	for _, offset := range []int64{4096, 5120} {
		pager := pb.NewGetPageRangesPager(&pageblob.GetPageRangesOptions{Range: blob.HTTPRange{Offset: offset, Count: 4096}})
		_, err := pager.NextPage(e.ctx)
		wantCode(t, err, 416, "InvalidRange")
		diff := pb.NewGetPageRangesDiffPager(&pageblob.GetPageRangesDiffOptions{Range: blob.HTTPRange{Offset: offset, Count: 4096}, PrevSnapshot: snap.Snapshot})
		_, err = diff.NextPage(e.ctx)
		wantCode(t, err, 416, "InvalidRange")
	}
	pager := pb.NewGetPageRangesPager(&pageblob.GetPageRangesOptions{Range: blob.HTTPRange{Offset: 3584, Count: 4096}})
	if _, err := pager.NextPage(e.ctx); err != nil {
		t.Fatalf("a range running past the end: %v", err)
	}
}
