package blob_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/bloberror"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/container"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/lease"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/service"
)

func TestCreateContainer(t *testing.T) {
	e := start(t)
	c := e.svc.NewContainerClient("photos")
	access := container.PublicAccessTypeBlob
	resp, err := c.Create(e.ctx, &container.CreateOptions{Metadata: map[string]*string{"owner": to.Ptr("ann")}, Access: &access})
	if err != nil {
		t.Fatal(err)
	}
	if resp.ETag == nil || resp.LastModified == nil {
		t.Fatal("create returned no ETag or Last-Modified")
	}
	props, err := c.GetProperties(e.ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if *props.ETag != *resp.ETag || !props.LastModified.Equal(*resp.LastModified) {
		t.Fatalf("properties ETag %s / %v, create gave %s / %v", *props.ETag, props.LastModified, *resp.ETag, resp.LastModified)
	}
	if props.Metadata["Owner"] == nil || *props.Metadata["Owner"] != "ann" {
		t.Fatalf("metadata = %v", props.Metadata)
	}
	if props.BlobPublicAccess == nil || *props.BlobPublicAccess != container.PublicAccessTypeBlob {
		t.Fatalf("public access = %v", props.BlobPublicAccess)
	}
	if *props.LeaseStatus != lease.StatusTypeUnlocked || *props.LeaseState != lease.StateTypeAvailable || props.LeaseDuration != nil {
		t.Fatalf("lease headers %v %v %v", *props.LeaseStatus, *props.LeaseState, props.LeaseDuration)
	}
	if props.HasImmutabilityPolicy == nil || *props.HasImmutabilityPolicy || props.HasLegalHold == nil || *props.HasLegalHold {
		t.Fatal("immutability headers missing or true")
	}
	_, err = c.Create(e.ctx, nil)
	wantCode(t, err, 409, string(bloberror.ContainerAlreadyExists))
}

func TestContainerNames(t *testing.T) {
	e := start(t)
	for _, good := range []string{"abc", "a-b-c", "0abc", strings.Repeat("a", 63), "$root", "$web"} {
		if _, err := e.svc.NewContainerClient(good).Create(e.ctx, nil); err != nil {
			t.Errorf("create %q: %v", good, err)
		}
	}
	// Every account has its $logs container already.
	_, err := e.svc.NewContainerClient("$logs").Create(e.ctx, nil)
	wantCode(t, err, 409, string(bloberror.ContainerAlreadyExists))
	for _, bad := range []string{"Abc", "a--b", "-abc", "abc-", "a_b", "a.b", "$other"} {
		_, err := e.svc.NewContainerClient(bad).Create(e.ctx, nil)
		wantCode(t, err, 400, string(bloberror.InvalidResourceName))
	}
	// A name of the wrong length is 400 OutOfRangeInput, "The specified
	// resource name length is not within the permissible limits."
	for _, bad := range []string{"ab", strings.Repeat("a", 64)} {
		_, err := e.svc.NewContainerClient(bad).Create(e.ctx, nil)
		wantCode(t, err, 400, string(bloberror.OutOfRangeInput))
	}
	_, err = e.svc.NewContainerClient("absent").GetProperties(e.ctx, nil)
	wantCode(t, err, 404, string(bloberror.ContainerNotFound))
	_, err = e.svc.CreateContainer(e.ctx, "bad", &container.CreateOptions{Metadata: map[string]*string{"1x": to.Ptr("v")}})
	wantCode(t, err, 400, string(bloberror.InvalidMetadata))
}

func TestContainerPublicAccessHeader(t *testing.T) {
	e := start(t)
	resp := e.raw(http.MethodPut, "pub?restype=container", http.Header{"X-Ms-Blob-Public-Access": {"everyone"}}, nil)
	if resp.StatusCode != 400 || resp.Header.Get("x-ms-error-code") != "InvalidHeaderValue" {
		t.Fatalf("bad public access: %d %s", resp.StatusCode, resp.Header.Get("x-ms-error-code"))
	}
}

func TestContainerMetadata(t *testing.T) {
	e := start(t)
	c := e.container("meta")
	before, _ := c.GetProperties(e.ctx, nil)
	set, err := c.SetMetadata(e.ctx, &container.SetMetadataOptions{Metadata: map[string]*string{"a": to.Ptr("1"), "b": to.Ptr("2")}})
	if err != nil {
		t.Fatal(err)
	}
	if *set.ETag == *before.ETag {
		t.Fatal("Set Container Metadata kept the ETag")
	}
	got, err := c.GetProperties(e.ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Metadata) != 2 || *got.Metadata["A"] != "1" || *got.Metadata["B"] != "2" {
		t.Fatalf("metadata = %v", got.Metadata)
	}
	// Only If-Modified-Since is accepted; If-Match is refused.
	past := time.Now().Add(-time.Hour)
	_, err = c.SetMetadata(e.ctx, &container.SetMetadataOptions{
		ModifiedAccessConditions: &container.ModifiedAccessConditions{IfModifiedSince: &past}})
	if err != nil {
		t.Fatalf("If-Modified-Since in the past: %v", err)
	}
	future := time.Now().Add(time.Hour)
	_, err = c.SetMetadata(e.ctx, &container.SetMetadataOptions{
		ModifiedAccessConditions: &container.ModifiedAccessConditions{IfModifiedSince: &future}})
	wantCode(t, err, 412, string(bloberror.ConditionNotMet))
	resp := e.raw(http.MethodPut, "meta?restype=container&comp=metadata", http.Header{"If-Match": {string(*set.ETag)}}, nil)
	if resp.StatusCode != 400 || resp.Header.Get("x-ms-error-code") != "ConditionHeadersNotSupported" {
		t.Fatalf("If-Match on Set Container Metadata: %d %s", resp.StatusCode, resp.Header.Get("x-ms-error-code"))
	}
	// Metadata names must be identifiers, and fit in 8 KiB.
	_, err = c.SetMetadata(e.ctx, &container.SetMetadataOptions{Metadata: map[string]*string{"bad-name": to.Ptr("x")}})
	wantCode(t, err, 400, string(bloberror.InvalidMetadata))
	_, err = c.SetMetadata(e.ctx, &container.SetMetadataOptions{Metadata: map[string]*string{"big": to.Ptr(strings.Repeat("x", 8<<10))}})
	wantCode(t, err, 400, string(bloberror.MetadataTooLarge))
}

func TestContainerACL(t *testing.T) {
	e := start(t)
	c := e.container("acl")
	before, _ := c.GetProperties(e.ctx, nil)
	start := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
	expiry := start.Add(24 * time.Hour)
	var ids []*container.SignedIdentifier
	for i := range 5 {
		ids = append(ids, &container.SignedIdentifier{ID: to.Ptr(fmt.Sprintf("policy-%d", i)),
			AccessPolicy: &container.AccessPolicy{Start: &start, Expiry: &expiry, Permission: to.Ptr("rl")}})
	}
	access := container.PublicAccessTypeContainer
	set, err := c.SetAccessPolicy(e.ctx, &container.SetAccessPolicyOptions{ContainerACL: ids, Access: &access})
	if err != nil {
		t.Fatal(err)
	}
	if *set.ETag == *before.ETag {
		t.Fatal("Set Container ACL kept the ETag")
	}
	got, err := c.GetAccessPolicy(e.ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.SignedIdentifiers) != 5 || *got.BlobPublicAccess != container.PublicAccessTypeContainer {
		t.Fatalf("got %d identifiers, access %v", len(got.SignedIdentifiers), got.BlobPublicAccess)
	}
	p := got.SignedIdentifiers[2]
	if *p.ID != "policy-2" || !p.AccessPolicy.Start.Equal(start) || !p.AccessPolicy.Expiry.Equal(expiry) || *p.AccessPolicy.Permission != "rl" {
		t.Fatalf("policy = %s %v %v %s", *p.ID, p.AccessPolicy.Start, p.AccessPolicy.Expiry, *p.AccessPolicy.Permission)
	}
	ids = append(ids, &container.SignedIdentifier{ID: to.Ptr("sixth"), AccessPolicy: &container.AccessPolicy{Permission: to.Ptr("r")}})
	_, err = c.SetAccessPolicy(e.ctx, &container.SetAccessPolicyOptions{ContainerACL: ids})
	wantCode(t, err, 400, "InvalidXmlDocument")
	// Letters out of the service's order are refused as the service refuses
	// "wrld" (Azure/azure-sdk-for-net issue 14456).
	order := []*container.SignedIdentifier{{ID: to.Ptr("order"), AccessPolicy: &container.AccessPolicy{Permission: to.Ptr("wrld")}}}
	_, err = c.SetAccessPolicy(e.ctx, &container.SetAccessPolicyOptions{ContainerACL: order})
	wantCode(t, err, 400, "InvalidXmlDocument")
	// An empty ACL without the header clears both.
	if _, err := c.SetAccessPolicy(e.ctx, nil); err != nil {
		t.Fatal(err)
	}
	got, _ = c.GetAccessPolicy(e.ctx, nil)
	if len(got.SignedIdentifiers) != 0 || got.BlobPublicAccess != nil {
		t.Fatalf("after clearing: %d identifiers, access %v", len(got.SignedIdentifiers), got.BlobPublicAccess)
	}
}

func TestDeleteContainer(t *testing.T) {
	e := start(t)
	c := e.container("gone")
	for i := range 300 {
		e.upload(c, fmt.Sprintf("b%03d", i), []byte("x"))
	}
	props, _ := c.GetProperties(e.ctx, nil)
	future := props.LastModified.Add(time.Hour)
	_, err := c.Delete(e.ctx, &container.DeleteOptions{AccessConditions: &container.AccessConditions{
		ModifiedAccessConditions: &container.ModifiedAccessConditions{IfModifiedSince: &future}}})
	wantCode(t, err, 412, string(bloberror.ConditionNotMet))
	past := props.LastModified.Add(-time.Hour)
	_, err = c.Delete(e.ctx, &container.DeleteOptions{AccessConditions: &container.AccessConditions{
		ModifiedAccessConditions: &container.ModifiedAccessConditions{IfUnmodifiedSince: &past}}})
	wantCode(t, err, 412, string(bloberror.ConditionNotMet))
	if _, err := c.Delete(e.ctx, nil); err != nil {
		t.Fatal(err)
	}
	_, err = c.GetProperties(e.ctx, nil)
	wantCode(t, err, 404, string(bloberror.ContainerNotFound))
	// A repeat Delete within Azure's asynchronous deletion is accepted
	// (the recorded TestContainerReleaseLease deletes twice); later it is
	// 404.
	if _, err := c.Delete(e.ctx, nil); err != nil {
		t.Fatalf("repeat Delete Container: %v", err)
	}
	e.in.Fake.Advance(30 * time.Second)
	_, err = c.Delete(e.ctx, nil)
	wantCode(t, err, 404, string(bloberror.ContainerNotFound))
	// Recreated, it is empty.
	c = e.container("gone")
	page, err := c.NewListBlobsFlatPager(nil).NextPage(e.ctx)
	if err != nil || len(page.Segment.BlobItems) != 0 {
		t.Fatalf("recreated container lists %d blobs (%v)", len(page.Segment.BlobItems), err)
	}
}

func TestContainerLease(t *testing.T) {
	e := start(t)
	c := e.container("leased")
	before, _ := c.GetProperties(e.ctx, nil)
	lc, err := lease.NewContainerClient(c, nil)
	if err != nil {
		t.Fatal(err)
	}
	acq, err := lc.AcquireLease(e.ctx, -1, nil)
	if err != nil {
		t.Fatal(err)
	}
	if *acq.LeaseID != *lc.LeaseID() || *acq.ETag != *before.ETag {
		t.Fatalf("acquire: id %s (want %s), ETag %s (was %s)", *acq.LeaseID, *lc.LeaseID(), *acq.ETag, *before.ETag)
	}
	props, _ := c.GetProperties(e.ctx, nil)
	if *props.LeaseState != lease.StateTypeLeased || *props.LeaseDuration != lease.DurationTypeInfinite || *props.ETag != *before.ETag {
		t.Fatalf("leased container: %v %v %s", *props.LeaseState, props.LeaseDuration, *props.ETag)
	}
	// The lease guards Delete Container only.
	if _, err := c.SetMetadata(e.ctx, nil); err != nil {
		t.Fatalf("set metadata on a leased container: %v", err)
	}
	_, err = c.Delete(e.ctx, nil)
	wantCode(t, err, 412, string(bloberror.LeaseIDMissing))
	_, err = c.Delete(e.ctx, &container.DeleteOptions{AccessConditions: &container.AccessConditions{
		LeaseAccessConditions: &container.LeaseAccessConditions{LeaseID: to.Ptr("11111111-1111-1111-1111-111111111111")}}})
	wantCode(t, err, 412, string(bloberror.LeaseIDMismatchWithContainerOperation))
	// A second client cannot acquire; renew, change and release work.
	other, _ := lease.NewContainerClient(c, nil)
	_, err = other.AcquireLease(e.ctx, 30, nil)
	wantCode(t, err, 409, string(bloberror.LeaseAlreadyPresent))
	if _, err := lc.RenewLease(e.ctx, nil); err != nil {
		t.Fatal(err)
	}
	newID := "22222222-2222-2222-2222-222222222222"
	ch, err := lc.ChangeLease(e.ctx, newID, nil)
	if err != nil || *ch.LeaseID != newID {
		t.Fatalf("change: %v", err)
	}
	br, err := lc.BreakLease(e.ctx, &lease.ContainerBreakOptions{BreakPeriod: to.Ptr(int32(0))})
	if err != nil || *br.LeaseTime != 0 {
		t.Fatalf("break: %v", err)
	}
	props, _ = c.GetProperties(e.ctx, nil)
	if *props.LeaseState != lease.StateTypeBroken {
		t.Fatalf("after break: %v", *props.LeaseState)
	}
	if _, err := lc.ReleaseLease(e.ctx, nil); err != nil {
		t.Fatal(err)
	}
	_, err = lc.ReleaseLease(e.ctx, nil)
	wantCode(t, err, 409, string(bloberror.LeaseIDMismatchWithLeaseOperation))
	// A lease ID on a container without a lease is refused on reads too.
	_, err = c.GetProperties(e.ctx, &container.GetPropertiesOptions{LeaseAccessConditions: &container.LeaseAccessConditions{LeaseID: &newID}})
	wantCode(t, err, 412, string(bloberror.LeaseNotPresentWithContainerOperation))
	// Lease operations take only If-Modified-Since / If-Unmodified-Since.
	resp := e.raw(http.MethodPut, "leased?restype=container&comp=lease", http.Header{"X-Ms-Lease-Action": {"acquire"},
		"X-Ms-Lease-Duration": {"-1"}, "If-Match": {"*"}}, nil)
	if resp.StatusCode != 400 {
		t.Fatalf("If-Match on Lease Container: %d", resp.StatusCode)
	}
	final, _ := c.GetProperties(e.ctx, nil)
	if final.LeaseState == nil || *final.LeaseState != lease.StateTypeAvailable {
		t.Fatalf("final state %v", final.LeaseState)
	}
}

func TestListContainers(t *testing.T) {
	e := start(t)
	for i := range 7 {
		e.svc.NewContainerClient(fmt.Sprintf("list-%d", i)).Create(e.ctx, &container.CreateOptions{Metadata: map[string]*string{"n": to.Ptr(fmt.Sprint(i))}})
	}
	e.container("other")
	var names []string
	pages := 0
	pager := e.svc.NewListContainersPager(&service.ListContainersOptions{Prefix: to.Ptr("list-"), MaxResults: to.Ptr(int32(3)),
		Include: service.ListContainersInclude{Metadata: true}})
	for pager.More() {
		page, err := pager.NextPage(e.ctx)
		if err != nil {
			t.Fatal(err)
		}
		pages++
		for _, it := range page.ContainerItems {
			names = append(names, *it.Name)
			if it.Metadata["n"] == nil || it.Properties.ETag == nil || it.Properties.LastModified == nil || *it.Properties.LeaseState != lease.StateTypeAvailable {
				t.Fatalf("container item %s incomplete: %+v", *it.Name, it)
			}
		}
	}
	if pages != 3 || strings.Join(names, ",") != "list-0,list-1,list-2,list-3,list-4,list-5,list-6" {
		t.Fatalf("%d pages: %v", pages, names)
	}
	resp := e.raw(http.MethodGet, "?comp=list&maxresults=0", nil, nil)
	if resp.StatusCode != 400 || resp.Header.Get("x-ms-error-code") != "OutOfRangeQueryParameterValue" {
		t.Fatalf("maxresults=0: %d %s", resp.StatusCode, resp.Header.Get("x-ms-error-code"))
	}
}
