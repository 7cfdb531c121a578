package file_test

import (
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azfile/lease"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azfile/service"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azfile/share"

	"github.com/lazuli-storage/lazuli/internal/check/lazulitest"
)

func shareLease(t *testing.T, sh *share.Client, id string) *lease.ShareClient {
	t.Helper()
	var opts *lease.ShareClientOptions
	if id != "" {
		opts = &lease.ShareClientOptions{LeaseID: to.Ptr(id)}
	}
	lc, err := lease.NewShareClient(sh, opts)
	must(t, err)
	return lc
}

const (
	leaseA = "aaaaaaaa-0000-4000-8000-000000000001"
	leaseB = "bbbbbbbb-0000-4000-8000-000000000002"
	leaseC = "cccccccc-0000-4000-8000-000000000003"
)

func TestShareLeaseGuardsDelete(t *testing.T) {
	in, svc := start(t, lazulitest.Options{InMemory: true})
	sh := newShare(t, svc, "leased")
	a := shareLease(t, sh, leaseA)
	for _, d := range []int32{14, 61, 0} {
		_, err := a.Acquire(ctx, d, nil)
		wantCode(t, err, http.StatusBadRequest, "InvalidHeaderValue")
	}
	acq, err := a.Acquire(ctx, 15, nil)
	must(t, err)
	if *acq.LeaseID != leaseA {
		t.Fatalf("acquired %s", *acq.LeaseID)
	}
	props, err := sh.GetProperties(ctx, nil)
	must(t, err)
	if *props.LeaseState != "leased" || *props.LeaseStatus != "locked" || *props.LeaseDuration != "fixed" {
		t.Errorf("lease state %s status %s duration %s", *props.LeaseState, *props.LeaseStatus, *props.LeaseDuration)
	}
	_, err = sh.Delete(ctx, nil)
	wantCode(t, err, http.StatusPreconditionFailed, "LeaseIdMissing")
	_, err = sh.Delete(ctx, &share.DeleteOptions{LeaseAccessConditions: &share.LeaseAccessConditions{LeaseID: to.Ptr(leaseB)}})
	if _, status := code(err); status != http.StatusPreconditionFailed {
		t.Fatalf("delete with the wrong lease: %v", err)
	}
	// Renew, change and release follow the container table.
	_, err = shareLease(t, sh, leaseB).Renew(ctx, nil)
	wantCode(t, err, http.StatusConflict, "LeaseIdMismatchWithLeaseOperation")
	_, err = a.Renew(ctx, nil)
	must(t, err)
	_, err = a.Change(ctx, leaseC, nil)
	must(t, err)
	c := shareLease(t, sh, leaseC)
	// A fixed lease expires with the clock; Delete then needs no lease.
	in.Fake.Advance(16 * time.Second)
	props, err = sh.GetProperties(ctx, nil)
	must(t, err)
	if *props.LeaseState != "expired" {
		t.Fatalf("lease state after 16 s = %s", *props.LeaseState)
	}
	// An expired share lease is still renewable (no write forgets it).
	_, err = c.Renew(ctx, nil)
	must(t, err)
	brk, err := c.Break(ctx, &lease.ShareBreakOptions{BreakPeriod: to.Ptr(int32(5))})
	must(t, err)
	if *brk.LeaseTime != 5 {
		t.Errorf("break lease time %d, want 5", *brk.LeaseTime)
	}
	_, err = sh.Delete(ctx, nil)
	wantCode(t, err, http.StatusPreconditionFailed, "LeaseIdMissing")
	in.Fake.Advance(6 * time.Second)
	_, err = sh.Delete(ctx, nil)
	must(t, err)
}

// TestShareLeaseGuardsWrites: while a share is leased, its writes (Set
// Share Properties with a quota or a tier, Set Share Metadata, Set Share
// ACL) need the lease ID, and every share operation that carries one needs
// it to be the share's. References: azure-sdk-for-js
// sdk/storage/storage-file-share/test/public/leaseclient.spec.ts, "LeaseClient
// with ShareClient" tests "setProperties", "setMetadata", "setQuota" and
// "getStatistics" (run live: 412 without the lease ID, 412 with another);
// azure-sdk-for-net Azure.Storage.Files.Shares/tests/SessionRecords/
// ShareClientTests/SetMetadataAsync_LeaseFailed.json (412 with an ID while
// unleased).
func TestShareLeaseGuardsWrites(t *testing.T) {
	_, svc := start(t, lazulitest.Options{InMemory: true})
	sh := newShare(t, svc, "leasedwrites")
	_, err := shareLease(t, sh, leaseA).Acquire(ctx, -1, nil)
	must(t, err)
	held := &share.LeaseAccessConditions{LeaseID: to.Ptr(leaseA)}
	other := &share.LeaseAccessConditions{LeaseID: to.Ptr(leaseB)}
	writes := []struct {
		name string
		call func(*share.LeaseAccessConditions) error
	}{
		{"set quota", func(c *share.LeaseAccessConditions) error {
			_, err := sh.SetProperties(ctx, &share.SetPropertiesOptions{Quota: to.Ptr(int32(20)), LeaseAccessConditions: c})
			return err
		}},
		{"set tier", func(c *share.LeaseAccessConditions) error {
			_, err := sh.SetProperties(ctx, &share.SetPropertiesOptions{AccessTier: to.Ptr(share.AccessTierHot), LeaseAccessConditions: c})
			return err
		}},
		{"set metadata", func(c *share.LeaseAccessConditions) error {
			_, err := sh.SetMetadata(ctx, &share.SetMetadataOptions{Metadata: map[string]*string{"k": to.Ptr("v")}, LeaseAccessConditions: c})
			return err
		}},
		{"set ACL", func(c *share.LeaseAccessConditions) error {
			_, err := sh.SetAccessPolicy(ctx, &share.SetAccessPolicyOptions{LeaseAccessConditions: c})
			return err
		}},
	}
	for _, w := range writes {
		t.Run(w.name, func(t *testing.T) {
			wantCode(t, w.call(nil), http.StatusPreconditionFailed, "LeaseIdMissing")
			if _, status := code(w.call(other)); status != http.StatusPreconditionFailed {
				t.Fatalf("with another lease ID: %v", w.call(other))
			}
			must(t, w.call(held))
		})
	}
	props, err := sh.GetProperties(ctx, nil)
	must(t, err)
	if *props.Quota != 20 || *props.AccessTier != string(share.AccessTierHot) || meta(props.Metadata, "k") != "v" {
		t.Errorf("writes with the lease ID not applied: quota %d tier %s meta %v", *props.Quota, *props.AccessTier, props.Metadata)
	}
	// Reads need no lease ID, but one they carry must be the share's.
	_, err = sh.GetStatistics(ctx, nil)
	must(t, err)
	_, err = sh.GetStatistics(ctx, &share.GetStatisticsOptions{LeaseAccessConditions: other})
	if _, status := code(err); status != http.StatusPreconditionFailed {
		t.Fatalf("stats with another lease ID: %v", err)
	}
	_, err = sh.GetStatistics(ctx, &share.GetStatisticsOptions{LeaseAccessConditions: held})
	must(t, err)
	_, err = sh.GetAccessPolicy(ctx, &share.GetAccessPolicyOptions{LeaseAccessConditions: other})
	if _, status := code(err); status != http.StatusPreconditionFailed {
		t.Fatalf("ACL with another lease ID: %v", err)
	}
	// Delete Share still needs it too.
	_, err = sh.Delete(ctx, nil)
	wantCode(t, err, http.StatusPreconditionFailed, "LeaseIdMissing")
	_, err = sh.Delete(ctx, &share.DeleteOptions{LeaseAccessConditions: held})
	must(t, err)
}

func TestShareLeaseInfiniteAndRelease(t *testing.T) {
	_, svc := start(t, lazulitest.Options{InMemory: true})
	sh := newShare(t, svc, "infinite")
	a := shareLease(t, sh, leaseA)
	_, err := a.Acquire(ctx, -1, nil)
	must(t, err)
	_, err = shareLease(t, sh, leaseB).Acquire(ctx, -1, nil)
	wantCode(t, err, http.StatusConflict, "LeaseAlreadyPresent")
	props, err := sh.GetProperties(ctx, nil)
	must(t, err)
	if *props.LeaseDuration != "infinite" {
		t.Errorf("duration %s", *props.LeaseDuration)
	}
	_, err = a.Release(ctx, nil)
	must(t, err)
	_, err = a.Release(ctx, nil)
	wantCode(t, err, http.StatusConflict, "LeaseIdMismatchWithLeaseOperation")
	_, err = sh.Delete(ctx, nil)
	must(t, err)
}

func TestSnapshotLeaseBlocksShareDelete(t *testing.T) {
	_, svc := start(t, lazulitest.Options{InMemory: true})
	sh := newShare(t, svc, "snaplease")
	snap, err := sh.CreateSnapshot(ctx, nil)
	must(t, err)
	_, err = shareLease(t, sh, leaseA).Acquire(ctx, -1, &lease.ShareAcquireOptions{ShareSnapshot: snap.Snapshot})
	must(t, err)
	_, err = sh.Delete(ctx, &share.DeleteOptions{ShareSnapshot: snap.Snapshot})
	wantCode(t, err, http.StatusPreconditionFailed, "LeaseIdMissing")
	_, err = sh.Delete(ctx, &share.DeleteOptions{DeleteSnapshots: to.Ptr(share.DeleteSnapshotsOptionTypeInclude)})
	wantCode(t, err, http.StatusConflict, "DeleteShareWhenSnapshotLeased")
	_, err = sh.Delete(ctx, &share.DeleteOptions{DeleteSnapshots: to.Ptr(share.DeleteSnapshotsOptionTypeIncludeLeased)})
	must(t, err)
}

func TestServiceProperties(t *testing.T) {
	in, svc := start(t, lazulitest.Options{InMemory: true})
	_, err := svc.SetProperties(ctx, &service.SetPropertiesOptions{
		HourMetrics:   &service.Metrics{Enabled: to.Ptr(true), IncludeAPIs: to.Ptr(true), Version: to.Ptr("1.0"), RetentionPolicy: &service.RetentionPolicy{Enabled: to.Ptr(true), Days: to.Ptr(int32(7))}},
		MinuteMetrics: &service.Metrics{Enabled: to.Ptr(false), Version: to.Ptr("1.0"), RetentionPolicy: &service.RetentionPolicy{Enabled: to.Ptr(false)}},
		CORS: []*service.CORSRule{{AllowedOrigins: to.Ptr("https://example.com"), AllowedMethods: to.Ptr("GET,PUT"),
			AllowedHeaders: to.Ptr("x-ms-*"), ExposedHeaders: to.Ptr("x-ms-request-id"), MaxAgeInSeconds: to.Ptr(int32(60))}},
		Protocol: &service.ProtocolSettings{Smb: &service.SMBSettings{Multichannel: &service.SMBMultichannel{Enabled: to.Ptr(true)}}},
	})
	must(t, err)
	// ShareDeleteRetentionPolicy has no field in this SDK: set it raw.
	body := `<?xml version="1.0" encoding="utf-8"?><StorageServiceProperties><ShareDeleteRetentionPolicy><Enabled>true</Enabled><Days>9</Days></ShareDeleteRetentionPolicy></StorageServiceProperties>`
	resp := rawRequest(t, in, http.MethodPut, "", "restype=service&comp=properties", nil, body)
	if resp.StatusCode != http.StatusAccepted {
		t.Fatalf("raw set properties: %d", resp.StatusCode)
	}
	got, err := svc.GetProperties(ctx, nil)
	must(t, err)
	if !*got.HourMetrics.Enabled || *got.HourMetrics.RetentionPolicy.Days != 7 || *got.MinuteMetrics.Enabled {
		t.Errorf("metrics: %+v %+v", got.HourMetrics, got.MinuteMetrics)
	}
	if len(got.CORS) != 1 || *got.CORS[0].AllowedOrigins != "https://example.com" || *got.CORS[0].MaxAgeInSeconds != 60 {
		t.Errorf("CORS: %+v", got.CORS)
	}
	if got.Protocol == nil || got.Protocol.Smb == nil || !*got.Protocol.Smb.Multichannel.Enabled {
		t.Errorf("protocol settings: %+v", got.Protocol)
	}
	raw := rawRequest(t, in, http.MethodGet, "", "restype=service&comp=properties", nil, "")
	doc, _ := io.ReadAll(raw.Body)
	if !strings.Contains(string(doc), "<ShareDeleteRetentionPolicy><Enabled>true</Enabled><Days>9</Days>") {
		t.Errorf("ShareDeleteRetentionPolicy not returned: %s", doc)
	}
	if strings.Contains(string(doc), "<Logging>") {
		t.Errorf("the File service has no Logging element: %s", doc)
	}
	// The middleware answers CORS from these rules.
	pre, err := http.NewRequest(http.MethodOptions, in.FileURL+"anyshare", nil)
	must(t, err)
	pre.Header.Set("Origin", "https://example.com")
	pre.Header.Set("Access-Control-Request-Method", "PUT")
	presp, err := (&http.Client{Transport: transport}).Do(pre)
	must(t, err)
	presp.Body.Close()
	if presp.StatusCode != http.StatusOK || presp.Header.Get("Access-Control-Allow-Origin") != "https://example.com" {
		t.Fatalf("preflight: %d %v", presp.StatusCode, presp.Header)
	}
}

// TestServicePropertiesDefaultProtocolSettings: an account that never set
// its File service properties still gets <ProtocolSettings> with SMB
// multichannel off, which the Python file-share SDK reads unconditionally.
// Reference: azure-sdk-for-js storage-file-share recordings/node/
// fileserviceclient/recording_getproperties.json (Get File Service
// Properties of an account that set no ProtocolSettings).
func TestServicePropertiesDefaultProtocolSettings(t *testing.T) {
	in, svc := start(t, lazulitest.Options{InMemory: true})
	raw := rawRequest(t, in, http.MethodGet, "", "restype=service&comp=properties", nil, "")
	doc, _ := io.ReadAll(raw.Body)
	const want = "<ProtocolSettings><SMB><Multichannel><Enabled>false</Enabled></Multichannel></SMB></ProtocolSettings>"
	if raw.StatusCode != http.StatusOK || !strings.Contains(string(doc), want) {
		t.Fatalf("%d %s", raw.StatusCode, doc)
	}
	got, err := svc.GetProperties(ctx, nil)
	must(t, err)
	if got.Protocol == nil || got.Protocol.Smb == nil || *got.Protocol.Smb.Multichannel.Enabled {
		t.Errorf("protocol settings: %+v", got.Protocol)
	}
}

// A share answers the container's lease codes, worded for the file share:
// Set Share Metadata with a lease ID on a share that has no lease is 412
// LeaseNotPresentWithContainerOperation, "There is currently no lease on
// the file share." (azure-sdk-for-net, Azure.Storage.Files.Shares
// SessionRecords/ShareClientTests/SetMetadataAsync_LeaseFailed.json).
func TestShareLeaseCodesAreTheContainers(t *testing.T) {
	_, svc := start(t, lazulitest.Options{InMemory: true})
	sh := newShare(t, svc, "unleased")
	_, err := sh.SetMetadata(ctx, &share.SetMetadataOptions{Metadata: map[string]*string{"foo": to.Ptr("bar")},
		LeaseAccessConditions: &share.LeaseAccessConditions{LeaseID: to.Ptr(leaseA)}})
	wantCode(t, err, http.StatusPreconditionFailed, "LeaseNotPresentWithContainerOperation")
	if err == nil || !strings.Contains(err.Error(), "There is currently no lease on the file share.") {
		t.Errorf("the message does not name the file share: %v", err)
	}
	_, err = shareLease(t, sh, leaseA).Acquire(ctx, -1, nil)
	must(t, err)
	_, err = sh.SetMetadata(ctx, &share.SetMetadataOptions{Metadata: map[string]*string{"foo": to.Ptr("bar")},
		LeaseAccessConditions: &share.LeaseAccessConditions{LeaseID: to.Ptr(leaseB)}})
	wantCode(t, err, http.StatusPreconditionFailed, "LeaseIdMismatchWithContainerOperation")
}
