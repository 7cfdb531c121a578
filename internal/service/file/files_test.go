package file_test

import (
	"bytes"
	"crypto/md5"
	"io"
	"net/http"
	"strconv"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azfile/file"

	"github.com/lazuli-storage/lazuli/internal/check/lazulitest"
)

func TestCreateFileAndProperties(t *testing.T) {
	_, svc := start(t, lazulitest.Options{InMemory: true})
	sh := newShare(t, svc, "files")
	f := sh.NewRootDirectoryClient().NewFileClient("doc.txt")
	sum := md5.Sum([]byte("whatever"))
	created, err := f.Create(ctx, 100, &file.CreateOptions{
		HTTPHeaders: &file.HTTPHeaders{ContentType: to.Ptr("text/plain"), ContentEncoding: to.Ptr("gzip"),
			ContentLanguage: to.Ptr("en"), ContentDisposition: to.Ptr("inline"), CacheControl: to.Ptr("no-cache"),
			ContentMD5: sum[:]},
		Metadata: map[string]*string{"owner": to.Ptr("me")},
	})
	must(t, err)
	props, err := f.GetProperties(ctx, nil)
	must(t, err)
	switch {
	case *props.ContentLength != 100, *props.ContentType != "text/plain", *props.ContentEncoding != "gzip",
		*props.ContentLanguage != "en", *props.ContentDisposition != "inline", *props.CacheControl != "no-cache",
		!bytes.Equal(props.ContentMD5, sum[:]), meta(props.Metadata, "owner") != "me", *props.FileType != "File",
		*props.FileAttributes != "Archive", *props.ETag != *created.ETag, *props.ID != *created.ID:
		t.Fatalf("properties: %+v", props)
	}
	if *props.LeaseState != "available" || *props.LeaseStatus != "unlocked" {
		t.Errorf("lease state %s status %s", *props.LeaseState, *props.LeaseStatus)
	}

	// Set File Properties resizes and replaces the content headers.
	set, err := f.SetHTTPHeaders(ctx, &file.SetHTTPHeadersOptions{FileContentLength: to.Ptr(int64(10)),
		HTTPHeaders: &file.HTTPHeaders{ContentType: to.Ptr("application/json")}})
	must(t, err)
	if *set.ETag == *created.ETag {
		t.Error("Set File Properties kept the ETag")
	}
	props, err = f.GetProperties(ctx, nil)
	must(t, err)
	if *props.ContentLength != 10 || *props.ContentType != "application/json" || props.ContentEncoding != nil || props.CacheControl != nil {
		t.Fatalf("after set: len %d type %s encoding %v", *props.ContentLength, *props.ContentType, props.ContentEncoding)
	}
	md, err := f.SetMetadata(ctx, &file.SetMetadataOptions{Metadata: map[string]*string{"v": to.Ptr("2")}})
	must(t, err)
	if *md.ETag == *set.ETag {
		t.Error("Set File Metadata kept the ETag")
	}
	props, err = f.GetProperties(ctx, nil)
	must(t, err)
	if len(props.Metadata) != 1 || meta(props.Metadata, "v") != "2" {
		t.Errorf("metadata %v", props.Metadata)
	}

	_, err = sh.NewRootDirectoryClient().NewFileClient("huge").Create(ctx, 4<<40+1, nil)
	wantCode(t, err, http.StatusBadRequest, "InvalidHeaderValue")
	_, err = sh.NewRootDirectoryClient().NewFileClient("huge").Create(ctx, -4, nil)
	wantCode(t, err, http.StatusBadRequest, "OutOfRangeInput")
	_, err = sh.NewRootDirectoryClient().NewFileClient("huge").Create(ctx, 4<<40, nil)
	must(t, err)
	_, err = sh.NewRootDirectoryClient().NewFileClient("missing").GetProperties(ctx, nil)
	wantCode(t, err, http.StatusNotFound, "ResourceNotFound")
	_, err = sh.NewDirectoryClient("nodir").NewFileClient("missing").GetProperties(ctx, nil)
	wantCode(t, err, http.StatusNotFound, "ParentNotFound")
	_, err = f.Delete(ctx, nil)
	must(t, err)
	_, err = f.GetProperties(ctx, nil)
	wantCode(t, err, http.StatusNotFound, "ResourceNotFound")
}

func TestCreateFileReplaces(t *testing.T) {
	_, svc := start(t, lazulitest.Options{InMemory: true})
	sh := newShare(t, svc, "replace")
	f := sh.NewRootDirectoryClient().NewFileClient("f")
	first, err := f.Create(ctx, 8, &file.CreateOptions{Metadata: map[string]*string{"old": to.Ptr("1")}})
	must(t, err)
	_, err = f.UploadRange(ctx, 0, streamOf([]byte("12345678")), nil)
	must(t, err)
	second, err := f.Create(ctx, 4, nil)
	must(t, err)
	if *second.ID != *first.ID || *second.ETag == *first.ETag {
		t.Errorf("replace: id %s->%s etag %s->%s", *first.ID, *second.ID, *first.ETag, *second.ETag)
	}
	if got := download(t, f); got != "\x00\x00\x00\x00" {
		t.Fatalf("replaced file reads %q", got)
	}
	props, err := f.GetProperties(ctx, nil)
	must(t, err)
	if len(props.Metadata) != 0 {
		t.Errorf("metadata survived the replace: %v", props.Metadata)
	}
	_, err = sh.NewDirectoryClient("adir").Create(ctx, nil)
	must(t, err)
	_, err = sh.NewRootDirectoryClient().NewFileClient("adir").Create(ctx, 1, nil)
	wantCode(t, err, http.StatusConflict, "ResourceTypeMismatch")
}

func TestGetFileRanges(t *testing.T) {
	_, svc := start(t, lazulitest.Options{InMemory: true})
	sh := newShare(t, svc, "reads")
	f := sh.NewRootDirectoryClient().NewFileClient("f")
	_, err := f.Create(ctx, 20, nil)
	must(t, err)
	_, err = f.UploadRange(ctx, 5, streamOf([]byte("hello")), nil)
	must(t, err)
	resp, err := f.DownloadStream(ctx, &file.DownloadStreamOptions{Range: file.HTTPRange{Offset: 4, Count: 4}, RangeGetContentMD5: to.Ptr(true)})
	must(t, err)
	body, _ := io.ReadAll(resp.Body)
	want := []byte("\x00hel")
	sum := md5.Sum(want)
	if !bytes.Equal(body, want) || *resp.ContentRange != "bytes 4-7/20" || !bytes.Equal(resp.ContentMD5, sum[:]) {
		t.Fatalf("ranged read %q range %s md5 %x", body, *resp.ContentRange, resp.ContentMD5)
	}
	resp, err = f.DownloadStream(ctx, &file.DownloadStreamOptions{Range: file.HTTPRange{Offset: 15, Count: 100}})
	must(t, err)
	body, _ = io.ReadAll(resp.Body)
	if len(body) != 5 || *resp.ContentRange != "bytes 15-19/20" {
		t.Fatalf("clipped read %q %s", body, *resp.ContentRange)
	}
	_, err = f.DownloadStream(ctx, &file.DownloadStreamOptions{Range: file.HTTPRange{Offset: 20, Count: 1}})
	wantCode(t, err, http.StatusRequestedRangeNotSatisfiable, "InvalidRange")
	// A directory is not a file.
	_, err = sh.NewDirectoryClient("d").Create(ctx, nil)
	must(t, err)
	_, err = sh.NewRootDirectoryClient().NewFileClient("d").GetProperties(ctx, nil)
	wantCode(t, err, http.StatusNotFound, "ResourceNotFound")
}

func TestPutRangeAndListRanges(t *testing.T) {
	_, svc := start(t, lazulitest.Options{InMemory: true})
	sh := newShare(t, svc, "ranges")
	f := sh.NewRootDirectoryClient().NewFileClient("f")
	created, err := f.Create(ctx, 4096, nil)
	must(t, err)
	prev := *created.ETag
	write := func(off int64, b []byte) {
		t.Helper()
		resp, err := f.UploadRange(ctx, off, streamOf(b), nil)
		must(t, err)
		if *resp.ETag == prev {
			t.Fatal("Put Range kept the ETag")
		}
		prev = *resp.ETag
		sum := md5.Sum(b)
		if !bytes.Equal(resp.ContentMD5, sum[:]) {
			t.Fatalf("Put Range Content-MD5 %x", resp.ContentMD5)
		}
	}
	write(0, bytes.Repeat([]byte{1}, 512))
	write(512, bytes.Repeat([]byte{2}, 512))
	write(2048, bytes.Repeat([]byte{3}, 1024))
	ranges, err := f.GetRangeList(ctx, nil)
	must(t, err)
	if got := rangeString(ranges.Ranges); got != "[0-1023 2048-3071]" || *ranges.FileContentLength != 4096 {
		t.Fatalf("ranges %s length %d", got, *ranges.FileContentLength)
	}
	_, err = f.ClearRange(ctx, file.HTTPRange{Offset: 256, Count: 512}, nil)
	must(t, err)
	ranges, err = f.GetRangeList(ctx, &file.GetRangeListOptions{Range: file.HTTPRange{Offset: 0, Count: 2560}})
	must(t, err)
	// A clear within pages zeroes the bytes and the pages stay listed (the
	// SDK's recorded TestClearRangeNonDefaultCount); whole pages are freed.
	if got := rangeString(ranges.Ranges); got != "[0-1023 2048-2559]" {
		t.Fatalf("ranges after clear %s", got)
	}
	data := download(t, f)
	if data[255] != 1 || data[256] != 0 || data[767] != 0 || data[768] != 2 || data[2048] != 3 || data[4095] != 0 {
		t.Fatal("content does not match the writes and the clear")
	}

	_, err = f.UploadRange(ctx, 4000, streamOf(make([]byte, 200)), nil)
	wantCode(t, err, http.StatusRequestedRangeNotSatisfiable, "InvalidRange")
	big := sh.NewRootDirectoryClient().NewFileClient("big")
	_, err = big.Create(ctx, 8<<20, nil)
	must(t, err)
	_, err = big.UploadRange(ctx, 0, streamOf(make([]byte, 4<<20+1)), nil)
	wantCode(t, err, http.StatusRequestEntityTooLarge, "RequestBodyTooLarge")
	_, err = big.UploadRange(ctx, 0, streamOf(make([]byte, 4<<20)), nil)
	must(t, err)
	wrong := md5.Sum([]byte("other"))
	_, err = f.UploadRange(ctx, 0, streamOf([]byte("abc")), &file.UploadRangeOptions{TransactionalValidation: file.TransferValidationTypeMD5(wrong[:])})
	wantCode(t, err, http.StatusBadRequest, "Md5Mismatch")

	// Shrinking drops the ranges past the end; growing reads zeros.
	_, err = f.Resize(ctx, 600, nil)
	must(t, err)
	_, err = f.Resize(ctx, 3000, nil)
	must(t, err)
	ranges, err = f.GetRangeList(ctx, nil)
	must(t, err)
	if got := rangeString(ranges.Ranges); got != "[0-599]" {
		t.Fatalf("ranges after shrink and grow %s, want [0-599]", got)
	}
	// Clearing whole pages frees them.
	_, err = f.ClearRange(ctx, file.HTTPRange{Offset: 0, Count: 512}, nil)
	must(t, err)
	ranges, err = f.GetRangeList(ctx, nil)
	must(t, err)
	if got := rangeString(ranges.Ranges); got != "[512-599]" {
		t.Fatalf("ranges after clearing a whole page %s", got)
	}
}

func rangeString(rs []*file.ShareFileRange) string {
	var b bytes.Buffer
	b.WriteByte('[')
	for i, r := range rs {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(strconv.FormatInt(*r.Start, 10) + "-" + strconv.FormatInt(*r.End, 10))
	}
	b.WriteByte(']')
	return b.String()
}

func TestListRangesDiff(t *testing.T) {
	_, svc := start(t, lazulitest.Options{InMemory: true})
	sh := newShare(t, svc, "diffs")
	f := sh.NewRootDirectoryClient().NewFileClient("f")
	_, err := f.Create(ctx, 4096, nil)
	must(t, err)
	_, err = f.UploadRange(ctx, 0, streamOf(make([]byte, 1024)), nil)
	must(t, err)
	_, err = f.UploadRange(ctx, 2048, streamOf(make([]byte, 1024)), nil)
	must(t, err)
	snap, err := sh.CreateSnapshot(ctx, nil)
	must(t, err)
	_, err = f.UploadRange(ctx, 512, streamOf(make([]byte, 512)), nil)
	must(t, err)
	_, err = f.ClearRange(ctx, file.HTTPRange{Offset: 2048, Count: 512}, nil)
	must(t, err)
	diff, err := f.GetRangeList(ctx, &file.GetRangeListOptions{PrevShareSnapshot: snap.Snapshot})
	must(t, err)
	if got := rangeString(diff.Ranges); got != "[512-1023]" {
		t.Errorf("changed ranges %s", got)
	}
	if len(diff.ClearRanges) != 1 || *diff.ClearRanges[0].Start != 2048 || *diff.ClearRanges[0].End != 2559 {
		t.Errorf("clear ranges %+v", diff.ClearRanges)
	}
	// The snapshot's own ranges are those at snapshot time.
	old, err := f.GetRangeList(ctx, &file.GetRangeListOptions{ShareSnapshot: snap.Snapshot})
	must(t, err)
	if got := rangeString(old.Ranges); got != "[0-1023 2048-3071]" {
		t.Errorf("snapshot ranges %s", got)
	}
	_, err = f.GetRangeList(ctx, &file.GetRangeListOptions{PrevShareSnapshot: to.Ptr("2000-01-01T00:00:00.0000000Z")})
	wantCode(t, err, http.StatusNotFound, "ShareSnapshotNotFound")
}

// TestListRangesDiffPages: ranges changed since a snapshot are reported in
// whole 512-byte pages, a page as a Range when it holds written bytes now
// and as a ClearRange when it holds none. References: azure-sdk-for-js
// storage-file-share test/fileclient.spec.ts "getRangeListDiff" (recorded:
// a 5-byte write, then clear 0-1023 and a 5-byte write at 1023, answers
// ClearRange 0-511 and Range 512-1535); azure-sdk-for-python
// storage-file-share tests/recordings/
// test_file.pyTestStorageFiletest_list_ranges_diff.json (against the
// second snapshot: ClearRange 512-1023 only).
func TestListRangesDiffPages(t *testing.T) {
	_, svc := start(t, lazulitest.Options{InMemory: true})
	sh := newShare(t, svc, "diffpages")
	f := sh.NewRootDirectoryClient().NewFileClient("f")
	_, err := f.Create(ctx, 512*4+1, nil)
	must(t, err)
	_, err = f.UploadRange(ctx, 0, streamOf([]byte("Hello")), nil)
	must(t, err)
	snap, err := sh.CreateSnapshot(ctx, nil)
	must(t, err)
	_, err = f.ClearRange(ctx, file.HTTPRange{Offset: 0, Count: 1024}, nil)
	must(t, err)
	_, err = f.UploadRange(ctx, 1023, streamOf([]byte("World")), nil)
	must(t, err)
	diff, err := f.GetRangeList(ctx, &file.GetRangeListOptions{PrevShareSnapshot: snap.Snapshot})
	must(t, err)
	if got, clear := rangeString(diff.Ranges), clearString(diff.ClearRanges); got != "[512-1535]" || clear != "[0-511]" {
		t.Errorf("changed %s cleared %s, want [512-1535] and [0-511]", got, clear)
	}

	g := sh.NewRootDirectoryClient().NewFileClient("g")
	_, err = g.Create(ctx, 2048, nil)
	must(t, err)
	_, err = g.UploadRange(ctx, 0, streamOf(bytes.Repeat([]byte("a"), 1536)), nil)
	must(t, err)
	snap2, err := sh.CreateSnapshot(ctx, nil)
	must(t, err)
	_, err = g.ClearRange(ctx, file.HTTPRange{Offset: 512, Count: 512}, nil)
	must(t, err)
	diff, err = g.GetRangeList(ctx, &file.GetRangeListOptions{PrevShareSnapshot: snap2.Snapshot})
	must(t, err)
	if got, clear := rangeString(diff.Ranges), clearString(diff.ClearRanges); got != "[]" || clear != "[512-1023]" {
		t.Errorf("changed %s cleared %s, want [] and [512-1023]", got, clear)
	}
}

// TestListRangesBytes pins plain Get Range List at byte granularity, unlike
// the diff: after writing 0-9 and clearing 0-512 the snapshot lists 512-512
// (azure-sdk-for-js storage-file-share test/fileclient.spec.ts "getRangeList
// with share snapshot", recorded).
func TestListRangesBytes(t *testing.T) {
	_, svc := start(t, lazulitest.Options{InMemory: true})
	sh := newShare(t, svc, "byteranges")
	f := sh.NewRootDirectoryClient().NewFileClient("f")
	_, err := f.Create(ctx, 512*4+1, nil)
	must(t, err)
	_, err = f.UploadRange(ctx, 0, streamOf([]byte("Hello")), nil)
	must(t, err)
	_, err = f.UploadRange(ctx, 5, streamOf([]byte("World")), nil)
	must(t, err)
	_, err = f.ClearRange(ctx, file.HTTPRange{Offset: 0, Count: 513}, nil)
	must(t, err)
	snap, err := sh.CreateSnapshot(ctx, nil)
	must(t, err)
	_, err = f.UploadRange(ctx, 0, streamOf([]byte("Hello")), nil)
	must(t, err)
	list, err := f.GetRangeList(ctx, &file.GetRangeListOptions{ShareSnapshot: snap.Snapshot})
	must(t, err)
	if got := rangeString(list.Ranges); got != "[512-512]" {
		t.Errorf("snapshot ranges %s, want [512-512]", got)
	}
}

func clearString(rs []*file.ClearRange) string {
	out := make([]*file.ShareFileRange, len(rs))
	for i, r := range rs {
		out[i] = &file.ShareFileRange{Start: r.Start, End: r.End}
	}
	return rangeString(out)
}
