package dfs_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azdatalake/file"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azdatalake/lease"
)

const (
	leaseA = "aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa"
	leaseB = "bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb"
)

// Path - Lease (a POST, or a PUT without comp) runs Lease Blob's state
// machine on the path: acquire 201, renew, change and release 200, break
// 202 with the time left.
func TestPathLeaseActions(t *testing.T) {
	e := start(t)
	e.filesystem("lake")
	e.newFile("lake", "f")
	step := func(method string, h http.Header, status int) *http.Response {
		t.Helper()
		resp, body := e.raw(method, "lake/f", h, nil)
		if resp.StatusCode != status {
			t.Fatalf("%s %v: %d %s", method, h, resp.StatusCode, body)
		}
		return resp
	}
	resp := step(http.MethodPost, http.Header{"X-Ms-Lease-Action": {"acquire"}, "X-Ms-Lease-Duration": {"-1"}, "X-Ms-Proposed-Lease-Id": {leaseA}}, http.StatusCreated)
	if resp.Header.Get("X-Ms-Lease-Id") != leaseA {
		t.Fatalf("acquire answered lease %q", resp.Header.Get("X-Ms-Lease-Id"))
	}
	again, body := e.raw(http.MethodPost, "lake/f", http.Header{"X-Ms-Lease-Action": {"acquire"}, "X-Ms-Lease-Duration": {"-1"}, "X-Ms-Proposed-Lease-Id": {leaseB}}, nil)
	wantJSONError(t, again, body, http.StatusConflict, "LeaseAlreadyPresent")
	step(http.MethodPost, http.Header{"X-Ms-Lease-Action": {"renew"}, "X-Ms-Lease-Id": {leaseA}}, http.StatusOK)
	resp = step(http.MethodPut, http.Header{"X-Ms-Lease-Action": {"change"}, "X-Ms-Lease-Id": {leaseA}, "X-Ms-Proposed-Lease-Id": {leaseB}}, http.StatusOK)
	if resp.Header.Get("X-Ms-Lease-Id") != leaseB {
		t.Fatalf("change answered lease %q", resp.Header.Get("X-Ms-Lease-Id"))
	}
	resp = step(http.MethodPost, http.Header{"X-Ms-Lease-Action": {"break"}, "X-Ms-Lease-Break-Period": {"0"}}, http.StatusAccepted)
	if resp.Header.Get("X-Ms-Lease-Time") != "0" {
		t.Fatalf("break answered lease time %q", resp.Header.Get("X-Ms-Lease-Time"))
	}
	step(http.MethodPost, http.Header{"X-Ms-Lease-Action": {"release"}, "X-Ms-Lease-Id": {leaseB}}, http.StatusOK)
	bad, body := e.raw(http.MethodPost, "lake/f", http.Header{"X-Ms-Lease-Action": {"borrow"}}, nil)
	wantJSONError(t, bad, body, http.StatusBadRequest, "InvalidHeaderValue")
}

// A lease taken with the SDK's lease client (Lease Blob) guards appends,
// flushes, setProperties and setAccessControl on the dfs endpoint.
func TestLeaseGuardsUpdates(t *testing.T) {
	e := start(t)
	e.filesystem("lake")
	f := e.newFile("lake", "f")
	lc, err := lease.NewPathClient(f, &lease.PathClientOptions{LeaseID: to.Ptr(leaseA)})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := lc.AcquireLease(e.ctx, -1, nil); err != nil {
		t.Fatal(err)
	}
	_, err = f.AppendData(e.ctx, 0, chunk("abc"), nil)
	wantCode(t, err, http.StatusPreconditionFailed, "LeaseIdMissing")
	_, err = f.AppendData(e.ctx, 0, chunk("abc"), &file.AppendDataOptions{LeaseAccessConditions: &file.LeaseAccessConditions{LeaseID: to.Ptr(leaseB)}})
	wantCode(t, err, http.StatusPreconditionFailed, "LeaseIdMismatchWithPathOperation")
	if _, err := f.AppendData(e.ctx, 0, chunk("abc"), &file.AppendDataOptions{LeaseAccessConditions: &file.LeaseAccessConditions{LeaseID: to.Ptr(leaseA)}}); err != nil {
		t.Fatal(err)
	}
	_, err = f.FlushData(e.ctx, 3, nil)
	wantCode(t, err, http.StatusPreconditionFailed, "LeaseIdMissing")
	resp, body := e.raw(http.MethodPatch, "lake/f?action=setAccessControl", http.Header{"X-Ms-Permissions": {"0700"}}, nil)
	wantJSONError(t, resp, body, http.StatusPreconditionFailed, "LeaseIdMissing")
	resp, body = e.raw(http.MethodPatch, "lake/f?action=setProperties", nil, nil)
	wantJSONError(t, resp, body, http.StatusPreconditionFailed, "LeaseIdMissing")

	// Flushing with the lease and "release" gives the lease back.
	if _, err := f.FlushData(e.ctx, 3, &file.FlushDataOptions{LeaseAction: to.Ptr(file.LeaseActionRelease),
		AccessConditions: &file.AccessConditions{LeaseAccessConditions: &file.LeaseAccessConditions{LeaseID: to.Ptr(leaseA)}}}); err != nil {
		t.Fatal(err)
	}
	props, err := f.GetProperties(e.ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if *props.LeaseState != "available" || *props.ContentLength != 3 {
		t.Fatalf("after flush with release: lease %s, length %d", *props.LeaseState, *props.ContentLength)
	}
}

// An append may take the lease itself ("acquire"), and later writes then
// need it; "auto-renew" renews it and says so.
func TestAppendLeaseAction(t *testing.T) {
	e := start(t)
	e.filesystem("lake")
	f := e.newFile("lake", "f")
	if _, err := f.AppendData(e.ctx, 0, chunk("ab"), &file.AppendDataOptions{LeaseAction: to.Ptr(file.LeaseActionAcquire),
		LeaseDuration: to.Ptr(int64(15)), ProposedLeaseID: to.Ptr(leaseA)}); err != nil {
		t.Fatal(err)
	}
	_, err := f.AppendData(e.ctx, 2, chunk("cd"), nil)
	wantCode(t, err, http.StatusPreconditionFailed, "LeaseIdMissing")
	renewed, err := f.AppendData(e.ctx, 2, chunk("cd"), &file.AppendDataOptions{LeaseAction: to.Ptr(file.LeaseActionRenew),
		LeaseAccessConditions: &file.LeaseAccessConditions{LeaseID: to.Ptr(leaseA)}})
	if err != nil {
		t.Fatal(err)
	}
	if renewed.LeaseRenewed == nil || !*renewed.LeaseRenewed {
		t.Fatalf("auto-renew answered lease renewed %v", renewed.LeaseRenewed)
	}
	// release belongs to a flush.
	_, err = f.AppendData(e.ctx, 4, chunk("e"), &file.AppendDataOptions{LeaseAction: to.Ptr(file.LeaseActionRelease),
		LeaseAccessConditions: &file.LeaseAccessConditions{LeaseID: to.Ptr(leaseA)}})
	wantCode(t, err, http.StatusBadRequest, "InvalidHeaderValue")
	if _, err := f.FlushData(e.ctx, 4, &file.FlushDataOptions{AccessConditions: &file.AccessConditions{
		LeaseAccessConditions: &file.LeaseAccessConditions{LeaseID: to.Ptr(leaseA)}}}); err != nil {
		t.Fatal(err)
	}
	if got := e.read(f); got != "abcd" {
		t.Fatalf("file reads %q", got)
	}
}

// auto-renew holds again a lease that expired, as Renew Lease does for the
// lease ID it names: azdatalake's recorded TestFileAppendDataWithRenewLease
// appends with auto-renew 15 s into a 15 s lease and reads the file leased.
func TestAppendAutoRenewsAnExpiredLease(t *testing.T) {
	e := start(t)
	e.filesystem("lake")
	f := e.newFile("lake", "f")
	if _, err := f.AppendData(e.ctx, 0, chunk("ab"), &file.AppendDataOptions{LeaseAction: to.Ptr(file.LeaseActionAcquire),
		LeaseDuration: to.Ptr(int64(15)), ProposedLeaseID: to.Ptr(leaseA)}); err != nil {
		t.Fatal(err)
	}
	e.in.Fake.Advance(16 * time.Second)
	if _, err := f.AppendData(e.ctx, 2, chunk("cd"), &file.AppendDataOptions{LeaseAction: to.Ptr(file.LeaseActionRenew),
		LeaseAccessConditions: &file.LeaseAccessConditions{LeaseID: to.Ptr(leaseA)}}); err != nil {
		t.Fatalf("auto-renew of the expired lease: %v", err)
	}
	p, err := f.GetProperties(e.ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if p.LeaseState == nil || *p.LeaseState != "leased" {
		t.Fatalf("lease state %v after auto-renew", p.LeaseState)
	}
	// Another ID renews nothing: the write is refused as without the action.
	_, err = f.AppendData(e.ctx, 4, chunk("e"), &file.AppendDataOptions{LeaseAction: to.Ptr(file.LeaseActionRenew),
		LeaseAccessConditions: &file.LeaseAccessConditions{LeaseID: to.Ptr("a0000000-0000-4000-8000-00000000000b")}})
	wantCode(t, err, http.StatusPreconditionFailed, "LeaseIdMismatchWithPathOperation")
}
