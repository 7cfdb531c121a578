package blob_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/appendblob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blockblob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/container"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/pageblob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/sas"
)

// newCPK is a customer-provided key as the SDK sends it: the key, its
// SHA-256 and the algorithm.
func newCPK(seed byte) blob.CPKInfo {
	key := bytes.Repeat([]byte{seed}, 32)
	sum := sha256.Sum256(key)
	return blob.CPKInfo{
		EncryptionKey:       to.Ptr(base64.StdEncoding.EncodeToString(key)),
		EncryptionKeySHA256: to.Ptr(base64.StdEncoding.EncodeToString(sum[:])),
		EncryptionAlgorithm: to.Ptr(blob.EncryptionAlgorithmTypeAES256),
	}
}

// The service's protocol for a block blob written under a customer key,
// as its recorded answers show it: the hash is echoed, reads and writes of
// the content need the key (409 BlobUsesCustomerSpecifiedEncryption
// without it), a key on a blob that has none is 409
// BlobDoesNotUseCustomerSpecifiedEncryption, and Set Blob Properties, Get
// Block List and listings do not need it.
func TestCustomerProvidedKeyBlockBlob(t *testing.T) {
	e := startTLS(t, nil)
	c := e.container("cpk")
	cpk, other := newCPK(1), newCPK(2)
	b := c.NewBlockBlobClient("secret")
	up, err := b.Upload(e.ctx, nopCloser([]byte("hidden words")), &blockblob.UploadOptions{CPKInfo: &cpk})
	if err != nil {
		t.Fatal(err)
	}
	if up.EncryptionKeySHA256 == nil || *up.EncryptionKeySHA256 != *cpk.EncryptionKeySHA256 || !*up.IsServerEncrypted {
		t.Fatalf("Put Blob answered key hash %v, encrypted %v", up.EncryptionKeySHA256, up.IsServerEncrypted)
	}

	// Reads without the key, or with another, are refused.
	_, err = b.DownloadStream(e.ctx, nil)
	wantCode(t, err, http.StatusConflict, "BlobUsesCustomerSpecifiedEncryption")
	_, err = b.GetProperties(e.ctx, nil)
	wantCode(t, err, http.StatusConflict, "BlobUsesCustomerSpecifiedEncryption")
	// Another key is 409 BlobCustomerSpecifiedEncryptionMismatch, "The
	// given customer specified encryption does not match the encryption
	// used to encrypt the blob." (the text of azure-sdk-for-js's recorded
	// "setMetadata, getProperties and createSnapshot with CPK-N",
	// recordings/node/encryption_scope).
	_, err = b.DownloadStream(e.ctx, &blob.DownloadStreamOptions{CPKInfo: &other})
	wantCode(t, err, http.StatusConflict, "BlobCustomerSpecifiedEncryptionMismatch")

	// With the key: the content, and the hash echoed.
	got, err := b.DownloadStream(e.ctx, &blob.DownloadStreamOptions{CPKInfo: &cpk})
	if err != nil {
		t.Fatal(err)
	}
	data, _ := io.ReadAll(got.Body)
	got.Body.Close()
	if string(data) != "hidden words" || *got.EncryptionKeySHA256 != *cpk.EncryptionKeySHA256 || !*got.IsServerEncrypted {
		t.Fatalf("download with the key: %q hash %v", data, got.EncryptionKeySHA256)
	}
	props, err := b.GetProperties(e.ctx, &blob.GetPropertiesOptions{CPKInfo: &cpk})
	if err != nil || *props.EncryptionKeySHA256 != *cpk.EncryptionKeySHA256 {
		t.Fatalf("properties with the key: %v %v", props.EncryptionKeySHA256, err)
	}

	// Set Blob Metadata needs the key, and echoes it.
	_, err = b.SetMetadata(e.ctx, map[string]*string{"a": to.Ptr("1")}, nil)
	wantCode(t, err, http.StatusConflict, "BlobUsesCustomerSpecifiedEncryption")
	md, err := b.SetMetadata(e.ctx, map[string]*string{"a": to.Ptr("1")}, &blob.SetMetadataOptions{CPKInfo: &cpk})
	if err != nil || *md.EncryptionKeySHA256 != *cpk.EncryptionKeySHA256 || !*md.IsServerEncrypted {
		t.Fatalf("set metadata with the key: %v", err)
	}

	// Set Blob Properties, Get Block List and List Blobs take no key.
	if _, err := b.SetHTTPHeaders(e.ctx, blob.HTTPHeaders{BlobContentType: to.Ptr("text/plain")}, nil); err != nil {
		t.Fatalf("set properties without the key: %v", err)
	}
	if _, err := b.GetBlockList(e.ctx, blockblob.BlockListTypeAll, nil); err != nil {
		t.Fatalf("block list without the key: %v", err)
	}
	items := e.listAll(c, container.ListBlobsInclude{}, 0)
	if p := items[0].Properties; p.CustomerProvidedKeySHA256 == nil || *p.CustomerProvidedKeySHA256 != *cpk.EncryptionKeySHA256 {
		t.Fatalf("listing shows key hash %v", p.CustomerProvidedKeySHA256)
	}

	// Set Blob Tier takes no key, so a blob under one refuses it.
	_, err = b.SetTier(e.ctx, blob.AccessTierCool, nil)
	wantCode(t, err, http.StatusConflict, "BlobUsesCustomerSpecifiedEncryption")

	// A snapshot needs the key, keeps it, and answers "not encrypted": it
	// writes no data.
	_, err = b.CreateSnapshot(e.ctx, nil)
	wantCode(t, err, http.StatusConflict, "BlobUsesCustomerSpecifiedEncryption")
	snap, err := b.CreateSnapshot(e.ctx, &blob.CreateSnapshotOptions{CPKInfo: &cpk})
	if err != nil || *snap.IsServerEncrypted {
		t.Fatalf("snapshot with the key: %v", err)
	}
	sb, _ := b.WithSnapshot(*snap.Snapshot)
	_, err = sb.GetProperties(e.ctx, nil)
	wantCode(t, err, http.StatusConflict, "BlobUsesCustomerSpecifiedEncryption")
	if _, err := sb.GetProperties(e.ctx, &blob.GetPropertiesOptions{CPKInfo: &cpk}); err != nil {
		t.Fatalf("snapshot read with the key: %v", err)
	}

	// Put Blob replaces the blob whatever key it had; a key on a blob
	// written without one is refused.
	e.upload(c, "plain", []byte("open"))
	_, err = c.NewBlobClient("plain").SetMetadata(e.ctx, nil, &blob.SetMetadataOptions{CPKInfo: &cpk})
	wantCode(t, err, http.StatusConflict, "BlobDoesNotUseCustomerSpecifiedEncryption")
	_, err = c.NewBlobClient("plain").DownloadStream(e.ctx, &blob.DownloadStreamOptions{CPKInfo: &cpk})
	wantCode(t, err, http.StatusConflict, "BlobDoesNotUseCustomerSpecifiedEncryption")
	if _, err := b.Upload(e.ctx, nopCloser([]byte("now open")), nil); err != nil {
		t.Fatalf("overwrite without the key: %v", err)
	}
	if string(e.download(b)) != "now open" {
		t.Fatal("the overwritten blob still needs the key")
	}
}

// Put Block and Put Block List take the key; the committed blob has it.
func TestCustomerProvidedKeyBlocks(t *testing.T) {
	e := startTLS(t, nil)
	c := e.container("cpk")
	cpk := newCPK(3)
	b := c.NewBlockBlobClient("blocks")
	id := base64.StdEncoding.EncodeToString([]byte("block-1"))
	st, err := b.StageBlock(e.ctx, id, nopCloser([]byte("AAA")), &blockblob.StageBlockOptions{CPKInfo: &cpk})
	if err != nil || *st.EncryptionKeySHA256 != *cpk.EncryptionKeySHA256 || !*st.IsServerEncrypted {
		t.Fatalf("stage block: %v", err)
	}
	cm, err := b.CommitBlockList(e.ctx, []string{id}, &blockblob.CommitBlockListOptions{CPKInfo: &cpk})
	if err != nil || *cm.EncryptionKeySHA256 != *cpk.EncryptionKeySHA256 || !*cm.IsServerEncrypted {
		t.Fatalf("commit: %v", err)
	}
	_, err = b.DownloadStream(e.ctx, nil)
	wantCode(t, err, http.StatusConflict, "BlobUsesCustomerSpecifiedEncryption")
}

// TestCustomerProvidedKeyCommitOfStagedBlocks: blocks staged under a key
// are committed only with that key. azure-sdk-for-python's recorded
// test_put_block_from_url_and_commit (tests/recordings/
// test_cpk.test_put_block_from_url_and_commit.yaml) commits two blocks
// staged with a key without it: 409 BlobUsesCustomerSpecifiedEncryption,
// the blocks staying staged, and the commit with the key then succeeds.
// Another key is the mismatch a read with another key gets.
func TestCustomerProvidedKeyCommitOfStagedBlocks(t *testing.T) {
	e := startTLS(t, nil)
	c := e.container("cpk")
	cpk, other := newCPK(4), newCPK(5)
	b := c.NewBlockBlobClient("staged")
	ids := []string{base64.StdEncoding.EncodeToString([]byte("1")), base64.StdEncoding.EncodeToString([]byte("2"))}
	for _, id := range ids {
		if _, err := b.StageBlock(e.ctx, id, nopCloser([]byte("AAA")), &blockblob.StageBlockOptions{CPKInfo: &cpk}); err != nil {
			t.Fatal(err)
		}
	}
	_, err := b.CommitBlockList(e.ctx, ids, nil)
	wantCode(t, err, http.StatusConflict, "BlobUsesCustomerSpecifiedEncryption")
	_, err = b.CommitBlockList(e.ctx, ids, &blockblob.CommitBlockListOptions{CPKInfo: &other})
	wantCode(t, err, http.StatusConflict, "BlobCustomerSpecifiedEncryptionMismatch")
	list, err := b.GetBlockList(e.ctx, blockblob.BlockListTypeAll, nil)
	if err != nil || len(list.UncommittedBlocks) != 2 || len(list.CommittedBlocks) != 0 {
		t.Fatalf("blocks after the refused commits: %+v %v", list, err)
	}
	if _, err := b.CommitBlockList(e.ctx, ids, &blockblob.CommitBlockListOptions{CPKInfo: &cpk}); err != nil {
		t.Fatalf("commit with the key: %v", err)
	}
}

// Append and page blobs: creation stores the key, every block or page
// written to them needs it.
func TestCustomerProvidedKeyAppendAndPageBlobs(t *testing.T) {
	e := startTLS(t, nil)
	c := e.container("cpk")
	cpk := newCPK(4)

	ab := c.NewAppendBlobClient("log")
	cr, err := ab.Create(e.ctx, &appendblob.CreateOptions{CPKInfo: &cpk})
	if err != nil || *cr.EncryptionKeySHA256 != *cpk.EncryptionKeySHA256 {
		t.Fatalf("create append blob: %v", err)
	}
	_, err = ab.AppendBlock(e.ctx, nopCloser([]byte("line")), nil)
	wantCode(t, err, http.StatusConflict, "BlobUsesCustomerSpecifiedEncryption")
	ap, err := ab.AppendBlock(e.ctx, nopCloser([]byte("line")), &appendblob.AppendBlockOptions{CPKInfo: &cpk})
	if err != nil || *ap.EncryptionKeySHA256 != *cpk.EncryptionKeySHA256 || !*ap.IsServerEncrypted {
		t.Fatalf("append with the key: %v", err)
	}

	pb := c.NewPageBlobClient("disk")
	if _, err := pb.Create(e.ctx, 1024, &pageblob.CreateOptions{CPKInfo: &cpk}); err != nil {
		t.Fatal(err)
	}
	page := bytes.Repeat([]byte{7}, 512)
	rng := blob.HTTPRange{Offset: 0, Count: 512}
	_, err = pb.UploadPages(e.ctx, nopCloser(page), rng, nil)
	wantCode(t, err, http.StatusConflict, "BlobUsesCustomerSpecifiedEncryption")
	pg, err := pb.UploadPages(e.ctx, nopCloser(page), rng, &pageblob.UploadPagesOptions{CPKInfo: &cpk})
	if err != nil || *pg.EncryptionKeySHA256 != *cpk.EncryptionKeySHA256 {
		t.Fatalf("put page with the key: %v", err)
	}
	// Resize and Get Page Ranges need no key.
	if _, err := pb.Resize(e.ctx, 2048, nil); err != nil {
		t.Fatalf("resize without the key: %v", err)
	}
	pager := pb.NewGetPageRangesPager(nil)
	if _, err := pager.NextPage(e.ctx); err != nil {
		t.Fatalf("page ranges without the key: %v", err)
	}
}

// A From URL write reads a source under a customer key only with
// x-ms-source-encryption-key; without it the source's refusal is reported
// as 409 CannotVerifyCopySource.
func TestCustomerProvidedKeyOfACopySource(t *testing.T) {
	e := startTLS(t, nil)
	c := e.container("cpk")
	cpk := newCPK(5)
	src := c.NewBlockBlobClient("src")
	if _, err := src.Upload(e.ctx, nopCloser([]byte("source bytes")), &blockblob.UploadOptions{CPKInfo: &cpk}); err != nil {
		t.Fatal(err)
	}
	srcURL, err := src.BlobClient().GetSASURL(sas.BlobPermissions{Read: true}, time.Now().Add(time.Hour), nil)
	if err != nil {
		t.Fatal(err)
	}
	dst := c.NewBlockBlobClient("dst")
	_, err = dst.UploadBlobFromURL(e.ctx, srcURL, nil)
	wantCode(t, err, http.StatusConflict, "CannotVerifyCopySource")
	source := &blob.SourceCPKInfo{SourceEncryptionKey: cpk.EncryptionKey,
		SourceEncryptionKeySHA256: cpk.EncryptionKeySHA256, SourceEncryptionAlgorithm: cpk.EncryptionAlgorithm}
	if _, err := dst.UploadBlobFromURL(e.ctx, srcURL, &blockblob.UploadBlobFromURLOptions{SourceCustomerProvidedKey: source}); err != nil {
		t.Fatalf("copy with the source key: %v", err)
	}
	// The destination was written without a key of its own.
	if string(e.download(dst)) != "source bytes" {
		t.Fatal("destination content")
	}
}

// Malformed keys are 400 naming the header at fault, as the service
// answers the SDK tests' "mumbojumbo" key; over plain HTTP a key is
// refused.
func TestCustomerProvidedKeyValidation(t *testing.T) {
	e := startTLS(t, nil)
	c := e.container("cpk")
	b := c.NewBlockBlobClient("b")
	bad := blob.CPKInfo{EncryptionKey: to.Ptr("mumbojumbo"), EncryptionKeySHA256: to.Ptr("mumbojumbohash"),
		EncryptionAlgorithm: to.Ptr(blob.EncryptionAlgorithmTypeAES256)}
	_, err := b.Upload(e.ctx, nopCloser([]byte("x")), &blockblob.UploadOptions{CPKInfo: &bad})
	wantCode(t, err, http.StatusBadRequest, "InvalidHeaderValue")
	mismatch := newCPK(6)
	mismatch.EncryptionKeySHA256 = newCPK(7).EncryptionKeySHA256
	_, err = b.Upload(e.ctx, nopCloser([]byte("x")), &blockblob.UploadOptions{CPKInfo: &mismatch})
	wantCode(t, err, http.StatusBadRequest, "InvalidHeaderValue")
	noAlgorithm := newCPK(8)
	noAlgorithm.EncryptionAlgorithm = nil
	_, err = b.Upload(e.ctx, nopCloser([]byte("x")), &blockblob.UploadOptions{CPKInfo: &noAlgorithm})
	wantCode(t, err, http.StatusBadRequest, "MissingRequiredHeader")

	plain := start(t)
	pc := plain.container("cpk")
	key := newCPK(9)
	_, err = pc.NewBlockBlobClient("b").Upload(plain.ctx, nopCloser([]byte("x")), &blockblob.UploadOptions{CPKInfo: &key})
	wantCode(t, err, http.StatusBadRequest, "UnsupportedHeader")
}
