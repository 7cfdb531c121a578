package blob_test

import (
	"crypto/sha256"
	"io"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blockblob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/container"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/lease"

	"github.com/lazuli-storage/lazuli/internal/check/lazulitest"
)

// TestRestart: everything a client wrote is there after a restart on the
// same data directory: containers, blobs, committed and uncommitted block
// lists, metadata and leases.
func TestRestart(t *testing.T) {
	e := startWith(t, lazulitest.Options{})
	c := e.svc.NewContainerClient("durable")
	if _, err := c.Create(e.ctx, &container.CreateOptions{Metadata: map[string]*string{"team": to.Ptr("core")}}); err != nil {
		t.Fatal(err)
	}
	plain := c.NewBlockBlobClient("plain")
	if _, err := plain.Upload(e.ctx, nopCloser([]byte("plain content")), &blockblob.UploadOptions{
		Metadata: map[string]*string{"k": to.Ptr("v")}, HTTPHeaders: &blob.HTTPHeaders{BlobContentType: to.Ptr("text/plain")}}); err != nil {
		t.Fatal(err)
	}
	blocks := c.NewBlockBlobClient("blocks")
	for i := range 3 {
		blocks.StageBlock(e.ctx, blockID(i), nopCloser([]byte{'0' + byte(i)}), nil)
	}
	if _, err := blocks.CommitBlockList(e.ctx, []string{blockID(0), blockID(1)}, nil); err != nil {
		t.Fatal(err)
	}
	blocks.StageBlock(e.ctx, blockID(7), nopCloser([]byte("seven")), nil)
	staged := c.NewBlockBlobClient("staged-only")
	staged.StageBlock(e.ctx, blockID(4), nopCloser([]byte("four")), nil)
	lc, _ := lease.NewBlobClient(plain, &lease.BlobClientOptions{LeaseID: to.Ptr(idA)})
	if _, err := lc.AcquireLease(e.ctx, -1, nil); err != nil {
		t.Fatal(err)
	}
	clc, _ := lease.NewContainerClient(c, &lease.ContainerClientOptions{LeaseID: to.Ptr(idB)})
	if _, err := clc.AcquireLease(e.ctx, 60, nil); err != nil {
		t.Fatal(err)
	}
	before, _ := plain.GetProperties(e.ctx, nil)

	e.in.Restart(t)
	e.connect()
	c = e.svc.NewContainerClient("durable")
	plain, blocks, staged = c.NewBlockBlobClient("plain"), c.NewBlockBlobClient("blocks"), c.NewBlockBlobClient("staged-only")

	cp, err := c.GetProperties(e.ctx, nil)
	if err != nil || *cp.Metadata["Team"] != "core" || *cp.LeaseState != lease.StateTypeLeased {
		t.Fatalf("container after restart: %v %+v", err, cp)
	}
	p, err := plain.GetProperties(e.ctx, nil)
	if err != nil || *p.ETag != *before.ETag || *p.ContentType != "text/plain" || *p.Metadata["K"] != "v" || *p.LeaseState != lease.StateTypeLeased {
		t.Fatalf("blob after restart: %v %+v", err, p)
	}
	if got := e.download(plain); string(got) != "plain content" {
		t.Fatalf("content %q", got)
	}
	if got := e.download(blocks); string(got) != "01" {
		t.Fatalf("committed blocks read %q", got)
	}
	bl, err := blocks.GetBlockList(e.ctx, blockblob.BlockListTypeAll, nil)
	if err != nil || len(bl.CommittedBlocks) != 2 || len(bl.UncommittedBlocks) != 1 {
		t.Fatalf("block list after restart: %v %+v", err, bl)
	}
	bl, err = staged.GetBlockList(e.ctx, blockblob.BlockListTypeUncommitted, nil)
	if err != nil || len(bl.UncommittedBlocks) != 1 || *bl.UncommittedBlocks[0].Size != 4 {
		t.Fatalf("staged-only blob after restart: %v %+v", err, bl)
	}
	_, err = plain.Upload(e.ctx, nopCloser([]byte("no lease")), nil)
	wantCode(t, err, 412, "LeaseIdMissing")
	if _, err := blocks.CommitBlockList(e.ctx, []string{blockID(7)}, nil); err != nil {
		t.Fatal(err)
	}
	if got := e.download(blocks); string(got) != "seven" {
		t.Fatalf("commit after restart read %q", got)
	}
}

// patternSize is the size of the large upload; its content is byte
// (position % 251), generated on the fly with copy (cheap under -race).
const patternSize = 256 << 20

// pattern holds whole periods of the content so reads are copies.
var pattern = func() []byte {
	p := make([]byte, 251*300)
	for i := range p {
		p[i] = byte(i % 251)
	}
	return p
}()

// readerAt serves the content at any offset without storing it.
type readerAt struct{}

func (readerAt) ReadAt(b []byte, off int64) (int, error) {
	if off >= patternSize {
		return 0, io.EOF
	}
	n := int(min(int64(len(b)), patternSize-off))
	for done := 0; done < n; {
		pos := off + int64(done)
		done += copy(b[done:n], pattern[pos%251:])
	}
	if n < len(b) {
		return n, io.EOF
	}
	return n, nil
}

// TestLargePutBlob streams a 256 MiB Put Blob in one request to the file
// extents, then reads it back through a hash, neither side buffering it.
func TestLargePutBlob(t *testing.T) {
	if testing.Short() {
		t.Skip("256 MiB upload")
	}
	e := startWith(t, lazulitest.Options{})
	c := e.container("large")
	const size = patternSize
	want := sha256.New()
	if _, err := io.Copy(want, io.NewSectionReader(readerAt{}, 0, size)); err != nil {
		t.Fatal(err)
	}
	// The SDK needs a seekable body; a section over the generator seeks.
	body := io.NewSectionReader(readerAt{}, 0, size)
	b := c.NewBlockBlobClient("big")
	if _, err := b.Upload(e.ctx, readSeekCloser{body}, nil); err != nil {
		t.Fatal(err)
	}
	resp, err := b.DownloadStream(e.ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	got := sha256.New()
	n, err := io.Copy(got, resp.Body)
	if err != nil || n != size || string(got.Sum(nil)) != string(want.Sum(nil)) {
		t.Fatalf("read back %d bytes (%v), digest match %v", n, err, string(got.Sum(nil)) == string(want.Sum(nil)))
	}
}

type readSeekCloser struct{ *io.SectionReader }

func (readSeekCloser) Close() error { return nil }
