package blob_test

import (
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/bloberror"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blockblob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/lease"
)

const (
	idA = "aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa"
	idB = "bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb"
)

func withLease(id string) *blob.AccessConditions {
	return &blob.AccessConditions{LeaseAccessConditions: &blob.LeaseAccessConditions{LeaseID: to.Ptr(id)}}
}

// leaseState returns the blob's lease state as Get Blob Properties reports it.
func leaseState(e *env, b *blockblob.Client) lease.StateType {
	e.t.Helper()
	p, err := b.GetProperties(e.ctx, nil)
	if err != nil {
		e.t.Fatal(err)
	}
	return *p.LeaseState
}

func TestBlobLeaseLifecycle(t *testing.T) {
	e := start(t)
	c := e.container("leases")
	b := e.upload(c, "l", []byte("v1"))
	before, _ := b.GetProperties(e.ctx, nil)
	la, _ := lease.NewBlobClient(b, &lease.BlobClientOptions{LeaseID: to.Ptr(idA)})
	lb, _ := lease.NewBlobClient(b, &lease.BlobClientOptions{LeaseID: to.Ptr(idB)})

	// Available: renew/change/release/break fail, acquire works.
	_, err := la.RenewLease(e.ctx, nil)
	wantCode(t, err, 409, string(bloberror.LeaseIDMismatchWithLeaseOperation))
	_, err = la.ChangeLease(e.ctx, idB, nil)
	wantCode(t, err, 409, string(bloberror.LeaseNotPresentWithLeaseOperation))
	_, err = la.BreakLease(e.ctx, nil)
	wantCode(t, err, 409, string(bloberror.LeaseNotPresentWithLeaseOperation))
	acq, err := la.AcquireLease(e.ctx, 15, nil)
	if err != nil || *acq.LeaseID != idA {
		t.Fatalf("acquire: %v", err)
	}
	if *acq.ETag != *before.ETag || !acq.LastModified.Equal(*before.LastModified) {
		t.Fatal("acquire changed the ETag or Last-Modified")
	}
	p, _ := b.GetProperties(e.ctx, nil)
	if *p.LeaseState != lease.StateTypeLeased || *p.LeaseStatus != lease.StatusTypeLocked || *p.LeaseDuration != lease.DurationTypeFixed {
		t.Fatalf("leased properties %v %v %v", *p.LeaseState, *p.LeaseStatus, p.LeaseDuration)
	}
	// Leased: other acquire 409, same acquire re-sets; writes need the ID.
	_, err = lb.AcquireLease(e.ctx, 15, nil)
	wantCode(t, err, 409, string(bloberror.LeaseAlreadyPresent))
	if _, err := la.AcquireLease(e.ctx, -1, nil); err != nil {
		t.Fatalf("re-acquire by the holder: %v", err)
	}
	_, err = b.SetMetadata(e.ctx, nil, nil)
	wantCode(t, err, 412, string(bloberror.LeaseIDMissing))
	_, err = b.SetMetadata(e.ctx, nil, &blob.SetMetadataOptions{AccessConditions: withLease(idB)})
	wantCode(t, err, 412, string(bloberror.LeaseIDMismatchWithBlobOperation))
	if _, err := b.SetMetadata(e.ctx, nil, &blob.SetMetadataOptions{AccessConditions: withLease(idA)}); err != nil {
		t.Fatal(err)
	}
	_, err = b.Delete(e.ctx, nil)
	wantCode(t, err, 412, string(bloberror.LeaseIDMissing))
	_, err = b.StageBlock(e.ctx, blockID(1), nopCloser([]byte("x")), nil)
	wantCode(t, err, 412, string(bloberror.LeaseIDMissing))
	// Reads without an ID are shared; with the wrong one they fail.
	if got := e.download(b); string(got) != "v1" {
		t.Fatalf("shared read %q", got)
	}
	_, err = b.DownloadStream(e.ctx, &blob.DownloadStreamOptions{AccessConditions: withLease(idB)})
	wantCode(t, err, 412, string(bloberror.LeaseIDMismatchWithBlobOperation))
	// Put Blob with the ID keeps the lease.
	if _, err := b.Upload(e.ctx, nopCloser([]byte("v2")), &blockblob.UploadOptions{AccessConditions: withLease(idA)}); err != nil {
		t.Fatal(err)
	}
	if leaseState(e, b) != lease.StateTypeLeased {
		t.Fatal("Put Blob dropped the lease")
	}
	// Change, then break with a period: breaking.
	if _, err := la.ChangeLease(e.ctx, idB, nil); err != nil {
		t.Fatal(err)
	}
	br, err := lb.BreakLease(e.ctx, &lease.BlobBreakOptions{BreakPeriod: to.Ptr(int32(10))})
	if err != nil || *br.LeaseTime != 10 {
		t.Fatalf("break: %v %v", err, br.LeaseTime)
	}
	if leaseState(e, b) != lease.StateTypeBreaking {
		t.Fatal("not breaking")
	}
	_, err = lb.AcquireLease(e.ctx, 15, nil)
	wantCode(t, err, 409, string(bloberror.LeaseIsBreakingAndCannotBeAcquired))
	_, err = lb.ChangeLease(e.ctx, idA, nil)
	wantCode(t, err, 409, string(bloberror.LeaseIsBreakingAndCannotBeChanged))
	_, err = lb.RenewLease(e.ctx, nil)
	wantCode(t, err, 409, string(bloberror.LeaseIsBrokenAndCannotBeRenewed))
	// Writes still need the ID while breaking.
	_, err = b.SetMetadata(e.ctx, nil, nil)
	wantCode(t, err, 412, string(bloberror.LeaseIDMissing))
	e.in.Fake.Advance(11 * time.Second)
	if leaseState(e, b) != lease.StateTypeBroken {
		t.Fatal("break did not complete")
	}
	// Broken: a write without ID succeeds and forgets the lease; with the old ID it is 412.
	_, err = b.SetMetadata(e.ctx, nil, &blob.SetMetadataOptions{AccessConditions: withLease(idB)})
	wantCode(t, err, 412, string(bloberror.LeaseLost))
	if _, err := b.SetMetadata(e.ctx, nil, nil); err != nil {
		t.Fatal(err)
	}
	if leaseState(e, b) != lease.StateTypeAvailable {
		t.Fatal("write on a broken lease kept it")
	}
	// Release returns to available.
	if _, err := la.AcquireLease(e.ctx, 60, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := la.ReleaseLease(e.ctx, nil); err != nil {
		t.Fatal(err)
	}
	_, err = la.RenewLease(e.ctx, nil)
	wantCode(t, err, 409, string(bloberror.LeaseIDMismatchWithLeaseOperation))
	// A lease ID on an unleased blob's write: 412 LeaseNotPresentWithBlobOperation.
	_, err = b.SetMetadata(e.ctx, nil, &blob.SetMetadataOptions{AccessConditions: withLease(idA)})
	wantCode(t, err, 412, string(bloberror.LeaseNotPresentWithBlobOperation))
	_, err = c.NewBlockBlobClient("new").Upload(e.ctx, nopCloser(nil), &blockblob.UploadOptions{AccessConditions: withLease(idA)})
	wantCode(t, err, 412, string(bloberror.LeaseNotPresentWithBlobOperation))
	// Leases need an existing blob and a valid duration.
	nb, _ := lease.NewBlobClient(c.NewBlockBlobClient("none"), nil)
	_, err = nb.AcquireLease(e.ctx, 15, nil)
	wantCode(t, err, 404, string(bloberror.BlobNotFound))
	_, err = la.AcquireLease(e.ctx, 14, nil)
	wantCode(t, err, 400, "InvalidHeaderValue")
}

func TestBlobLeaseExpiry(t *testing.T) {
	e := start(t)
	c := e.container("expiry")
	b := e.upload(c, "x", []byte("data"))
	la, _ := lease.NewBlobClient(b, &lease.BlobClientOptions{LeaseID: to.Ptr(idA)})
	if _, err := la.AcquireLease(e.ctx, 15, nil); err != nil {
		t.Fatal(err)
	}
	e.in.Fake.Advance(16 * time.Second)
	if leaseState(e, b) != lease.StateTypeExpired {
		t.Fatal("lease did not expire")
	}
	// Expired and untouched: the holder may renew it.
	if _, err := la.RenewLease(e.ctx, nil); err != nil {
		t.Fatalf("renew of an expired, unmodified lease: %v", err)
	}
	e.in.Fake.Advance(16 * time.Second)
	// Another client may acquire an expired lease.
	lb, _ := lease.NewBlobClient(b, &lease.BlobClientOptions{LeaseID: to.Ptr(idB)})
	if _, err := lb.AcquireLease(e.ctx, 15, nil); err != nil {
		t.Fatalf("acquire over an expired lease: %v", err)
	}
	e.in.Fake.Advance(16 * time.Second)
	// A write without ID on the expired lease succeeds and forgets it.
	if _, err := b.SetMetadata(e.ctx, nil, nil); err != nil {
		t.Fatal(err)
	}
	_, err := lb.RenewLease(e.ctx, nil)
	wantCode(t, err, 409, string(bloberror.LeaseIDMismatchWithLeaseOperation))
	// Break of an infinite lease without a period is immediate.
	if _, err := la.AcquireLease(e.ctx, -1, nil); err != nil {
		t.Fatal(err)
	}
	br, err := la.BreakLease(e.ctx, nil)
	if err != nil || *br.LeaseTime != 0 || leaseState(e, b) != lease.StateTypeBroken {
		t.Fatalf("immediate break: %v", err)
	}
	// Listing shows lease properties.
	la.AcquireLease(e.ctx, -1, nil)
	page, _ := c.NewListBlobsFlatPager(nil).NextPage(e.ctx)
	it := page.Segment.BlobItems[0].Properties
	if *it.LeaseState != lease.StateTypeLeased || *it.LeaseStatus != lease.StatusTypeLocked || *it.LeaseDuration != lease.DurationTypeInfinite {
		t.Fatalf("listed lease %v %v %v", *it.LeaseState, *it.LeaseStatus, it.LeaseDuration)
	}
}
