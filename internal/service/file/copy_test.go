package file_test

import (
	"bytes"
	"encoding/binary"
	stdcrc64 "hash/crc64"
	"net/http"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob"
	blobsas "github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/sas"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azfile/file"
	filesas "github.com/Azure/azure-sdk-for-go/sdk/storage/azfile/sas"

	"github.com/lazuli-storage/lazuli/internal/check/lazulitest"
)

func TestCopyFileFromFile(t *testing.T) {
	_, svc := start(t, lazulitest.Options{InMemory: true})
	src := newShare(t, svc, "copysrc")
	dst := newShare(t, svc, "copydst")
	s := src.NewRootDirectoryClient().NewFileClient("source.txt")
	_, err := s.Create(ctx, 9, &file.CreateOptions{HTTPHeaders: &file.HTTPHeaders{ContentType: to.Ptr("text/plain")},
		Metadata: map[string]*string{"from": to.Ptr("source")}})
	must(t, err)
	_, err = s.UploadRange(ctx, 0, streamOf([]byte("copy me!!")), nil)
	must(t, err)

	d := dst.NewRootDirectoryClient().NewFileClient("copy.txt")
	resp, err := d.StartCopyFromURL(ctx, s.URL(), nil)
	must(t, err)
	if *resp.CopyStatus != "success" || resp.CopyID == nil {
		t.Fatalf("copy status %v id %v", resp.CopyStatus, resp.CopyID)
	}
	if got := download(t, d); got != "copy me!!" {
		t.Fatalf("copy reads %q", got)
	}
	props, err := d.GetProperties(ctx, nil)
	must(t, err)
	if *props.CopyID != *resp.CopyID || *props.CopyStatus != "success" || *props.CopyProgress != "9/9" ||
		*props.ContentType != "text/plain" || meta(props.Metadata, "from") != "source" {
		t.Fatalf("copy properties: %+v", props)
	}
	// The copy shares the source's extents; changing the source leaves it.
	_, err = s.UploadRange(ctx, 0, streamOf([]byte("CHANGED!!")), nil)
	must(t, err)
	if got := download(t, d); got != "copy me!!" {
		t.Fatalf("copy changed with its source: %q", got)
	}
	_, err = d.AbortCopy(ctx, *resp.CopyID, nil)
	wantCode(t, err, http.StatusConflict, "NoPendingCopyOperation")

	// Metadata given on the copy replaces the source's.
	_, err = d.StartCopyFromURL(ctx, s.URL(), &file.StartCopyFromURLOptions{Metadata: map[string]*string{"mine": to.Ptr("yes")}})
	must(t, err)
	props, err = d.GetProperties(ctx, nil)
	must(t, err)
	if meta(props.Metadata, "mine") != "yes" || meta(props.Metadata, "from") != "" {
		t.Errorf("metadata %v", props.Metadata)
	}
	// A copy onto itself keeps the content.
	_, err = s.StartCopyFromURL(ctx, s.URL(), nil)
	must(t, err)
	if got := download(t, s); got != "CHANGED!!" {
		t.Fatalf("self copy reads %q", got)
	}
	// A missing source file is the copy's own ResourceNotFound (the SDK's
	// recorded TestFileStartCopySourceNonExistent).
	_, err = d.StartCopyFromURL(ctx, src.NewRootDirectoryClient().NewFileClient("nope").URL(), nil)
	wantCode(t, err, http.StatusNotFound, "ResourceNotFound")
	_, err = d.StartCopyFromURL(ctx, "http://example.invalid/devstoreaccount1/copysrc/source.txt", nil)
	wantCode(t, err, http.StatusBadRequest, "InvalidHeaderValue")
}

func TestCopyFileFromSnapshotAndBlob(t *testing.T) {
	in, svc := start(t, lazulitest.Options{InMemory: true})
	sh := newShare(t, svc, "copies")
	s := sh.NewRootDirectoryClient().NewFileClient("s")
	_, err := s.Create(ctx, 3, nil)
	must(t, err)
	_, err = s.UploadRange(ctx, 0, streamOf([]byte("old")), nil)
	must(t, err)
	snap, err := sh.CreateSnapshot(ctx, nil)
	must(t, err)
	_, err = s.UploadRange(ctx, 0, streamOf([]byte("new")), nil)
	must(t, err)
	old, err := sh.WithSnapshot(*snap.Snapshot)
	must(t, err)
	d := sh.NewRootDirectoryClient().NewFileClient("from-snapshot")
	_, err = d.StartCopyFromURL(ctx, old.NewRootDirectoryClient().NewFileClient("s").URL(), nil)
	must(t, err)
	if got := download(t, d); got != "old" {
		t.Fatalf("copy from snapshot reads %q", got)
	}

	blobURL := uploadBlob(t, in, "srcblobs", "b.bin", []byte("from the blob service"))
	fb := sh.NewRootDirectoryClient().NewFileClient("from-blob")
	_, err = fb.StartCopyFromURL(ctx, blobURL, nil)
	must(t, err)
	if got := download(t, fb); got != "from the blob service" {
		t.Fatalf("copy from blob reads %q", got)
	}
	_, err = fb.StartCopyFromURL(ctx, in.BlobURL+"srcblobs/missing", nil)
	wantCode(t, err, http.StatusNotFound, "CannotVerifyCopySource")
	// Another listener of this host is not a copy source.
	_, err = fb.StartCopyFromURL(ctx, in.QueueURL+"somequeue/messages", nil)
	wantCode(t, err, http.StatusBadRequest, "CannotVerifyCopySource")
}

// uploadBlob stores a blob through the Blob service and returns its URL.
func uploadBlob(t *testing.T, in *lazulitest.Instance, container, name string, data []byte) string {
	t.Helper()
	cred, err := azblob.NewSharedKeyCredential(lazulitest.Account, lazulitest.Key)
	must(t, err)
	bc, err := azblob.NewClientWithSharedKeyCredential(in.BlobURL, cred, &azblob.ClientOptions{ClientOptions: clientOptions().ClientOptions})
	must(t, err)
	if _, err := bc.CreateContainer(ctx, container, nil); err != nil {
		if c, _ := code(err); c != "ContainerAlreadyExists" {
			t.Fatal(err)
		}
	}
	_, err = bc.UploadBuffer(ctx, container, name, data, nil)
	must(t, err)
	return in.BlobURL + container + "/" + name
}

// readableBlob is a blob's URL with a read SAS: what Put Range From URL's
// source needs, the request's own Shared Key not authorizing it.
func readableBlob(t *testing.T, in *lazulitest.Instance, container, name string) string {
	t.Helper()
	cred, err := azblob.NewSharedKeyCredential(lazulitest.Account, lazulitest.Key)
	must(t, err)
	q, err := blobsas.BlobSignatureValues{Protocol: blobsas.ProtocolHTTPSandHTTP, ExpiryTime: time.Now().Add(time.Hour),
		ContainerName: container, BlobName: name, Permissions: (&blobsas.BlobPermissions{Read: true}).String()}.SignWithSharedKey(cred)
	must(t, err)
	return in.BlobURL + container + "/" + name + "?" + q.Encode()
}

// readableFile is a file's URL with a read SAS.
func readableFile(t *testing.T, f *file.Client) string {
	t.Helper()
	u, err := f.GetSASURL(filesas.FilePermissions{Read: true}, time.Now().Add(time.Hour), nil)
	must(t, err)
	return u
}

func TestPutRangeFromURL(t *testing.T) {
	in, svc := start(t, lazulitest.Options{InMemory: true})
	sh := newShare(t, svc, "fromurl")
	src := sh.NewRootDirectoryClient().NewFileClient("src")
	_, err := src.Create(ctx, 16, nil)
	must(t, err)
	_, err = src.UploadRange(ctx, 4, streamOf([]byte("ABCD")), nil)
	must(t, err)
	dst := sh.NewRootDirectoryClient().NewFileClient("dst")
	_, err = dst.Create(ctx, 16, nil)
	must(t, err)
	_, err = dst.UploadRange(ctx, 0, streamOf(bytes.Repeat([]byte("z"), 16)), nil)
	must(t, err)
	// Source bytes 2..9: two zeros, ABCD, two zeros; the holes stay holes.
	// The request's own Shared Key does not authorize the source (the
	// SDK's live TestFileUploadRangeFromURLNegative): a SAS does.
	_, err = dst.UploadRangeFromURL(ctx, src.URL(), 2, 8, 8, nil)
	wantCode(t, err, http.StatusForbidden, "CannotVerifyCopySource")
	_, err = dst.UploadRangeFromURL(ctx, readableFile(t, src), 2, 8, 8, nil)
	must(t, err)
	if got := download(t, dst); got != "zzzzzzzz\x00\x00ABCD\x00\x00" {
		t.Fatalf("dst reads %q", got)
	}
	ranges, err := dst.GetRangeList(ctx, nil)
	must(t, err)
	if got := rangeString(ranges.Ranges); got != "[0-7 10-13]" {
		t.Errorf("ranges %s", got)
	}
	uploadBlob(t, in, "rangeblobs", "r.bin", []byte("0123456789"))
	blobURL := readableBlob(t, in, "rangeblobs", "r.bin")
	_, err = dst.UploadRangeFromURL(ctx, blobURL, 3, 0, 4, nil)
	must(t, err)
	if got := download(t, dst)[:4]; got != "3456" {
		t.Fatalf("range from blob reads %q", got)
	}
	_, err = dst.UploadRangeFromURL(ctx, readableFile(t, src), 10, 0, 8, nil)
	wantCode(t, err, http.StatusRequestedRangeNotSatisfiable, "InvalidRange")

	// Source CRC-64s: the checksum of source bytes 2..9 (holes as zeros).
	sum := stdcrc64.Checksum([]byte("\x00\x00ABCD\x00\x00"), stdcrc64.MakeTable(0x9A6C9329AC4BC9B5))
	sumBytes := binary.LittleEndian.AppendUint64(nil, sum)
	resp, err := dst.UploadRangeFromURL(ctx, readableFile(t, src), 2, 8, 8, &file.UploadRangeFromURLOptions{
		SourceContentValidation: file.SourceContentValidationTypeCRC64(sum)})
	must(t, err)
	if !bytes.Equal(resp.XMSContentCRC64, sumBytes) {
		t.Errorf("x-ms-content-crc64 %x, want %x", resp.XMSContentCRC64, sumBytes)
	}
	// The range's CRC-64 is answered when nothing asked for it too, as
	// azfile's live tests (TestFileUploadRangeFromURLNow) expect.
	resp, err = dst.UploadRangeFromURL(ctx, readableFile(t, src), 2, 8, 8, nil)
	must(t, err)
	if !bytes.Equal(resp.XMSContentCRC64, sumBytes) {
		t.Errorf("unasked x-ms-content-crc64 %x, want %x", resp.XMSContentCRC64, sumBytes)
	}
	_, err = dst.UploadRangeFromURL(ctx, readableFile(t, src), 2, 8, 8, &file.UploadRangeFromURLOptions{
		SourceContentValidation: file.SourceContentValidationTypeCRC64(sum + 1)})
	wantCode(t, err, http.StatusBadRequest, "Crc64Mismatch")
	_, err = dst.UploadRangeFromURL(ctx, readableFile(t, src), 2, 8, 8, &file.UploadRangeFromURLOptions{
		SourceModifiedAccessConditions: &file.SourceModifiedAccessConditions{SourceIfMatchCRC64: sumBytes}})
	must(t, err)
	_, err = dst.UploadRangeFromURL(ctx, readableFile(t, src), 2, 8, 8, &file.UploadRangeFromURLOptions{
		SourceModifiedAccessConditions: &file.SourceModifiedAccessConditions{SourceIfNoneMatchCRC64: sumBytes}})
	wantCode(t, err, http.StatusPreconditionFailed, "SourceConditionNotMet")
	_, err = dst.UploadRangeFromURL(ctx, blobURL, 3, 0, 4, &file.UploadRangeFromURLOptions{
		SourceContentValidation: file.SourceContentValidationTypeCRC64(stdcrc64.Checksum([]byte("3456"), stdcrc64.MakeTable(0x9A6C9329AC4BC9B5)))})
	must(t, err)
}
