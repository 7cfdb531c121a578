package blob_test

import (
	"bytes"
	"crypto/md5"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blockblob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/container"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/lease"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/sas"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/service"
	azfileservice "github.com/Azure/azure-sdk-for-go/sdk/storage/azfile/service"

	"github.com/lazuli-storage/lazuli/internal/check/lazulitest"
	"github.com/lazuli-storage/lazuli/internal/rule/auth"
	"github.com/lazuli-storage/lazuli/internal/run/config"
)

func TestCopyBlobWithinServer(t *testing.T) {
	e := start(t)
	c := e.container("copies")
	src := c.NewBlockBlobClient("src")
	must(src.Upload(e.ctx, nopCloser([]byte("copy me")), &blockblob.UploadOptions{
		Metadata:    map[string]*string{"origin": to.Ptr("src")},
		HTTPHeaders: &blob.HTTPHeaders{BlobContentType: to.Ptr("text/plain")}})).on(t)
	dst := c.NewBlobClient("dst")
	resp := must(dst.StartCopyFromURL(e.ctx, src.URL(), nil)).on(t)
	if resp.CopyID == nil || *resp.CopyStatus != blob.CopyStatusTypeSuccess {
		t.Fatalf("copy answered id %v status %v", resp.CopyID, resp.CopyStatus)
	}
	p := e.props(dst)
	if *p.CopyID != *resp.CopyID || *p.CopyStatus != blob.CopyStatusTypeSuccess || *p.CopySource != src.URL() ||
		*p.CopyProgress != "7/7" || p.CopyCompletionTime == nil || *p.ContentType != "text/plain" || *p.Metadata["Origin"] != "src" {
		t.Fatalf("destination properties: %+v", p)
	}
	if *p.ETag != *resp.ETag {
		t.Fatal("the answer's ETag is not the destination's")
	}
	// The copy shares the source's content; rewriting the source leaves
	// the copy as it was.
	e.upload(c, "src", []byte("changed"))
	if got := e.read(dst); got != "copy me" {
		t.Fatalf("destination reads %q", got)
	}

	// Metadata on the request replaces the source's.
	must(dst.StartCopyFromURL(e.ctx, src.URL(), &blob.StartCopyFromURLOptions{Metadata: map[string]*string{"mine": to.Ptr("1")}})).on(t)
	if p := e.props(dst); len(p.Metadata) != 1 || *p.Metadata["Mine"] != "1" {
		t.Fatalf("metadata %v", p.Metadata)
	}

	// include=copy lists the copy properties.
	for _, it := range e.listAll(c, container.ListBlobsInclude{Copy: true}, 0) {
		if *it.Name == "dst" && (it.Properties.CopyID == nil || *it.Properties.CopyStatus != blob.CopyStatusTypeSuccess) {
			t.Fatalf("listed copy properties: %+v", it.Properties)
		}
		if *it.Name == "src" && it.Properties.CopyID != nil {
			t.Fatal("the source has copy properties")
		}
	}

	// A later Put Blob ends the copy properties.
	e.upload(c, "dst", []byte("new"))
	if p := e.props(dst); p.CopyID != nil {
		t.Fatal("copy properties survived an overwrite")
	}

	_, err := dst.StartCopyFromURL(e.ctx, c.NewBlobClient("nothing").URL(), nil)
	wantCode(t, err, 404, "CannotVerifyCopySource")
}

func TestCopyConditions(t *testing.T) {
	e := start(t)
	c := e.container("copycond")
	src := e.upload(c, "src", []byte("x"))
	sp := e.props(src.BlobClient())
	dst := e.upload(c, "dst", []byte("y")).BlobClient()

	srcCond := func(m blob.SourceModifiedAccessConditions) *blob.StartCopyFromURLOptions {
		return &blob.StartCopyFromURLOptions{SourceModifiedAccessConditions: &m}
	}
	_, err := dst.StartCopyFromURL(e.ctx, src.URL(), srcCond(blob.SourceModifiedAccessConditions{SourceIfMatch: to.Ptr(azcore.ETag(`"0x1"`))}))
	wantCode(t, err, 412, "SourceConditionNotMet")
	_, err = dst.StartCopyFromURL(e.ctx, src.URL(), srcCond(blob.SourceModifiedAccessConditions{SourceIfNoneMatch: sp.ETag}))
	wantCode(t, err, 412, "SourceConditionNotMet")
	_, err = dst.StartCopyFromURL(e.ctx, src.URL(), srcCond(blob.SourceModifiedAccessConditions{SourceIfModifiedSince: to.Ptr(sp.LastModified.Add(time.Hour))}))
	wantCode(t, err, 412, "SourceConditionNotMet")
	must(dst.StartCopyFromURL(e.ctx, src.URL(), srcCond(blob.SourceModifiedAccessConditions{SourceIfMatch: sp.ETag}))).on(t)

	_, err = dst.StartCopyFromURL(e.ctx, src.URL(), &blob.StartCopyFromURLOptions{AccessConditions: &blob.AccessConditions{
		ModifiedAccessConditions: &blob.ModifiedAccessConditions{IfMatch: to.Ptr(azcore.ETag(`"0x1"`))}}})
	wantCode(t, err, 412, "ConditionNotMet")
	_, err = dst.StartCopyFromURL(e.ctx, src.URL(), &blob.StartCopyFromURLOptions{AccessConditions: &blob.AccessConditions{
		ModifiedAccessConditions: &blob.ModifiedAccessConditions{IfNoneMatch: to.Ptr(azcore.ETagAny)}}})
	wantCode(t, err, 409, "BlobAlreadyExists")

	// An infinite lease on the destination needs its ID; a finite one
	// refuses the copy even with it.
	infinite := must(lease.NewBlobClient(dst, &lease.BlobClientOptions{LeaseID: to.Ptr("33333333-3333-3333-3333-333333333333")})).on(t)
	must(infinite.AcquireLease(e.ctx, -1, nil)).on(t)
	_, err = dst.StartCopyFromURL(e.ctx, src.URL(), nil)
	wantCode(t, err, 412, "LeaseIdMissing")
	withLease := &blob.StartCopyFromURLOptions{AccessConditions: &blob.AccessConditions{LeaseAccessConditions: &blob.LeaseAccessConditions{LeaseID: infinite.LeaseID()}}}
	must(dst.StartCopyFromURL(e.ctx, src.URL(), withLease)).on(t)
	must(infinite.ReleaseLease(e.ctx, nil)).on(t)
	must(infinite.AcquireLease(e.ctx, 30, nil)).on(t)
	_, err = dst.StartCopyFromURL(e.ctx, src.URL(), withLease)
	wantCode(t, err, 412, "InfiniteLeaseDurationRequired")
}

func TestCopyAcrossAccountsAndSAS(t *testing.T) {
	accounts := must(auth.ParseAccountsEnv(lazulitest.Account + ":" + lazulitest.Key + ";other:" + lazulitest.Key)).on(t)
	e := startWith(t, lazulitest.Options{InMemory: true, Configure: func(c *config.Config) { c.Accounts = accounts }})
	c := e.container("private")
	src := e.upload(c, "src", []byte("secret"))

	cred := must(service.NewSharedKeyCredential("other", lazulitest.Key)).on(t)
	otherURL := strings.Replace(e.in.BlobURL, lazulitest.Account, "other", 1)
	other := must(service.NewClientWithSharedKeyCredential(otherURL, cred, clientOptions())).on(t)
	oc := other.NewContainerClient("dest")
	must(oc.Create(e.ctx, nil)).on(t)
	dst := oc.NewBlobClient("copy")

	// A private source of another account needs a SAS.
	_, err := dst.StartCopyFromURL(e.ctx, src.URL(), nil)
	wantCode(t, err, 403, "CannotVerifyCopySource")
	expired := must(src.BlobClient().GetSASURL(sas.BlobPermissions{Read: true}, time.Now().Add(-time.Hour), nil)).on(t)
	_, err = dst.StartCopyFromURL(e.ctx, expired, nil)
	wantCode(t, err, 403, "CannotVerifyCopySource")
	writeOnly := must(src.BlobClient().GetSASURL(sas.BlobPermissions{Write: true}, time.Now().Add(time.Hour), nil)).on(t)
	_, err = dst.StartCopyFromURL(e.ctx, writeOnly, nil)
	wantCode(t, err, 403, "CannotVerifyCopySource")
	readable := must(src.BlobClient().GetSASURL(sas.BlobPermissions{Read: true}, time.Now().Add(time.Hour), nil)).on(t)
	must(dst.StartCopyFromURL(e.ctx, readable, nil)).on(t)
	if got := e.read(dst); got != "secret" {
		t.Fatalf("copied %q", got)
	}
	if p := e.props(dst); strings.Contains(*p.CopySource, "sig=") {
		t.Fatalf("x-ms-copy-source shows the signature: %s", *p.CopySource)
	}

	// A public container's blobs need none.
	pub := e.svc.NewContainerClient("public")
	must(pub.Create(e.ctx, &container.CreateOptions{Access: to.Ptr(container.PublicAccessTypeBlob)})).on(t)
	open := e.upload(pub, "open", []byte("hello"))
	must(oc.NewBlobClient("open").StartCopyFromURL(e.ctx, open.URL(), nil)).on(t)
}

func TestAbortPendingCopyOfArchivedBlob(t *testing.T) {
	e := start(t)
	c := e.container("abort")
	src := e.upload(c, "cold", []byte("frozen bytes")).BlobClient()
	must(src.SetTier(e.ctx, blob.AccessTierArchive, nil)).on(t)
	dst := c.NewBlobClient("thawed")

	resp := must(dst.StartCopyFromURL(e.ctx, src.URL(), &blob.StartCopyFromURLOptions{Tier: to.Ptr(blob.AccessTierCool)})).on(t)
	if *resp.CopyStatus != blob.CopyStatusTypePending {
		t.Fatalf("a copy out of the archive answered %s", *resp.CopyStatus)
	}
	p := e.props(dst)
	if *p.CopyStatus != blob.CopyStatusTypePending || *p.ArchiveStatus != "rehydrate-pending-to-cool" || p.CopyCompletionTime != nil {
		t.Fatalf("pending destination: %+v", p)
	}
	_, err := dst.DownloadStream(e.ctx, nil)
	wantCode(t, err, 409, "BlobArchived")
	_, err = dst.SetMetadata(e.ctx, map[string]*string{"a": to.Ptr("b")}, nil)
	wantCode(t, err, 409, "PendingCopyOperation")

	_, err = dst.AbortCopyFromURL(e.ctx, "00000000-0000-0000-0000-000000000000", nil)
	wantCode(t, err, 409, "CopyIdMismatch")
	must(dst.AbortCopyFromURL(e.ctx, *resp.CopyID, nil)).on(t)
	p = e.props(dst)
	if *p.CopyStatus != blob.CopyStatusTypeAborted || *p.ContentLength != 0 || p.ArchiveStatus != nil {
		t.Fatalf("aborted destination: %+v", p)
	}
	_, err = dst.AbortCopyFromURL(e.ctx, *resp.CopyID, nil)
	wantCode(t, err, 409, "NoPendingCopyOperation")

	// Left alone, the copy completes when the rehydration delay has passed.
	resp = must(dst.StartCopyFromURL(e.ctx, src.URL(), &blob.StartCopyFromURLOptions{Tier: to.Ptr(blob.AccessTierHot),
		RehydratePriority: to.Ptr(blob.RehydratePriorityHigh)})).on(t)
	e.in.Fake.Advance(2 * time.Second)
	p = e.props(dst)
	if *p.CopyStatus != blob.CopyStatusTypeSuccess || *p.AccessTier != "Hot" || p.CopyCompletionTime == nil {
		t.Fatalf("completed copy: %+v", p)
	}
	if got := e.read(dst); got != "frozen bytes" {
		t.Fatalf("destination reads %q", got)
	}
	_, err = dst.AbortCopyFromURL(e.ctx, *resp.CopyID, nil)
	wantCode(t, err, 409, "NoPendingCopyOperation")
	// The source is still archived.
	_, err = src.DownloadStream(e.ctx, nil)
	wantCode(t, err, 409, "BlobArchived")
}

func TestCopyFromURLAndPutFromURL(t *testing.T) {
	e := start(t)
	c := e.container("fromurl")
	data := []byte("synchronous copy content")
	sum := md5.Sum(data)
	src := c.NewBlockBlobClient("src")
	must(src.Upload(e.ctx, nopCloser(data), &blockblob.UploadOptions{
		HTTPHeaders: &blob.HTTPHeaders{BlobContentType: to.Ptr("text/x-src"), BlobCacheControl: to.Ptr("no-cache")},
		Metadata:    map[string]*string{"m": to.Ptr("1")}})).on(t)

	// The request's own Shared Key does not authorize a from-URL source
	// (the SDK's live TestPutBlobFromURLNegative); Copy Blob's it does.
	_, err := c.NewBlockBlobClient("unsigned").UploadBlobFromURL(e.ctx, src.URL(), nil)
	wantCode(t, err, http.StatusForbidden, "CannotVerifyCopySource")
	_, err = c.NewBlobClient("unsigned").CopyFromURL(e.ctx, src.URL(), nil)
	wantCode(t, err, http.StatusForbidden, "CannotVerifyCopySource")

	// A source read that its If-None-Match stops is the source's 304,
	// reported as CannotVerifyCopySource (TestPutBlobFromUrlSourceIfNoneMatchFalse).
	srcProps := must(src.GetProperties(e.ctx, nil)).on(t)
	_, err = c.NewBlockBlobClient("unmodified").UploadBlobFromURL(e.ctx, readable(t, e, src.URL()), &blockblob.UploadBlobFromURLOptions{
		SourceModifiedAccessConditions: &blob.SourceModifiedAccessConditions{SourceIfNoneMatch: srcProps.ETag}})
	wantCode(t, err, http.StatusNotModified, "CannotVerifyCopySource")

	// Copy Blob From URL.
	dst := c.NewBlobClient("sync")
	resp := must(dst.CopyFromURL(e.ctx, readable(t, e, src.URL()), &blob.CopyFromURLOptions{SourceContentMD5: sum[:]})).on(t)
	if *resp.CopyStatus != "success" || resp.CopyID == nil {
		t.Fatalf("copy from URL answered %+v", resp)
	}
	if got := e.read(dst); got != string(data) {
		t.Fatalf("copied %q", got)
	}
	if p := e.props(dst); *p.CopyID != *resp.CopyID || *p.Metadata["M"] != "1" {
		t.Fatalf("destination: %+v", p)
	}
	_, err = dst.CopyFromURL(e.ctx, readable(t, e, src.URL()), &blob.CopyFromURLOptions{SourceContentMD5: make([]byte, 16)})
	wantCode(t, err, 400, "Md5Mismatch")

	// Put Blob From URL: the source's properties, the request's metadata,
	// no copy properties.
	put := c.NewBlockBlobClient("put")
	pr := must(put.UploadBlobFromURL(e.ctx, readable(t, e, src.URL()), &blockblob.UploadBlobFromURLOptions{
		Metadata: map[string]*string{"own": to.Ptr("yes")}})).on(t)
	if !bytes.Equal(pr.ContentMD5, sum[:]) {
		t.Fatalf("Put Blob From URL Content-MD5 %x", pr.ContentMD5)
	}
	p := e.props(put.BlobClient())
	if *p.ContentType != "text/x-src" || *p.CacheControl != "no-cache" || p.CopyID != nil || len(p.Metadata) != 1 || *p.Metadata["Own"] != "yes" {
		t.Fatalf("Put Blob From URL destination: %+v", p)
	}
	must(put.UploadBlobFromURL(e.ctx, readable(t, e, src.URL()), &blockblob.UploadBlobFromURLOptions{CopySourceBlobProperties: to.Ptr(false)})).on(t)
	if p := e.props(put.BlobClient()); *p.ContentType != "application/octet-stream" || p.CacheControl != nil {
		t.Fatalf("without the source's properties: %+v", p)
	}
	_, err = put.UploadBlobFromURL(e.ctx, readable(t, e, src.URL()), &blockblob.UploadBlobFromURLOptions{AccessConditions: &blob.AccessConditions{
		ModifiedAccessConditions: &blob.ModifiedAccessConditions{IfMatch: to.Ptr(azcore.ETag(`"0x1"`))}}})
	wantCode(t, err, 412, "ConditionNotMet")

	// Put Block From URL: ranges of the source staged as blocks.
	blocks := c.NewBlockBlobClient("blocks")
	must(blocks.StageBlockFromURL(e.ctx, "QUFB", readable(t, e, src.URL()), &blockblob.StageBlockFromURLOptions{Range: blob.HTTPRange{Offset: 0, Count: 11}})).on(t)
	must(blocks.StageBlockFromURL(e.ctx, "QkJC", readable(t, e, src.URL()), &blockblob.StageBlockFromURLOptions{Range: blob.HTTPRange{Offset: 12}})).on(t)
	must(blocks.CommitBlockList(e.ctx, []string{"QkJC", "QUFB"}, nil)).on(t)
	if got := e.read(blocks.BlobClient()); got != "copy contentsynchronous" {
		t.Fatalf("blocks from URL read %q", got)
	}
	_, err = blocks.StageBlockFromURL(e.ctx, "QUFB", readable(t, e, src.URL()), &blockblob.StageBlockFromURLOptions{
		SourceContentValidation: blob.SourceContentValidationTypeMD5(make([]byte, 16))})
	wantCode(t, err, 400, "Md5Mismatch")
	_, err = blocks.StageBlockFromURL(e.ctx, "QUFB", readable(t, e, src.URL()), &blockblob.StageBlockFromURLOptions{Range: blob.HTTPRange{Offset: 1000}})
	wantCode(t, err, 416, "InvalidRange")
}

func TestCopyFromExternalURL(t *testing.T) {
	content := []byte("served by someone else")
	ext := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/file.txt" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/plain")
		http.ServeContent(w, r, "file.txt", time.Time{}, bytes.NewReader(content))
	}))
	defer ext.Close()
	e := start(t)
	c := e.container("external")

	dst := c.NewBlobClient("copied")
	resp := must(dst.StartCopyFromURL(e.ctx, ext.URL+"/file.txt", nil)).on(t)
	if *resp.CopyStatus != blob.CopyStatusTypeSuccess {
		t.Fatalf("status %s", *resp.CopyStatus)
	}
	if got := e.read(dst); got != string(content) {
		t.Fatalf("copied %q", got)
	}
	if p := e.props(dst); *p.ContentType != "text/plain" || *p.CopySource != ext.URL+"/file.txt" {
		t.Fatalf("copied properties: %+v", p)
	}
	put := c.NewBlockBlobClient("put")
	must(put.UploadBlobFromURL(e.ctx, ext.URL+"/file.txt", nil)).on(t)
	if got := e.read(put.BlobClient()); got != string(content) {
		t.Fatalf("put from URL %q", got)
	}
	must(put.StageBlockFromURL(e.ctx, "QUFB", ext.URL+"/file.txt", &blockblob.StageBlockFromURLOptions{Range: blob.HTTPRange{Offset: 10, Count: 7}})).on(t)
	must(put.CommitBlockList(e.ctx, []string{"QUFB"}, nil)).on(t)
	if got := e.read(put.BlobClient()); got != "someone" {
		t.Fatalf("block from URL %q", got)
	}
	_, err := dst.StartCopyFromURL(e.ctx, ext.URL+"/missing", nil)
	wantCode(t, err, 404, "CannotVerifyCopySource")
}

func TestCopySnapshotAndVersion(t *testing.T) {
	e := start(t)
	e.setDataProtection(true, 0)
	c := e.container("promote")
	b := e.upload(c, "doc", []byte("v1")).BlobClient()
	v1 := *e.props(b).VersionID
	snap := must(b.CreateSnapshot(e.ctx, nil)).on(t)
	e.upload(c, "doc", []byte("v2"))

	// Copying a snapshot over its base blob restores it.
	sb := must(b.WithSnapshot(*snap.Snapshot)).on(t)
	must(b.StartCopyFromURL(e.ctx, sb.URL(), nil)).on(t)
	if got := e.read(b); got != "v1" {
		t.Fatalf("after promoting the snapshot: %q", got)
	}
	e.upload(c, "doc", []byte("v3"))
	vb := must(b.WithVersionID(v1)).on(t)
	must(c.NewBlobClient("from-version").StartCopyFromURL(e.ctx, vb.URL(), nil)).on(t)
	if got := e.read(c.NewBlobClient("from-version")); got != "v1" {
		t.Fatalf("copy of a version: %q", got)
	}
}

func TestIdentityOperationsHonourTagConditions(t *testing.T) {
	e := start(t)
	c := e.container("iftags")
	bb := c.NewBlockBlobClient("tagged")
	must(bb.Upload(e.ctx, nopCloser([]byte("t")), &blockblob.UploadOptions{Tags: map[string]string{"team": "red"}})).on(t)
	b := bb.BlobClient()
	ifTags := func(expr string) *blob.AccessConditions {
		return &blob.AccessConditions{ModifiedAccessConditions: &blob.ModifiedAccessConditions{IfTags: to.Ptr(expr)}}
	}
	_, err := b.CreateSnapshot(e.ctx, &blob.CreateSnapshotOptions{AccessConditions: ifTags(`"team"='blue'`)})
	wantCode(t, err, 412, "ConditionNotMet")
	must(b.CreateSnapshot(e.ctx, &blob.CreateSnapshotOptions{AccessConditions: ifTags(`"team"='red'`)})).on(t)
	_, err = b.SetTier(e.ctx, blob.AccessTierCool, &blob.SetTierOptions{AccessConditions: ifTags(`"team"='blue'`)})
	wantCode(t, err, 412, "ConditionNotMet")
	must(b.SetTier(e.ctx, blob.AccessTierCool, &blob.SetTierOptions{AccessConditions: ifTags(`"team"='red'`)})).on(t)

	dst := c.NewBlobClient("dst")
	srcTags := func(expr string) *blob.StartCopyFromURLOptions {
		return &blob.StartCopyFromURLOptions{SourceModifiedAccessConditions: &blob.SourceModifiedAccessConditions{SourceIfTags: to.Ptr(expr)}}
	}
	// 412 ConditionNotMet, as azure-sdk-for-python's recorded
	// test_async_copy_blob_with_if_tags answers Copy Blob.
	_, err = dst.StartCopyFromURL(e.ctx, b.URL(), srcTags(`"team"='blue'`))
	wantCode(t, err, 412, "ConditionNotMet")
	must(dst.StartCopyFromURL(e.ctx, b.URL(), srcTags(`"team"='red'`))).on(t)

	_, err = b.Delete(e.ctx, &blob.DeleteOptions{DeleteSnapshots: to.Ptr(blob.DeleteSnapshotsOptionTypeInclude), AccessConditions: ifTags(`"team"='blue'`)})
	wantCode(t, err, 412, "ConditionNotMet")
	must(b.Delete(e.ctx, &blob.DeleteOptions{DeleteSnapshots: to.Ptr(blob.DeleteSnapshotsOptionTypeInclude), AccessConditions: ifTags(`"team"='red'`)})).on(t)
}

func TestPendingCopyDestinationTakesNoLease(t *testing.T) {
	e := start(t)
	c := e.container("pendlease")
	src := e.upload(c, "src", []byte("x")).BlobClient()
	must(src.SetTier(e.ctx, blob.AccessTierArchive, nil)).on(t)
	dst := c.NewBlobClient("dst")
	must(dst.StartCopyFromURL(e.ctx, src.URL(), &blob.StartCopyFromURLOptions{Tier: to.Ptr(blob.AccessTierHot)})).on(t)
	lc := must(lease.NewBlobClient(dst, nil)).on(t)
	_, err := lc.AcquireLease(e.ctx, -1, nil)
	wantCode(t, err, 409, "PendingCopyOperation")
	e.in.Fake.Advance(time.Minute)
	must(lc.AcquireLease(e.ctx, -1, nil)).on(t)
}

func TestCopyKindsTagsAndSeal(t *testing.T) {
	e := start(t)
	c := e.container("kinds")
	ab := c.NewAppendBlobClient("log")
	must(ab.Create(e.ctx, nil)).on(t)
	must(ab.AppendBlock(e.ctx, nopCloser([]byte("line one\n")), nil)).on(t)
	must(ab.Seal(e.ctx, nil)).on(t)

	// An append blob copies as an append blob, sealed as its source is
	// unless x-ms-seal-blob says otherwise.
	sealed := c.NewBlobClient("sealed")
	must(sealed.StartCopyFromURL(e.ctx, ab.URL(), nil)).on(t)
	if p := e.props(sealed); *p.BlobType != blob.BlobTypeAppendBlob || p.IsSealed == nil || !*p.IsSealed {
		t.Fatalf("copy of a sealed append blob: %+v", p)
	}
	open := c.NewAppendBlobClient("open")
	must(open.StartCopyFromURL(e.ctx, ab.URL(), &blob.StartCopyFromURLOptions{SealBlob: to.Ptr(false)})).on(t)
	must(open.AppendBlock(e.ctx, nopCloser([]byte("line two\n")), nil)).on(t)
	if got := e.read(open.BlobClient()); got != "line one\nline two\n" {
		t.Fatalf("unsealed copy reads %q", got)
	}
	// A blob of another kind is not overwritten by a copy.
	_, err := c.NewBlobClient("open").StartCopyFromURL(e.ctx, e.upload(c, "block", []byte("b")).URL(), nil)
	wantCode(t, err, 409, "InvalidBlobType")
	// Copy Blob From URL takes block blobs only.
	_, err = c.NewBlobClient("sync").CopyFromURL(e.ctx, readable(t, e, ab.URL()), nil)
	wantCode(t, err, 409, "InvalidSourceBlobType")

	// Put Blob From URL copies the source's tags when asked to.
	tagged := c.NewBlockBlobClient("tagged")
	must(tagged.Upload(e.ctx, nopCloser([]byte("t")), &blockblob.UploadOptions{Tags: map[string]string{"k": "v"}})).on(t)
	dst := c.NewBlockBlobClient("tags-copied")
	must(dst.UploadBlobFromURL(e.ctx, readable(t, e, tagged.URL()), &blockblob.UploadBlobFromURLOptions{CopySourceTags: to.Ptr(blockblob.BlobCopySourceTagsCopy)})).on(t)
	if tags := must(dst.GetTags(e.ctx, nil)).on(t); len(tags.BlobTagSet) != 1 || *tags.BlobTagSet[0].Key != "k" {
		t.Fatalf("copied tags: %+v", tags.BlobTagSet)
	}
	_, err = dst.UploadBlobFromURL(e.ctx, readable(t, e, tagged.URL()), &blockblob.UploadBlobFromURLOptions{
		CopySourceTags: to.Ptr(blockblob.BlobCopySourceTagsCopy), Tags: map[string]string{"a": "b"}})
	wantCode(t, err, 400, "InvalidHeaderValue")
}

func TestCopyFromFileService(t *testing.T) {
	e := start(t)
	cred := must(azfileservice.NewSharedKeyCredential(lazulitest.Account, lazulitest.Key)).on(t)
	fs := must(azfileservice.NewClientWithSharedKeyCredential(e.in.FileURL, cred, nil)).on(t)
	share := fs.NewShareClient("docs")
	must(share.Create(e.ctx, nil)).on(t)
	f := share.NewRootDirectoryClient().NewFileClient("report.txt")
	content := []byte("a file on the File service")
	must(f.Create(e.ctx, int64(len(content)), nil)).on(t)
	if err := f.UploadBuffer(e.ctx, content, nil); err != nil {
		t.Fatal(err)
	}
	c := e.container("fromfiles")
	dst := c.NewBlobClient("report.txt")
	must(dst.StartCopyFromURL(e.ctx, f.URL(), nil)).on(t)
	if got := e.read(dst); got != string(content) {
		t.Fatalf("copied file reads %q", got)
	}
}

// TestCopyOfArchivedSourceNeedsTier pins 409 BlobArchived for a Copy Blob
// whose source is archived and that names no destination tier: the service
// copies an archived blob only into a tier the request names (the
// rehydration guide, "Copy an archived blob to an online tier"), and answers
// "This operation is not permitted on an archived blob" otherwise
// (Azure/azure-sdk-for-python#29838, a tierless start_copy_from_url).
func TestCopyOfArchivedSourceNeedsTier(t *testing.T) {
	e := start(t)
	c := e.container("archsrc")
	src := e.upload(c, "cold", []byte("frozen")).BlobClient()
	must(src.SetTier(e.ctx, blob.AccessTierArchive, nil)).on(t)
	dst := c.NewBlobClient("thawed")
	_, err := dst.StartCopyFromURL(e.ctx, src.URL(), nil)
	wantCode(t, err, 409, "BlobArchived")
	if _, err := dst.GetProperties(e.ctx, nil); err == nil {
		t.Fatal("a refused copy created its destination")
	}
	must(dst.StartCopyFromURL(e.ctx, src.URL(), &blob.StartCopyFromURLOptions{Tier: to.Ptr(blob.AccessTierHot)})).on(t)
}

// TestCopyFromURLAnswersContentMD5 pins that Copy Blob From URL answers the
// verified x-ms-source-content-md5 as Content-MD5, as azblob's live tests
// TestCopyBlobFromUrlSourceContentMD5 and TestCopyBlockBlobFromUrlSourceContentMD5
// expect (resp.ContentMD5 equal to the source MD5 sent).
func TestCopyFromURLAnswersContentMD5(t *testing.T) {
	e := start(t)
	c := e.container("syncmd5")
	data := make([]byte, 8<<10)
	sum := md5.Sum(data)
	src := e.upload(c, "src", data)
	resp := must(c.NewBlobClient("dst").CopyFromURL(e.ctx, readable(t, e, src.URL()), &blob.CopyFromURLOptions{SourceContentMD5: sum[:]})).on(t)
	if !bytes.Equal(resp.ContentMD5, sum[:]) {
		t.Fatalf("Content-MD5 %x, want %x", resp.ContentMD5, sum)
	}

	// Without x-ms-source-content-md5 the answer has no Content-MD5, even
	// though the copied blob has one: the JavaScript SDK's recorded
	// "sync copy with cold tier" (azure-sdk-for-js
	// sdk/storage/storage-blob/recordings/node/blobclient/recording_sync_copy_with_cold_tier.js)
	// answers 202 with x-ms-content-crc64 and no Content-MD5, and the Get
	// Blob Properties after it shows the copy's Content-MD5.
	plain := must(c.NewBlobClient("plain").CopyFromURL(e.ctx, readable(t, e, src.URL()), nil)).on(t)
	if plain.ContentMD5 != nil {
		t.Fatalf("Content-MD5 %x answered without x-ms-source-content-md5", plain.ContentMD5)
	}
	if p := e.props(c.NewBlobClient("plain")); !bytes.Equal(p.ContentMD5, sum[:]) {
		t.Fatalf("copied blob's Content-MD5 %x, want %x", p.ContentMD5, sum)
	}
}
