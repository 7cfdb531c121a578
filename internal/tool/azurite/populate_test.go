package azurite_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/data/aztables"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blockblob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/container"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/lease"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/pageblob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azqueue"
)

// bigBlobSize is over Azurite's 64 MiB extent size, so the blob's content
// spans two extent files.
const bigBlobSize = 64<<20 + 3<<20

// bigBlock is the staging unit of the big blob.
const bigBlock = 8 << 20

// patterned is n bytes that differ per position, so a misplaced extent
// range shows.
func patterned(n int, seed byte) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i*7+i/4093) ^ seed
	}
	return b
}

func blockID(i int) string {
	return base64.StdEncoding.EncodeToString(fmt.Appendf(nil, "block-%04d", i))
}

func body(b []byte) *nopSeeker { return &nopSeeker{bytes.NewReader(b)} }

type nopSeeker struct{ *bytes.Reader }

func (nopSeeker) Close() error { return nil }

// populateBlobs writes every kind of Blob object Azurite keeps.
func populateBlobs(t *testing.T, conn string) {
	t.Helper()
	ctx := context.Background()
	c, err := azblob.NewClientFromConnectionString(conn, nil)
	must(t, err)
	svc := c.ServiceClient()
	photos := svc.NewContainerClient("photos")
	_, err = photos.Create(ctx, &container.CreateOptions{Metadata: map[string]*string{"owner": to.Ptr("ann")},
		Access: to.Ptr(container.PublicAccessTypeBlob)})
	must(t, err)
	start := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
	_, err = photos.SetAccessPolicy(ctx, &container.SetAccessPolicyOptions{Access: to.Ptr(container.PublicAccessTypeBlob),
		ContainerACL: []*container.SignedIdentifier{{ID: to.Ptr("readers"), AccessPolicy: &container.AccessPolicy{
			Start: &start, Expiry: to.Ptr(start.Add(48 * time.Hour)), Permission: to.Ptr("rl")}}}})
	must(t, err)
	empty := svc.NewContainerClient("empty")
	_, err = empty.Create(ctx, nil)
	must(t, err)
	cl, err := lease.NewContainerClient(empty, &lease.ContainerClientOptions{LeaseID: to.Ptr("c0ffee00-0000-4000-8000-000000000002")})
	must(t, err)
	_, err = cl.AcquireLease(ctx, -1, nil)
	must(t, err)

	hello := photos.NewBlockBlobClient("a/hello.txt")
	_, err = hello.Upload(ctx, body([]byte("hello, world")), &blockblob.UploadOptions{
		HTTPHeaders: &blob.HTTPHeaders{BlobContentType: to.Ptr("text/plain"), BlobContentLanguage: to.Ptr("en"),
			BlobCacheControl: to.Ptr("no-cache"), BlobContentDisposition: to.Ptr("inline"), BlobContentEncoding: to.Ptr("identity")},
		Metadata: map[string]*string{"color": to.Ptr("blue")}, Tags: map[string]string{"team": "north", "env": "dev"},
		Tier: to.Ptr(blob.AccessTierCool)})
	must(t, err)
	_, err = hello.CreateSnapshot(ctx, &blob.CreateSnapshotOptions{Metadata: map[string]*string{"snap": to.Ptr("one")}})
	must(t, err)
	_, err = hello.Upload(ctx, body([]byte("hello again")), &blockblob.UploadOptions{
		Metadata: map[string]*string{"color": to.Ptr("green")}})
	must(t, err)

	// A copy, whose x-ms-copy-* properties Azurite records.
	_, err = photos.NewBlobClient("copy-of-hello.txt").StartCopyFromURL(ctx, hello.URL(), nil)
	must(t, err)

	big := photos.NewBlockBlobClient("big.bin")
	content := patterned(bigBlobSize, 1)
	var ids []string
	for i, off := 0, 0; off < len(content); i, off = i+1, off+bigBlock {
		ids = append(ids, blockID(i))
		_, err = big.StageBlock(ctx, blockID(i), body(content[off:min(off+bigBlock, len(content))]), nil)
		must(t, err)
	}
	_, err = big.CommitBlockList(ctx, ids, &blockblob.CommitBlockListOptions{
		HTTPHeaders: &blob.HTTPHeaders{BlobContentType: to.Ptr("application/octet-stream")}})
	must(t, err)

	staged := photos.NewBlockBlobClient("staged.txt")
	_, err = staged.StageBlock(ctx, blockID(1), body([]byte("first ")), nil)
	must(t, err)
	_, err = staged.CommitBlockList(ctx, []string{blockID(1)}, nil)
	must(t, err)
	_, err = staged.StageBlock(ctx, blockID(2), body([]byte("second, uncommitted")), nil)
	must(t, err)
	pending := photos.NewBlockBlobClient("pending.txt")
	_, err = pending.StageBlock(ctx, blockID(7), body([]byte("only staged")), nil)
	must(t, err)

	page := photos.NewPageBlobClient("disk.vhd")
	_, err = page.Create(ctx, 4096, &pageblob.CreateOptions{SequenceNumber: to.Ptr[int64](5)})
	must(t, err)
	_, err = page.UploadPages(ctx, body(patterned(1024, 2)), blob.HTTPRange{Offset: 512, Count: 1024}, nil)
	must(t, err)

	appendBlob := photos.NewAppendBlobClient("log.txt")
	_, err = appendBlob.Create(ctx, nil)
	must(t, err)
	for _, line := range []string{"one\n", "two\n"} {
		_, err = appendBlob.AppendBlock(ctx, body([]byte(line)), nil)
		must(t, err)
	}

	leased := photos.NewBlockBlobClient("leased.txt")
	_, err = leased.Upload(ctx, body([]byte("held")), nil)
	must(t, err)
	lc, err := lease.NewBlobClient(leased, &lease.BlobClientOptions{LeaseID: to.Ptr("c0ffee00-0000-4000-8000-000000000001")})
	must(t, err)
	_, err = lc.AcquireLease(ctx, -1, nil)
	must(t, err)
}

// populateQueues writes a queue with metadata, an access policy and
// messages, one of them received (invisible, dequeued once).
func populateQueues(t *testing.T, conn string) {
	t.Helper()
	ctx := context.Background()
	svc, err := azqueue.NewServiceClientFromConnectionString(conn, nil)
	must(t, err)
	q := svc.NewQueueClient("jobs")
	_, err = q.Create(ctx, &azqueue.CreateOptions{Metadata: map[string]*string{"purpose": to.Ptr("work")}})
	must(t, err)
	_, err = q.SetAccessPolicy(ctx, &azqueue.SetAccessPolicyOptions{QueueACL: []*azqueue.SignedIdentifier{{
		ID: to.Ptr("workers"), AccessPolicy: &azqueue.AccessPolicy{Permission: to.Ptr("raup"),
			Expiry: to.Ptr(time.Date(2031, 5, 6, 7, 8, 9, 0, time.UTC))}}}})
	must(t, err)
	for _, m := range []string{"first", "second", "third"} {
		_, err = q.EnqueueMessage(ctx, m, &azqueue.EnqueueMessageOptions{TimeToLive: to.Ptr[int32](3600)})
		must(t, err)
	}
	_, err = q.DequeueMessage(ctx, &azqueue.DequeueMessageOptions{VisibilityTimeout: to.Ptr[int32](300)})
	must(t, err)
	_, err = q.EnqueueMessage(ctx, "later", &azqueue.EnqueueMessageOptions{VisibilityTimeout: to.Ptr[int32](600)})
	must(t, err)
	_, err = svc.NewQueueClient("idle").Create(ctx, nil)
	must(t, err)
}

// populateTables writes a table with entities of every EDM type, one of
// them updated after its insert.
func populateTables(t *testing.T, conn string) {
	t.Helper()
	ctx := context.Background()
	svc, err := aztables.NewServiceClientFromConnectionString(conn, nil)
	must(t, err)
	_, err = svc.CreateTable(ctx, "people", nil)
	must(t, err)
	tc := svc.NewClient("people")
	entities := []string{
		`{"PartitionKey":"p1","RowKey":"r1","Name":"Ann","Age":41,"Big":"9007199254740993","Big@odata.type":"Edm.Int64",` +
			`"Score":3.5,"Whole@odata.type":"Edm.Double","Whole":"2","Active":true,` +
			`"Born":"1983-04-05T06:07:08.1234567Z","Born@odata.type":"Edm.DateTime",` +
			`"Id":"0b9a3c1e-6f2d-4e8a-9c5b-7d1e2f3a4b5c","Id@odata.type":"Edm.Guid","Blob":"AAEC/w==","Blob@odata.type":"Edm.Binary"}`,
		`{"PartitionKey":"p1","RowKey":"r2","Name":"Bob"}`,
		`{"PartitionKey":"p2","RowKey":"r1","Name":"Cy","Note":"ünïcode ✓"}`,
	}
	for _, e := range entities {
		_, err = tc.AddEntity(ctx, []byte(e), nil)
		must(t, err)
	}
	_, err = tc.UpdateEntity(ctx, []byte(`{"PartitionKey":"p1","RowKey":"r2","Name":"Bobby","Age":7}`),
		&aztables.UpdateEntityOptions{UpdateMode: aztables.UpdateModeMerge})
	must(t, err)
	_, err = tc.SetAccessPolicy(ctx, &aztables.SetAccessPolicyOptions{TableACL: []*aztables.SignedIdentifier{{
		ID: to.Ptr("auditors"), AccessPolicy: &aztables.AccessPolicy{Permission: to.Ptr("r"),
			Start:  to.Ptr(time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)),
			Expiry: to.Ptr(time.Date(2031, 1, 1, 0, 0, 0, 0, time.UTC))}}}})
	must(t, err)
	_, err = svc.CreateTable(ctx, "Empty", nil)
	must(t, err)
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
