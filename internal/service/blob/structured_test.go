package blob_test

import (
	"bytes"
	"io"
	"net/http"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/appendblob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blockblob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/pageblob"

	"github.com/lazuli-storage/lazuli/internal/rule/structured"
)

// TestStructuredMessageBodies uploads and downloads with the SDK's
// structured message CRC-64 validation (x-ms-structured-body), which frames
// the content in segments with their checksums: Put Blob, Put Block, Put
// Page and Append Block upload framed bodies, Get Blob answers one.
func TestStructuredMessageBodies(t *testing.T) {
	e := start(t)
	c := e.container("structured")
	validation := blob.TransferValidationTypeComputeStructuredMessageCRC64(1000)
	content := bytes.Repeat([]byte("0123456789abcdef"), 700) // 11,200 bytes: 12 segments of 1,000

	b := c.NewBlockBlobClient("put-blob")
	if _, err := b.Upload(e.ctx, nopCloser(content), &blockblob.UploadOptions{TransactionalValidation: validation}); err != nil {
		t.Fatalf("Put Blob: %v", err)
	}
	if got := e.download(b); !bytes.Equal(got, content) {
		t.Fatalf("Put Blob stored %d bytes, want %d", len(got), len(content))
	}

	staged := c.NewBlockBlobClient("put-block")
	id := "YmxvY2swMDE="
	if _, err := staged.StageBlock(e.ctx, id, nopCloser(content), &blockblob.StageBlockOptions{TransactionalValidation: validation}); err != nil {
		t.Fatalf("Put Block: %v", err)
	}
	if _, err := staged.CommitBlockList(e.ctx, []string{id}, nil); err != nil {
		t.Fatal(err)
	}
	if got := e.download(staged); !bytes.Equal(got, content) {
		t.Fatalf("Put Block stored %d bytes", len(got))
	}

	ab := c.NewAppendBlobClient("append")
	if _, err := ab.Create(e.ctx, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := ab.AppendBlock(e.ctx, nopCloser(content), &appendblob.AppendBlockOptions{TransactionalValidation: validation}); err != nil {
		t.Fatalf("Append Block: %v", err)
	}

	pb := c.NewPageBlobClient("pages")
	if _, err := pb.Create(e.ctx, 8192, nil); err != nil {
		t.Fatal(err)
	}
	page := bytes.Repeat([]byte{7}, 4096)
	if _, err := pb.UploadPages(e.ctx, nopCloser(page), blob.HTTPRange{Offset: 4096, Count: 4096},
		&pageblob.UploadPagesOptions{TransactionalValidation: validation}); err != nil {
		t.Fatalf("Put Page: %v", err)
	}

	for _, rng := range []blob.HTTPRange{{}, {Offset: 100, Count: 5000}} {
		resp, err := b.DownloadStream(e.ctx, &blob.DownloadStreamOptions{Range: rng, TransactionalValidation: validation})
		if err != nil {
			t.Fatalf("Get Blob %+v: %v", rng, err)
		}
		got, err := io.ReadAll(resp.Body)
		want := content
		if rng.Count > 0 {
			want = content[rng.Offset : rng.Offset+rng.Count]
		}
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("Get Blob %+v: %d bytes, %v", rng, len(got), err)
		}
	}

	// A corrupted frame is refused before anything is stored.
	framed := frame(t, content[:100])
	framed[30] ^= 0xff // a content byte, after the 13-byte header and 10-byte segment header
	r := e.raw(http.MethodPut, "structured/corrupt", http.Header{
		"X-Ms-Blob-Type": {"BlockBlob"}, "X-Ms-Structured-Body": {"XSM/1.0; properties=crc64"},
		"X-Ms-Structured-Content-Length": {"100"}}, framed)
	if r.StatusCode != http.StatusBadRequest || r.Header.Get("X-Ms-Error-Code") != "Crc64Mismatch" {
		t.Fatalf("corrupt frame: %d %s", r.StatusCode, r.Header.Get("X-Ms-Error-Code"))
	}
	if _, err := c.NewBlobClient("corrupt").GetProperties(e.ctx, nil); err == nil {
		t.Fatal("a corrupt upload was stored")
	}
}

// frame encodes content as a one-segment structured message.
func frame(t *testing.T, content []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	enc, err := structured.NewEncoder(&buf, int64(len(content)), 1<<20)
	if err == nil {
		_, err = enc.Write(content)
	}
	if err == nil {
		err = enc.Close()
	}
	if err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}
