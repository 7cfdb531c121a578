package blob_test

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/bloberror"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blockblob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/container"
)

func blockID(i int) string {
	return base64.StdEncoding.EncodeToString(fmt.Appendf(nil, "block-%04d", i))
}

func TestBlocks(t *testing.T) {
	e := start(t)
	c := e.container("blocks")
	b := c.NewBlockBlobClient("assembled")
	for i := range 3 {
		if _, err := b.StageBlock(e.ctx, blockID(i), nopCloser(bytes.Repeat([]byte{'a' + byte(i)}, i+1)), nil); err != nil {
			t.Fatal(err)
		}
	}
	// Staged only: not readable, but listed with include=uncommittedblobs.
	_, err := b.GetProperties(e.ctx, nil)
	wantCode(t, err, 404, string(bloberror.BlobNotFound))
	page, _ := c.NewListBlobsFlatPager(nil).NextPage(e.ctx)
	if len(page.Segment.BlobItems) != 0 {
		t.Fatal("uncommitted blob listed without include=uncommittedblobs")
	}
	page, _ = c.NewListBlobsFlatPager(&container.ListBlobsFlatOptions{Include: container.ListBlobsInclude{UncommittedBlobs: true}}).NextPage(e.ctx)
	if len(page.Segment.BlobItems) != 1 || *page.Segment.BlobItems[0].Properties.ContentLength != 0 {
		t.Fatalf("uncommitted listing: %d items", len(page.Segment.BlobItems))
	}
	bl, err := b.GetBlockList(e.ctx, blockblob.BlockListTypeAll, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(bl.CommittedBlocks) != 0 || len(bl.UncommittedBlocks) != 3 || *bl.UncommittedBlocks[2].Name != blockID(2) || *bl.UncommittedBlocks[2].Size != 3 {
		t.Fatalf("block list before commit: %+v", bl)
	}
	commit, err := b.CommitBlockList(e.ctx, []string{blockID(2), blockID(0)}, &blockblob.CommitBlockListOptions{
		HTTPHeaders: &blob.HTTPHeaders{BlobContentType: to.Ptr("text/plain")}, Metadata: map[string]*string{"k": to.Ptr("v")}})
	if err != nil {
		t.Fatal(err)
	}
	if got := e.download(b); string(got) != "ccca" {
		t.Fatalf("content %q", got)
	}
	bl, _ = b.GetBlockList(e.ctx, blockblob.BlockListTypeAll, nil)
	if len(bl.CommittedBlocks) != 2 || len(bl.UncommittedBlocks) != 0 || *bl.BlobContentLength != 4 || *bl.ETag != *commit.ETag {
		t.Fatalf("block list after commit: %d committed, %d uncommitted", len(bl.CommittedBlocks), len(bl.UncommittedBlocks))
	}
	props, _ := b.GetProperties(e.ctx, nil)
	if *props.ContentType != "text/plain" || *props.Metadata["K"] != "v" || props.ContentMD5 != nil {
		t.Fatalf("committed properties: %s %v %x", *props.ContentType, props.Metadata, props.ContentMD5)
	}
	// Recommit reusing a committed block with a new one; the same block may appear twice.
	if _, err := b.StageBlock(e.ctx, blockID(9), nopCloser([]byte("Z")), nil); err != nil {
		t.Fatal(err)
	}
	if _, err := b.CommitBlockList(e.ctx, []string{blockID(0), blockID(9), blockID(0)}, nil); err != nil {
		t.Fatal(err)
	}
	if got := e.download(b); string(got) != "aZa" {
		t.Fatalf("recommitted content %q", got)
	}
	// An unknown block is 400 InvalidBlockList and changes nothing.
	_, err = b.CommitBlockList(e.ctx, []string{blockID(0), blockID(7)}, nil)
	wantCode(t, err, 400, string(bloberror.InvalidBlockList))
	if got := e.download(b); string(got) != "aZa" {
		t.Fatalf("content after a failed commit %q", got)
	}
	// Put Block on a committed blob leaves its ETag alone.
	before, _ := b.GetProperties(e.ctx, nil)
	b.StageBlock(e.ctx, blockID(5), nopCloser([]byte("q")), nil)
	after, _ := b.GetProperties(e.ctx, nil)
	if *before.ETag != *after.ETag {
		t.Fatal("Put Block moved a committed blob's ETag")
	}
	// Put Blob discards uncommitted blocks.
	e.upload(c, "assembled", []byte("plain"))
	bl, _ = b.GetBlockList(e.ctx, blockblob.BlockListTypeAll, nil)
	if len(bl.CommittedBlocks) != 0 || len(bl.UncommittedBlocks) != 0 {
		t.Fatalf("after Put Blob: %d committed, %d uncommitted", len(bl.CommittedBlocks), len(bl.UncommittedBlocks))
	}
	_, err = c.NewBlockBlobClient("never").GetBlockList(e.ctx, blockblob.BlockListTypeAll, nil)
	wantCode(t, err, 404, string(bloberror.BlobNotFound))
}

func TestBlockListKinds(t *testing.T) {
	e := start(t)
	c := e.container("kinds")
	b := c.NewBlockBlobClient("k")
	stage := func(i int, data string) {
		t.Helper()
		if _, err := b.StageBlock(e.ctx, blockID(i), nopCloser([]byte(data)), nil); err != nil {
			t.Fatal(err)
		}
	}
	put := func(body string) *http.Response {
		return e.raw(http.MethodPut, "kinds/k?comp=blocklist", nil, []byte(`<?xml version="1.0" encoding="utf-8"?><BlockList>`+body+`</BlockList>`))
	}
	stage(1, "one")
	stage(2, "two")
	if r := put("<Uncommitted>" + blockID(1) + "</Uncommitted><Latest>" + blockID(2) + "</Latest>"); r.StatusCode != 201 {
		t.Fatalf("first commit: %d %s", r.StatusCode, r.Header.Get("x-ms-error-code"))
	}
	stage(1, "ONE")
	// Committed takes the committed version, Latest the new uncommitted one.
	if r := put("<Committed>" + blockID(1) + "</Committed><Latest>" + blockID(1) + "</Latest><Committed>" + blockID(2) + "</Committed>"); r.StatusCode != 201 {
		t.Fatalf("second commit: %d %s", r.StatusCode, r.Header.Get("x-ms-error-code"))
	}
	if got := e.download(b); string(got) != "oneONEtwo" {
		t.Fatalf("content %q", got)
	}
	for _, tc := range []struct{ body, code string }{
		{"<Uncommitted>" + blockID(1) + "</Uncommitted>", "InvalidBlockList"},
		{"<Committed>" + blockID(3) + "</Committed>", "InvalidBlockList"},
		{"<Latest>not base64!</Latest>", "InvalidBlockList"},
		{"<Latest>" + blockID(1), "InvalidXmlDocument"},
	} {
		if r := put(tc.body); r.StatusCode != 400 || r.Header.Get("x-ms-error-code") != tc.code {
			t.Fatalf("%s: %d %s", tc.body, r.StatusCode, r.Header.Get("x-ms-error-code"))
		}
	}
	// If-None-Match:* on an existing blob is 409 BlobAlreadyExists.
	r := e.raw(http.MethodPut, "kinds/k?comp=blocklist", http.Header{"If-None-Match": {"*"}},
		[]byte("<BlockList><Committed>"+blockID(2)+"</Committed></BlockList>"))
	if r.StatusCode != 409 || r.Header.Get("x-ms-error-code") != "BlobAlreadyExists" {
		t.Fatalf("If-None-Match:* on Put Block List: %d %s", r.StatusCode, r.Header.Get("x-ms-error-code"))
	}
	// An empty list commits an empty blob.
	if r := put(""); r.StatusCode != 201 {
		t.Fatalf("empty list: %d", r.StatusCode)
	}
	if got := e.download(b); len(got) != 0 {
		t.Fatalf("empty commit left %q", got)
	}
}

func TestBlockIDRules(t *testing.T) {
	e := start(t)
	c := e.container("ids")
	b := c.NewBlockBlobClient("ids")
	_, err := b.StageBlock(e.ctx, "not*base64", nopCloser([]byte("x")), nil)
	wantCode(t, err, 400, string(bloberror.InvalidBlockID))
	_, err = b.StageBlock(e.ctx, base64.StdEncoding.EncodeToString(bytes.Repeat([]byte("x"), 65)), nopCloser([]byte("x")), nil)
	wantCode(t, err, 400, string(bloberror.InvalidBlockID))
	if _, err := b.StageBlock(e.ctx, base64.StdEncoding.EncodeToString(bytes.Repeat([]byte("x"), 64)), nopCloser([]byte("x")), nil); err != nil {
		t.Fatal(err)
	}
	_, err = b.StageBlock(e.ctx, base64.StdEncoding.EncodeToString([]byte("short")), nopCloser([]byte("x")), nil)
	wantCode(t, err, 400, string(bloberror.InvalidBlobOrBlock))
	r := e.raw(http.MethodPut, "ids/ids?comp=block", nil, []byte("x"))
	if r.StatusCode != 400 || r.Header.Get("x-ms-error-code") != "MissingRequiredQueryParameter" {
		t.Fatalf("no blockid: %d %s", r.StatusCode, r.Header.Get("x-ms-error-code"))
	}
	// Mixed lengths in one list are refused by the parser.
	body := "<BlockList><Latest>" + blockID(1) + "</Latest><Latest>" + base64.StdEncoding.EncodeToString([]byte("x")) + "</Latest></BlockList>"
	r = e.raw(http.MethodPut, "ids/ids?comp=blocklist", nil, []byte(body))
	if r.StatusCode != 400 || r.Header.Get("x-ms-error-code") != "InvalidBlockList" {
		t.Fatalf("mixed lengths: %d %s", r.StatusCode, r.Header.Get("x-ms-error-code"))
	}
	// More than 50,000 entries: 400 BlockListTooLong.
	var sb strings.Builder
	sb.WriteString("<BlockList>")
	for range 50001 {
		sb.WriteString("<Latest>" + blockID(1) + "</Latest>")
	}
	sb.WriteString("</BlockList>")
	r = e.raw(http.MethodPut, "ids/ids?comp=blocklist", nil, []byte(sb.String()))
	if r.StatusCode != 400 || r.Header.Get("x-ms-error-code") != "BlockListTooLong" {
		t.Fatalf("50,001 blocks: %d %s", r.StatusCode, r.Header.Get("x-ms-error-code"))
	}
}

func TestUploadStreamInBlocks(t *testing.T) {
	e := start(t)
	c := e.container("chunks")
	data := make([]byte, 3<<20+17)
	for i := range data {
		data[i] = byte(i * 7)
	}
	b := c.NewBlockBlobClient("big")
	if _, err := b.UploadStream(e.ctx, bytes.NewReader(data), &blockblob.UploadStreamOptions{BlockSize: 1 << 20, Concurrency: 4}); err != nil {
		t.Fatal(err)
	}
	if got := e.download(b); !bytes.Equal(got, data) {
		t.Fatal("content assembled from blocks differs")
	}
	bl, _ := b.GetBlockList(e.ctx, blockblob.BlockListTypeCommitted, nil)
	if len(bl.CommittedBlocks) != 4 {
		t.Fatalf("%d committed blocks", len(bl.CommittedBlocks))
	}
	out := make([]byte, len(data))
	if _, err := b.DownloadBuffer(e.ctx, out, &blob.DownloadBufferOptions{BlockSize: 1<<20 + 3, Concurrency: 3}); err != nil || !bytes.Equal(out, data) {
		t.Fatalf("parallel ranged download differs (%v)", err)
	}
}

// TestCommitConditionsOnStagedBlob: a blob of staged blocks only has the
// time of its first Put Block for If-Modified-Since (Azure answers 412 to a
// later date: the SDK's recorded TestBlobPutBlockListIfModifiedSinceFalse),
// while If-None-Match: * still sees no blob and commits.
func TestCommitConditionsOnStagedBlob(t *testing.T) {
	e := start(t)
	c := e.container("staged-conds")
	b := c.NewBlockBlobClient("b")
	if _, err := b.StageBlock(e.ctx, blockID(0), nopCloser([]byte("x")), nil); err != nil {
		t.Fatal(err)
	}
	later := time.Now().Add(time.Hour)
	_, err := b.CommitBlockList(e.ctx, []string{blockID(0)}, &blockblob.CommitBlockListOptions{
		AccessConditions: &blob.AccessConditions{ModifiedAccessConditions: &blob.ModifiedAccessConditions{IfModifiedSince: &later}}})
	wantCode(t, err, 412, string(bloberror.ConditionNotMet))
	earlier := time.Now().Add(-time.Hour)
	if _, err := b.CommitBlockList(e.ctx, []string{blockID(0)}, &blockblob.CommitBlockListOptions{
		AccessConditions: &blob.AccessConditions{ModifiedAccessConditions: &blob.ModifiedAccessConditions{IfModifiedSince: &earlier}}}); err != nil {
		t.Fatalf("If-Modified-Since before the first Put Block: %v", err)
	}
	b2 := c.NewBlockBlobClient("b2")
	if _, err := b2.StageBlock(e.ctx, blockID(0), nopCloser([]byte("x")), nil); err != nil {
		t.Fatal(err)
	}
	if _, err := b2.CommitBlockList(e.ctx, []string{blockID(0)}, &blockblob.CommitBlockListOptions{
		AccessConditions: &blob.AccessConditions{ModifiedAccessConditions: &blob.ModifiedAccessConditions{IfNoneMatch: to.Ptr(azcore.ETagAny)}}}); err != nil {
		t.Fatalf("If-None-Match: * on a staged-only blob: %v", err)
	}
}

// TestDeleteBlobOfStagedBlocksOnly: Delete Blob on a name that has only
// staged blocks deletes them, and Get Block List then finds no blob, as
// the service answered in Azure/azure-storage-node#350 (a live deleteBlob
// after createBlockFromText "can successfully remove the blob and blocks,
// and the list blocks function call will return a 'specified blob does
// not exist' error"), as the Storage team advises for clearing staged
// blocks (Azure/azure-sdk-for-cpp#3911: "1. Delete blob") and as Azurite
// does (LokiBlobMetadataStore.deleteBlob finds uncommitted blobs).
func TestDeleteBlobOfStagedBlocksOnly(t *testing.T) {
	e := start(t)
	c := e.container("staged-delete")
	b := c.NewBlockBlobClient("b")
	if _, err := b.StageBlock(e.ctx, blockID(0), nopCloser([]byte("x")), nil); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Delete(e.ctx, nil); err != nil {
		t.Fatalf("delete of a blob of staged blocks: %v", err)
	}
	_, err := b.GetBlockList(e.ctx, blockblob.BlockListTypeUncommitted, nil)
	wantCode(t, err, 404, string(bloberror.BlobNotFound))
	if names := e.listed(c, container.ListBlobsInclude{UncommittedBlobs: true}, 0); names != "" {
		t.Fatalf("listed after the delete: %q", names)
	}
	_, err = b.Delete(e.ctx, nil)
	wantCode(t, err, 404, string(bloberror.BlobNotFound))
}
