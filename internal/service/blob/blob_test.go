package blob_test

import (
	"bytes"
	"crypto/md5"
	"encoding/base64"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/bloberror"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blockblob"

	"github.com/lazuli-storage/lazuli/internal/check/lazulitest"
)

func TestPutGetBlob(t *testing.T) {
	e := start(t)
	c := e.container("blobs")
	data := []byte("The quick brown fox jumps over the lazy dog")
	b := c.NewBlockBlobClient("fox.txt")
	up, err := b.Upload(e.ctx, nopCloser(data), &blockblob.UploadOptions{
		Metadata: map[string]*string{"color": to.Ptr("brown")},
		HTTPHeaders: &blob.HTTPHeaders{BlobContentType: to.Ptr("text/plain"), BlobContentLanguage: to.Ptr("en"),
			BlobContentEncoding: to.Ptr("identity"), BlobCacheControl: to.Ptr("no-cache"), BlobContentDisposition: to.Ptr("inline")},
	})
	if err != nil {
		t.Fatal(err)
	}
	sum := md5.Sum(data)
	if !bytes.Equal(up.ContentMD5, sum[:]) || up.ETag == nil || up.LastModified == nil || !*up.IsServerEncrypted {
		t.Fatalf("upload response: md5 %x etag %v", up.ContentMD5, up.ETag)
	}
	resp, err := b.DownloadStream(e.ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !bytes.Equal(got, data) || *resp.ContentLength != int64(len(data)) || *resp.ETag != *up.ETag {
		t.Fatalf("download %q len %d etag %s", got, *resp.ContentLength, *resp.ETag)
	}
	if *resp.ContentType != "text/plain" || *resp.ContentLanguage != "en" || *resp.ContentEncoding != "identity" ||
		*resp.CacheControl != "no-cache" || *resp.ContentDisposition != "inline" || !bytes.Equal(resp.ContentMD5, sum[:]) {
		t.Fatalf("download headers: %+v", resp)
	}
	if *resp.BlobType != blob.BlobTypeBlockBlob || *resp.Metadata["Color"] != "brown" || resp.CreationTime == nil || *resp.AcceptRanges != "bytes" {
		t.Fatalf("download blob type %v metadata %v", *resp.BlobType, resp.Metadata)
	}
	props, err := b.GetProperties(e.ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if *props.ContentLength != int64(len(data)) || *props.AccessTier != "Hot" || !*props.AccessTierInferred || *props.LeaseState != "available" {
		t.Fatalf("properties: %+v", props)
	}
	if !props.LastModified.Equal(*up.LastModified) || *props.ETag != *up.ETag {
		t.Fatal("properties disagree with the upload's ETag/Last-Modified")
	}
	// Overwrite keeps creation time, changes the ETag; without headers the
	// content type falls back to application/octet-stream.
	up2, err := b.Upload(e.ctx, nopCloser([]byte("v2")), nil)
	if err != nil {
		t.Fatal(err)
	}
	props2, _ := b.GetProperties(e.ctx, nil)
	if *up2.ETag == *up.ETag || !props2.CreationTime.Equal(*props.CreationTime) || *props2.ContentType != "application/octet-stream" || len(props2.Metadata) != 0 {
		t.Fatalf("overwrite: etag %s, created %v vs %v, type %s", *up2.ETag, props2.CreationTime, props.CreationTime, *props2.ContentType)
	}
	_, err = c.NewBlobClient("missing").GetProperties(e.ctx, nil)
	wantCode(t, err, 404, string(bloberror.BlobNotFound))
	_, err = e.svc.NewContainerClient("nocontainer").NewBlobClient("x").DownloadStream(e.ctx, nil)
	wantCode(t, err, 404, string(bloberror.ContainerNotFound))
}

func TestEmptyBlob(t *testing.T) {
	e := start(t)
	c := e.container("empty")
	b := e.upload(c, "zero", nil)
	if got := e.download(b); len(got) != 0 {
		t.Fatalf("empty blob read %d bytes", len(got))
	}
	_, err := b.DownloadStream(e.ctx, &blob.DownloadStreamOptions{Range: blob.HTTPRange{Offset: 0, Count: 10}})
	wantCode(t, err, 416, string(bloberror.InvalidRange))
	buf := make([]byte, 0)
	if n, err := b.DownloadBuffer(e.ctx, buf, nil); err != nil || n != 0 {
		t.Fatalf("DownloadBuffer of an empty blob: %d, %v", n, err)
	}
}

func TestRanges(t *testing.T) {
	e := start(t)
	c := e.container("ranges")
	data := []byte("0123456789abcdefghij")
	b := e.upload(c, "r", data)
	cases := []struct {
		rng  blob.HTTPRange
		want string
	}{
		{blob.HTTPRange{Offset: 0, Count: 5}, "01234"},
		{blob.HTTPRange{Offset: 15}, "fghij"},
		{blob.HTTPRange{Offset: 18, Count: 100}, "ij"},
	}
	for _, tc := range cases {
		resp, err := b.DownloadStream(e.ctx, &blob.DownloadStreamOptions{Range: tc.rng})
		if err != nil {
			t.Fatal(err)
		}
		got, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if string(got) != tc.want || resp.ContentRange == nil || !strings.HasSuffix(*resp.ContentRange, "/20") {
			t.Fatalf("range %+v: %q, Content-Range %v", tc.rng, got, resp.ContentRange)
		}
	}
	_, err := b.DownloadStream(e.ctx, &blob.DownloadStreamOptions{Range: blob.HTTPRange{Offset: 20}})
	wantCode(t, err, 416, string(bloberror.InvalidRange))
	// The range's own MD5 on request; the whole blob's MD5 in x-ms-blob-content-md5.
	resp, err := b.DownloadStream(e.ctx, &blob.DownloadStreamOptions{Range: blob.HTTPRange{Offset: 2, Count: 3}, RangeGetContentMD5: to.Ptr(true)})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	part, whole := md5.Sum([]byte("234")), md5.Sum(data)
	if !bytes.Equal(resp.ContentMD5, part[:]) || !bytes.Equal(resp.BlobContentMD5, whole[:]) {
		t.Fatalf("range md5 %x, blob md5 %x", resp.ContentMD5, resp.BlobContentMD5)
	}
	_, err = b.DownloadStream(e.ctx, &blob.DownloadStreamOptions{Range: blob.HTTPRange{Offset: 0, Count: 5 << 20}, RangeGetContentMD5: to.Ptr(true)})
	wantCode(t, err, 400, "InvalidHeaderValue")
	// Wire details: 206, Content-Range, x-ms-range over Range, bad Range ignored.
	r := e.raw(http.MethodGet, "ranges/r", http.Header{"Range": {"bytes=0-1"}, "X-Ms-Range": {"bytes=3-4"}}, nil)
	body, _ := io.ReadAll(r.Body)
	if r.StatusCode != 206 || string(body) != "34" || r.Header.Get("Content-Range") != "bytes 3-4/20" {
		t.Fatalf("x-ms-range: %d %q %s", r.StatusCode, body, r.Header.Get("Content-Range"))
	}
	r = e.raw(http.MethodGet, "ranges/r", http.Header{"Range": {"bytes=-3"}}, nil)
	body, _ = io.ReadAll(r.Body)
	if r.StatusCode != 200 || string(body) != string(data) {
		t.Fatalf("unparsable Range: %d %q", r.StatusCode, body)
	}
	r = e.raw(http.MethodGet, "ranges/r", http.Header{"X-Ms-Range": {"bytes=9-3"}}, nil)
	if r.StatusCode != 400 {
		t.Fatalf("bad x-ms-range: %d", r.StatusCode)
	}
	// A downloader that splits the blob in blocks gets it whole.
	out := make([]byte, len(data))
	if _, err := b.DownloadBuffer(e.ctx, out, &blob.DownloadBufferOptions{BlockSize: 7}); err != nil || !bytes.Equal(out, data) {
		t.Fatalf("DownloadBuffer: %q %v", out, err)
	}
}

func TestChecksums(t *testing.T) {
	e := start(t)
	c := e.container("sums")
	data := []byte("checksummed content")
	b := c.NewBlockBlobClient("md5")
	bad := md5.Sum([]byte("other"))
	_, err := b.Upload(e.ctx, nopCloser(data), &blockblob.UploadOptions{TransactionalValidation: blob.TransferValidationTypeMD5(bad[:])})
	wantCode(t, err, 400, string(bloberror.MD5Mismatch))
	_, err = b.GetProperties(e.ctx, nil)
	wantCode(t, err, 404, string(bloberror.BlobNotFound))
	good := md5.Sum(data)
	if _, err := b.Upload(e.ctx, nopCloser(data), &blockblob.UploadOptions{TransactionalValidation: blob.TransferValidationTypeMD5(good[:])}); err != nil {
		t.Fatal(err)
	}
	// CRC-64 on Put Block, computed by the SDK with Azure's polynomial.
	id := base64.StdEncoding.EncodeToString([]byte("blk-0001"))
	resp, err := b.StageBlock(e.ctx, id, nopCloser(data), &blockblob.StageBlockOptions{TransactionalValidation: blob.TransferValidationTypeComputeCRC64()})
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.ContentCRC64) != 8 {
		t.Fatalf("stage block returned CRC-64 %x", resp.ContentCRC64)
	}
	_, err = b.StageBlock(e.ctx, id, nopCloser(data), &blockblob.StageBlockOptions{TransactionalValidation: blob.TransferValidationTypeCRC64(12345)})
	wantCode(t, err, 400, "Crc64Mismatch")
	// A stored x-ms-blob-content-md5 wins over the computed one.
	stored := md5.Sum([]byte("declared"))
	if _, err := b.Upload(e.ctx, nopCloser(data), &blockblob.UploadOptions{HTTPHeaders: &blob.HTTPHeaders{BlobContentMD5: stored[:]}}); err != nil {
		t.Fatal(err)
	}
	props, _ := b.GetProperties(e.ctx, nil)
	if !bytes.Equal(props.ContentMD5, stored[:]) {
		t.Fatalf("stored md5 %x", props.ContentMD5)
	}
	r := e.raw(http.MethodPut, "sums/badmd5", http.Header{"X-Ms-Blob-Type": {"BlockBlob"}, "Content-Md5": {"not-base64"}}, []byte("x"))
	if r.StatusCode != 400 || r.Header.Get("x-ms-error-code") != "InvalidMd5" {
		t.Fatalf("malformed Content-MD5: %d %s", r.StatusCode, r.Header.Get("x-ms-error-code"))
	}
}

func TestSetBlobPropertiesAndMetadata(t *testing.T) {
	e := start(t)
	c := e.container("props")
	b := e.upload(c, "p", []byte("data"))
	before, _ := b.GetProperties(e.ctx, nil)
	set, err := b.SetHTTPHeaders(e.ctx, blob.HTTPHeaders{BlobContentType: to.Ptr("application/json"), BlobContentDisposition: to.Ptr("attachment")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if *set.ETag == *before.ETag {
		t.Fatal("Set Blob Properties kept the ETag")
	}
	props, _ := b.GetProperties(e.ctx, nil)
	if *props.ContentType != "application/json" || *props.ContentDisposition != "attachment" || props.ContentMD5 != nil || *props.ETag != *set.ETag {
		t.Fatalf("after set properties: type %s disposition %v md5 %x", *props.ContentType, props.ContentDisposition, props.ContentMD5)
	}
	md, err := b.SetMetadata(e.ctx, map[string]*string{"k1": to.Ptr("v1"), "k2": to.Ptr("v2")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	props, _ = b.GetProperties(e.ctx, nil)
	if len(props.Metadata) != 2 || *props.ETag != *md.ETag || *props.ETag == *set.ETag {
		t.Fatalf("metadata %v etag %s", props.Metadata, *props.ETag)
	}
	r := e.raw(http.MethodGet, "props/p?comp=metadata", nil, nil)
	if r.StatusCode != 200 || r.Header.Get("x-ms-meta-k1") != "v1" || r.Header.Get("ETag") != string(*md.ETag) {
		t.Fatalf("Get Blob Metadata: %d %v", r.StatusCode, r.Header)
	}
	_, err = b.SetMetadata(e.ctx, map[string]*string{"not valid": to.Ptr("x")}, nil)
	if err == nil {
		t.Fatal("invalid metadata name accepted")
	}
	_, err = c.NewBlobClient("absent").SetMetadata(e.ctx, nil, nil)
	wantCode(t, err, 404, string(bloberror.BlobNotFound))
}

func TestDeleteBlob(t *testing.T) {
	e := start(t)
	c := e.container("del")
	b := e.upload(c, "d", []byte("data"))
	props, _ := b.GetProperties(e.ctx, nil)
	wrong := azcore.ETag(`"0x1"`)
	_, err := b.Delete(e.ctx, &blob.DeleteOptions{AccessConditions: &blob.AccessConditions{ModifiedAccessConditions: &blob.ModifiedAccessConditions{IfMatch: &wrong}}})
	wantCode(t, err, 412, string(bloberror.ConditionNotMet))
	if _, err := b.Delete(e.ctx, &blob.DeleteOptions{AccessConditions: &blob.AccessConditions{ModifiedAccessConditions: &blob.ModifiedAccessConditions{IfMatch: props.ETag}}}); err != nil {
		t.Fatal(err)
	}
	_, err = b.GetProperties(e.ctx, nil)
	wantCode(t, err, 404, string(bloberror.BlobNotFound))
	_, err = b.Delete(e.ctx, nil)
	wantCode(t, err, 404, string(bloberror.BlobNotFound))
}

func TestConditionalHeaders(t *testing.T) {
	e := start(t)
	c := e.container("cond")
	b := e.upload(c, "c", []byte("v1"))
	props, _ := b.GetProperties(e.ctx, nil)
	etag := *props.ETag
	other := azcore.ETag(`"0x8D000000000000"`)
	past, future := props.LastModified.Add(-time.Hour), props.LastModified.Add(time.Hour)
	mac := func(m blob.ModifiedAccessConditions) *blob.AccessConditions {
		return &blob.AccessConditions{ModifiedAccessConditions: &m}
	}
	// Reads: 304 for If-None-Match / If-Modified-Since, 412 for the others.
	_, err := b.GetProperties(e.ctx, &blob.GetPropertiesOptions{AccessConditions: mac(blob.ModifiedAccessConditions{IfNoneMatch: &etag})})
	wantCode(t, err, 304, "")
	_, err = b.GetProperties(e.ctx, &blob.GetPropertiesOptions{AccessConditions: mac(blob.ModifiedAccessConditions{IfModifiedSince: &future})})
	wantCode(t, err, 304, "")
	_, err = b.GetProperties(e.ctx, &blob.GetPropertiesOptions{AccessConditions: mac(blob.ModifiedAccessConditions{IfMatch: &other})})
	wantCode(t, err, 412, string(bloberror.ConditionNotMet))
	_, err = b.GetProperties(e.ctx, &blob.GetPropertiesOptions{AccessConditions: mac(blob.ModifiedAccessConditions{IfUnmodifiedSince: &past})})
	wantCode(t, err, 412, string(bloberror.ConditionNotMet))
	if _, err := b.GetProperties(e.ctx, &blob.GetPropertiesOptions{AccessConditions: mac(blob.ModifiedAccessConditions{IfMatch: &etag, IfModifiedSince: &past})}); err != nil {
		t.Fatal(err)
	}
	r := e.raw(http.MethodGet, "cond/c", http.Header{"If-None-Match": {string(etag)}}, nil)
	body, _ := io.ReadAll(r.Body)
	if r.StatusCode != 304 || len(body) != 0 || r.Header.Get("x-ms-error-code") != "ConditionNotMet" {
		t.Fatalf("GET If-None-Match: %d %q %s", r.StatusCode, body, r.Header.Get("x-ms-error-code"))
	}
	// Writes: 412.
	_, err = b.SetMetadata(e.ctx, nil, &blob.SetMetadataOptions{AccessConditions: mac(blob.ModifiedAccessConditions{IfNoneMatch: &etag})})
	wantCode(t, err, 412, string(bloberror.ConditionNotMet))
	_, err = b.SetMetadata(e.ctx, nil, &blob.SetMetadataOptions{AccessConditions: mac(blob.ModifiedAccessConditions{IfModifiedSince: &future})})
	wantCode(t, err, 412, string(bloberror.ConditionNotMet))
	// If-None-Match:* on an existing blob's Put Blob is 409; on a new one it creates.
	star := azcore.ETagAny
	_, err = b.Upload(e.ctx, nopCloser([]byte("v2")), &blockblob.UploadOptions{AccessConditions: mac(blob.ModifiedAccessConditions{IfNoneMatch: &star})})
	wantCode(t, err, 409, string(bloberror.BlobAlreadyExists))
	if _, err := c.NewBlockBlobClient("fresh").Upload(e.ctx, nopCloser([]byte("x")), &blockblob.UploadOptions{AccessConditions: mac(blob.ModifiedAccessConditions{IfNoneMatch: &star})}); err != nil {
		t.Fatal(err)
	}
	// If-Match on a missing blob fails; writes reject unsupported combinations.
	_, err = c.NewBlockBlobClient("nothere").Upload(e.ctx, nopCloser([]byte("x")), &blockblob.UploadOptions{AccessConditions: mac(blob.ModifiedAccessConditions{IfMatch: &etag})})
	wantCode(t, err, 412, string(bloberror.ConditionNotMet))
	_, err = b.SetMetadata(e.ctx, nil, &blob.SetMetadataOptions{AccessConditions: mac(blob.ModifiedAccessConditions{IfMatch: &etag, IfNoneMatch: &other})})
	wantCode(t, err, 400, "MultipleConditionHeadersNotSupported")
	// Put Block takes no conditional headers.
	r = e.raw(http.MethodPut, "cond/c?comp=block&blockid="+base64.StdEncoding.EncodeToString([]byte("a")), http.Header{"If-Match": {string(etag)}}, []byte("x"))
	if r.StatusCode != 400 || r.Header.Get("x-ms-error-code") != "ConditionHeadersNotSupported" {
		t.Fatalf("Put Block with If-Match: %d %s", r.StatusCode, r.Header.Get("x-ms-error-code"))
	}
}

func TestLimitsAndNames(t *testing.T) {
	e := start(t)
	c := e.container("limits")
	// Content-Length is required on Put Blob and Put Block.
	req, _ := http.NewRequest(http.MethodPut, e.in.BlobURL+"limits/chunked", io.NopCloser(strings.NewReader("abc")))
	req.ContentLength = -1
	req.Header.Set("x-ms-blob-type", "BlockBlob")
	req.Header.Set("x-ms-version", "2025-01-05")
	signRequest(t, req)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 411 || resp.Header.Get("x-ms-error-code") != "MissingContentLengthHeader" {
		t.Fatalf("chunked Put Blob: %d %s", resp.StatusCode, resp.Header.Get("x-ms-error-code"))
	}
	// Bodies past the limit are refused before they are read.
	for _, tc := range []struct{ path, version string }{
		{"limits/big", "2025-01-05"}, {"limits/big?comp=block&blockid=" + base64.StdEncoding.EncodeToString([]byte("a")), "2025-01-05"},
		{"limits/old", "2019-02-02"},
	} {
		size := int64(5000<<20) + 1
		if strings.Contains(tc.path, "comp=block") {
			size = int64(4000<<20) + 1
		}
		if tc.version < "2019-12-12" {
			size = 256<<20 + 1
		}
		resp := e.headersOnly(http.MethodPut, tc.path, size, http.Header{"X-Ms-Blob-Type": {"BlockBlob"}, "X-Ms-Version": {tc.version}})
		if resp.StatusCode != 413 || resp.Header.Get("x-ms-error-code") != "RequestBodyTooLarge" {
			t.Fatalf("%s of %d bytes: %d %s", tc.path, size, resp.StatusCode, resp.Header.Get("x-ms-error-code"))
		}
	}
	// Blob names: 1..1024 characters.
	long := strings.Repeat("n", 1024)
	e.upload(c, long, []byte("x"))
	_, err = c.NewBlockBlobClient(long+"n").Upload(e.ctx, nopCloser([]byte("x")), nil)
	wantCode(t, err, 400, string(bloberror.InvalidResourceName))
	// Unicode and odd characters round-trip.
	for _, name := range []string{"a b/c d.txt", "ünï/cødé", "q?x=1&y#z", "dir//double"} {
		b := e.upload(c, name, []byte(name))
		if got := e.download(b); string(got) != name {
			t.Fatalf("blob %q read back %q", name, got)
		}
	}
	// Metadata too large and invalid names.
	_, err = c.NewBlockBlobClient("m").Upload(e.ctx, nopCloser(nil), &blockblob.UploadOptions{Metadata: map[string]*string{"x": to.Ptr(strings.Repeat("v", 8<<10))}})
	wantCode(t, err, 400, string(bloberror.MetadataTooLarge))
	_, err = c.NewBlockBlobClient("m").Upload(e.ctx, nopCloser(nil), &blockblob.UploadOptions{Metadata: map[string]*string{"9lives": to.Ptr("v")}})
	wantCode(t, err, 400, string(bloberror.InvalidMetadata))
	// x-ms-blob-type is required.
	r := e.raw(http.MethodPut, "limits/notype", nil, []byte("x"))
	if r.StatusCode != 400 || r.Header.Get("x-ms-error-code") != "MissingRequiredHeader" {
		t.Fatalf("no blob type: %d %s", r.StatusCode, r.Header.Get("x-ms-error-code"))
	}
}

// TestReadDuringOverwrite: a GET that is streaming while the blob is
// overwritten returns the old content whole.
func TestReadDuringOverwrite(t *testing.T) {
	for _, inMemory := range []bool{true, false} {
		e := startWith(t, lazulitest.Options{InMemory: inMemory})
		c := e.container("torn")
		old := bytes.Repeat([]byte("old!"), 1<<18)
		b := e.upload(c, "x", old)
		resp, err := b.DownloadStream(e.ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		first := make([]byte, 10)
		if _, err := io.ReadFull(resp.Body, first); err != nil {
			t.Fatal(err)
		}
		e.upload(c, "x", bytes.Repeat([]byte("new!"), 1<<18))
		if _, err := b.Delete(e.ctx, nil); err != nil {
			t.Fatal(err)
		}
		rest, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil || !bytes.Equal(append(first, rest...), old) {
			t.Fatalf("in memory %v: read torn by the overwrite (%v)", inMemory, err)
		}
	}
}
