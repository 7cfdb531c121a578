package blob_test

import (
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blockblob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/container"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/sas"

	"github.com/lazuli-storage/lazuli/internal/engine/store"
)

// enableImmutability turns versioning and the version-level immutability
// extension on (or the extension off) in the Blob service properties.
func (e *env) enableImmutability(on bool) {
	e.t.Helper()
	body := fmt.Sprintf(`<?xml version="1.0" encoding="utf-8"?><StorageServiceProperties><IsVersioningEnabled>true</IsVersioningEnabled>`+
		`<ImmutableStorageWithVersioning><Enabled>%t</Enabled></ImmutableStorageWithVersioning></StorageServiceProperties>`, on)
	resp := e.raw(http.MethodPut, "?restype=service&comp=properties", http.Header{"Content-Type": {"application/xml"}}, []byte(body))
	if resp.StatusCode != http.StatusAccepted {
		e.t.Fatalf("set service properties: %d", resp.StatusCode)
	}
}

// The Java and .NET SDKs' recorded ImmutableStorageWithVersioning tests:
// the policy (whole seconds) and legal hold read back from Get Blob
// Properties and List Blobs, and the container reports version-level
// immutability.
func TestImmutabilityPolicyAndLegalHold(t *testing.T) {
	engines(t, func(t *testing.T, e *env) {
		e.enableImmutability(true)
		c := e.container("worm")
		b := e.upload(c, "doc", []byte("record")).BlobClient()
		props := must(c.GetProperties(e.ctx, nil)).on(t)
		if props.IsImmutableStorageWithVersioningEnabled == nil || !*props.IsImmutableStorageWithVersioningEnabled {
			t.Fatal("the container does not report version-level immutability")
		}
		before := e.props(b)
		if before.LegalHold != nil || before.ImmutabilityPolicyMode != nil {
			t.Fatalf("a new blob has a hold %v or policy %v", before.LegalHold, before.ImmutabilityPolicyMode)
		}
		until := e.in.Fake.Now().Add(48*time.Hour + 700*time.Millisecond)
		resp := must(b.SetImmutabilityPolicy(e.ctx, until, nil)).on(t)
		want := until.Truncate(time.Second)
		if !resp.ImmutabilityPolicyExpiry.Equal(want) || *resp.ImmutabilityPolicyMode != blob.ImmutabilityPolicyModeUnlocked {
			t.Fatalf("set policy answered %v %v", resp.ImmutabilityPolicyExpiry, *resp.ImmutabilityPolicyMode)
		}
		p := e.props(b)
		if !p.ImmutabilityPolicyExpiresOn.Equal(want) || *p.ImmutabilityPolicyMode != blob.ImmutabilityPolicyModeUnlocked {
			t.Fatalf("properties: %v %v", p.ImmutabilityPolicyExpiresOn, p.ImmutabilityPolicyMode)
		}
		if *p.ETag != *before.ETag {
			t.Fatal("setting a policy changed the ETag")
		}
		hold := must(b.SetLegalHold(e.ctx, true, nil)).on(t)
		if hold.LegalHold == nil || !*hold.LegalHold {
			t.Fatalf("set legal hold answered %v", hold.LegalHold)
		}
		pager := c.NewListBlobsFlatPager(&container.ListBlobsFlatOptions{Include: container.ListBlobsInclude{ImmutabilityPolicy: true, LegalHold: true}})
		it := must(pager.NextPage(e.ctx)).on(t).Segment.BlobItems[0]
		if !it.Properties.ImmutabilityPolicyExpiresOn.Equal(want) || *it.Properties.ImmutabilityPolicyMode != blob.ImmutabilityPolicyModeUnlocked ||
			it.Properties.LegalHold == nil || !*it.Properties.LegalHold {
			t.Fatalf("listed: %+v", it.Properties)
		}
		plain := must(c.NewListBlobsFlatPager(nil).NextPage(e.ctx)).on(t).Segment.BlobItems[0]
		if plain.Properties.LegalHold != nil || plain.Properties.ImmutabilityPolicyMode != nil {
			t.Fatal("a listing without include shows the policy or hold")
		}
		must(b.SetLegalHold(e.ctx, false, nil)).on(t)
		if p := e.props(b); p.LegalHold == nil || *p.LegalHold {
			t.Fatalf("a cleared hold reads %v", p.LegalHold)
		}
		must(b.DeleteImmutabilityPolicy(e.ctx, nil)).on(t)
		if p := e.props(b); p.ImmutabilityPolicyMode != nil || p.ImmutabilityPolicyExpiresOn != nil {
			t.Fatal("the deleted policy is still reported")
		}

		_, err := b.SetImmutabilityPolicy(e.ctx, e.in.Fake.Now().Add(-time.Minute), nil)
		wantCode(t, err, 400, "InvalidHeaderValue")
		_, err = b.SetImmutabilityPolicy(e.ctx, until, &blob.SetImmutabilityPolicyOptions{
			ModifiedAccessConditions: &blob.ModifiedAccessConditions{IfUnmodifiedSince: to.Ptr(before.LastModified.Add(-time.Hour))}})
		wantCode(t, err, 412, "ConditionNotMet")
		missing := c.NewBlobClient("missing")
		_, err = missing.SetImmutabilityPolicy(e.ctx, until, nil)
		wantCode(t, err, 404, "BlobNotFound")
		_, err = missing.DeleteImmutabilityPolicy(e.ctx, nil)
		wantCode(t, err, 404, "BlobNotFound")
		_, err = missing.SetLegalHold(e.ctx, true, nil)
		wantCode(t, err, 404, "BlobNotFound")
	})
}

// What a protected version refuses, with the service's codes: a legal hold
// is named before a policy; overwriting makes a new version and keeps the
// protected one; a locked policy only extends and cannot be deleted; an
// unlocked policy protects until its instant.
func TestProtectedVersionsRefuseDeletesAndChanges(t *testing.T) {
	engines(t, func(t *testing.T, e *env) {
		e.enableImmutability(true)
		c := e.container("worm")
		bb := e.upload(c, "doc", []byte("v1"))
		b := bb.BlobClient()
		v1 := *e.props(b).VersionID
		until := e.in.Fake.Now().Add(time.Hour)
		must(b.SetImmutabilityPolicy(e.ctx, until, nil)).on(t)
		must(b.SetLegalHold(e.ctx, true, nil)).on(t)

		_, err := b.Delete(e.ctx, nil)
		wantCode(t, err, 409, "BlobImmutableDueToLegalHold")
		_, err = b.SetMetadata(e.ctx, map[string]*string{"k": to.Ptr("v")}, nil)
		wantCode(t, err, 409, "BlobImmutableDueToLegalHold")
		must(b.SetLegalHold(e.ctx, false, nil)).on(t)
		_, err = b.Delete(e.ctx, nil)
		wantCode(t, err, 409, "BlobImmutableDueToPolicy")
		_, err = b.SetMetadata(e.ctx, map[string]*string{"k": to.Ptr("v")}, nil)
		wantCode(t, err, 409, "BlobImmutableDueToPolicy")
		// Properties and tags stay writable.
		must(b.SetHTTPHeaders(e.ctx, blob.HTTPHeaders{BlobContentType: to.Ptr("text/plain")}, nil)).on(t)
		must(b.SetTags(e.ctx, map[string]string{"k": "v"}, nil)).on(t)

		// An overwrite makes a new, unprotected current version; the
		// protected one stays, readable and undeletable.
		must(bb.Upload(e.ctx, nopCloser([]byte("v2")), nil)).on(t)
		old := must(b.WithVersionID(v1)).on(t)
		if got := e.read(old); got != "v1" {
			t.Fatalf("the protected version reads %q", got)
		}
		if p := e.props(old); *p.ImmutabilityPolicyMode != blob.ImmutabilityPolicyModeUnlocked {
			t.Fatal("the previous version lost its policy")
		}
		_, err = old.Delete(e.ctx, nil)
		wantCode(t, err, 409, "BlobImmutableDueToPolicy")
		must(b.Delete(e.ctx, nil)).on(t) // the new current version is not protected

		// Locked: extend only, never delete.
		locked := to.Ptr(blob.ImmutabilityPolicySettingLocked)
		must(old.SetImmutabilityPolicy(e.ctx, until, &blob.SetImmutabilityPolicyOptions{Mode: locked})).on(t)
		_, err = old.SetImmutabilityPolicy(e.ctx, until.Add(-time.Minute), &blob.SetImmutabilityPolicyOptions{Mode: locked})
		wantCode(t, err, 409, "BlobImmutableDueToPolicy")
		_, err = old.SetImmutabilityPolicy(e.ctx, until.Add(time.Minute), nil)
		wantCode(t, err, 409, "BlobImmutableDueToPolicy")
		must(old.SetImmutabilityPolicy(e.ctx, until.Add(time.Minute), &blob.SetImmutabilityPolicyOptions{Mode: locked})).on(t)
		_, err = old.DeleteImmutabilityPolicy(e.ctx, nil)
		wantCode(t, err, 409, "ImmutabilityPolicyDeleteOnLockedPolicy")

		// The policy protects until its instant (whole seconds), read
		// from the clock.
		end := until.Add(time.Minute).Truncate(time.Second)
		e.in.Fake.Set(end.Add(-time.Millisecond))
		_, err = old.Delete(e.ctx, nil)
		wantCode(t, err, 409, "BlobImmutableDueToPolicy")
		e.in.Fake.Set(end)
		must(old.Delete(e.ctx, nil)).on(t)
	})
}

// x-ms-immutability-policy-* and x-ms-legal-hold on Put Blob, Put Block
// List, page and append blob creation and copies (the SDKs' recorded
// *_ImmutableStorageWithVersioning tests).
func TestImmutabilityOnWrites(t *testing.T) {
	e := start(t)
	e.enableImmutability(true)
	c := e.container("worm")
	until := e.in.Fake.Now().Add(48 * time.Hour)
	want := until.Truncate(time.Second)
	unlocked := to.Ptr(blob.ImmutabilityPolicySettingUnlocked)
	check := func(name string) {
		t.Helper()
		p := e.props(c.NewBlobClient(name))
		if p.ImmutabilityPolicyExpiresOn == nil || !p.ImmutabilityPolicyExpiresOn.Equal(want) ||
			*p.ImmutabilityPolicyMode != blob.ImmutabilityPolicyModeUnlocked || p.LegalHold == nil || !*p.LegalHold {
			t.Fatalf("%s: policy %v %v hold %v", name, p.ImmutabilityPolicyExpiresOn, p.ImmutabilityPolicyMode, p.LegalHold)
		}
	}
	must(c.NewBlockBlobClient("put").Upload(e.ctx, nopCloser([]byte("x")), &blockblob.UploadOptions{
		ImmutabilityPolicyExpiryTime: &until, ImmutabilityPolicyMode: unlocked, LegalHold: to.Ptr(true)})).on(t)
	check("put")
	bl := c.NewBlockBlobClient("blocks")
	must(bl.StageBlock(e.ctx, "YQ==", nopCloser([]byte("x")), nil)).on(t)
	must(bl.CommitBlockList(e.ctx, []string{"YQ=="}, &blockblob.CommitBlockListOptions{
		ImmutabilityPolicyExpiryTime: &until, ImmutabilityPolicyMode: unlocked, LegalHold: to.Ptr(true)})).on(t)
	check("blocks")
	must(c.NewBlockBlobClient("copy").CopyFromURL(e.ctx, readable(t, e, c.NewBlobClient("put").URL()), &blob.CopyFromURLOptions{
		ImmutabilityPolicyExpiry: &until, ImmutabilityPolicyMode: unlocked, LegalHold: to.Ptr(true)})).on(t)
	check("copy")
	resp := e.raw(http.MethodPut, "worm/append", http.Header{"X-Ms-Blob-Type": {"AppendBlob"},
		"X-Ms-Immutability-Policy-Until-Date": {until.Format(http.TimeFormat)}, "X-Ms-Legal-Hold": {"true"}}, nil)
	if resp.StatusCode != 201 {
		t.Fatalf("append blob: %d %s", resp.StatusCode, resp.Header.Get("x-ms-error-code"))
	}
	check("append")
	resp = e.raw(http.MethodPut, "worm/append?comp=appendblock", http.Header{"Content-Length": {"1"}}, []byte("a"))
	if resp.StatusCode != 409 || resp.Header.Get("x-ms-error-code") != "BlobImmutableDueToLegalHold" {
		t.Fatalf("append block on a held blob: %d %s", resp.StatusCode, resp.Header.Get("x-ms-error-code"))
	}
	for _, h := range []http.Header{
		{"X-Ms-Immutability-Policy-Mode": {"Unlocked"}},
		{"X-Ms-Immutability-Policy-Until-Date": {"yesterday"}},
		{"X-Ms-Immutability-Policy-Until-Date": {until.Format(http.TimeFormat)}, "X-Ms-Immutability-Policy-Mode": {"Mutable"}},
		{"X-Ms-Legal-Hold": {"maybe"}},
	} {
		h.Set("X-Ms-Blob-Type", "BlockBlob")
		if resp := e.raw(http.MethodPut, "worm/bad", h, nil); resp.StatusCode != 400 {
			t.Fatalf("%v: %d", h, resp.StatusCode)
		}
	}
}

// Without the extension the account has no version-level immutability:
// the operations and write headers answer 409 FeatureNotEnabled and the
// container reports it off.
func TestImmutabilityNeedsTheExtension(t *testing.T) {
	e := start(t)
	c := e.container("plain")
	b := e.upload(c, "doc", []byte("x")).BlobClient()
	_, err := b.SetImmutabilityPolicy(e.ctx, e.in.Fake.Now().Add(time.Hour), nil)
	wantCode(t, err, 409, "FeatureNotEnabled")
	_, err = b.SetLegalHold(e.ctx, true, nil)
	wantCode(t, err, 409, "FeatureNotEnabled")
	_, err = b.DeleteImmutabilityPolicy(e.ctx, nil)
	wantCode(t, err, 409, "FeatureNotEnabled")
	_, err = c.NewBlockBlobClient("held").Upload(e.ctx, nopCloser([]byte("x")), &blockblob.UploadOptions{LegalHold: to.Ptr(true)})
	wantCode(t, err, 409, "FeatureNotEnabled")
	props := must(c.GetProperties(e.ctx, nil)).on(t)
	if props.IsImmutableStorageWithVersioningEnabled == nil || *props.IsImmutableStorageWithVersioningEnabled {
		t.Fatal("the container reports version-level immutability")
	}
}

// A service SAS needs the i (set immutability policy) permission for the
// three operations, as the Java SDK's blobSas test signs it.
func TestImmutabilityWithServiceSAS(t *testing.T) {
	e := start(t)
	e.enableImmutability(true)
	c := e.container("worm")
	e.upload(c, "doc", []byte("x"))
	signed := func(p sas.BlobPermissions) *blob.Client {
		return anonBlob(t, sasURL(t, e, sas.BlobSignatureValues{ContainerName: "worm", BlobName: "doc",
			Permissions: p.String()})).BlobClient()
	}
	until := e.in.Fake.Now().Add(time.Hour)
	writer := signed(sas.BlobPermissions{Read: true, Write: true, Delete: true})
	_, err := writer.SetLegalHold(e.ctx, true, nil)
	wantCode(t, err, 403, "AuthorizationPermissionMismatch")
	_, err = writer.SetImmutabilityPolicy(e.ctx, until, nil)
	wantCode(t, err, 403, "AuthorizationPermissionMismatch")
	keeper := signed(sas.BlobPermissions{SetImmutabilityPolicy: true})
	must(keeper.SetImmutabilityPolicy(e.ctx, until, nil)).on(t)
	must(keeper.SetLegalHold(e.ctx, true, nil)).on(t)
	must(keeper.SetLegalHold(e.ctx, false, nil)).on(t)
	must(keeper.DeleteImmutabilityPolicy(e.ctx, nil)).on(t)
}

// Azure offers expiry on hierarchical-namespace accounts and version-level
// immutability on the others, never both; Lazuli offers both to an account
// --hnsAccounts names, and a protected blob does not expire until it is no
// longer protected.
func TestProtectedBlobsOutliveTheirExpiry(t *testing.T) {
	e := startHNS(t)
	e.enableImmutability(true)
	c := e.container("worm")
	bb := e.upload(c, "doc", []byte("x"))
	b := bb.BlobClient()
	must(bb.SetExpiry(e.ctx, blockblob.ExpiryTypeRelativeToNow(time.Minute), nil)).on(t)
	must(b.SetLegalHold(e.ctx, true, nil)).on(t)
	e.in.Fake.Advance(time.Hour)
	e.props(b)
	time.Sleep(1500 * time.Millisecond) // a reaper pass
	e.props(b)
	must(b.SetLegalHold(e.ctx, false, nil)).on(t)
	_, err := b.GetProperties(e.ctx, nil)
	wantCode(t, err, 404, "BlobNotFound")
	waitFor(t, func() bool { return countKeys(t, e.in.App.Store, store.SpaceBlobExpiry) == 0 })
}

// A container holding a protected version cannot be deleted, under its
// own name or after a rename; once nothing in it is protected it can.
func TestProtectedVersionsKeepTheirContainer(t *testing.T) {
	engines(t, func(t *testing.T, e *env) {
		e.enableImmutability(true)
		c := e.container("worm")
		for i := 0; i < 5; i++ {
			e.upload(c, fmt.Sprintf("plain%d", i), []byte("x"))
		}
		bb := e.upload(c, "doc", []byte("v1"))
		until := e.in.Fake.Now().Add(time.Hour)
		must(bb.BlobClient().SetImmutabilityPolicy(e.ctx, until, nil)).on(t)
		// The protected state becomes a previous version; the name still
		// protects the container.
		must(bb.Upload(e.ctx, nopCloser([]byte("v2")), nil)).on(t)
		_, err := c.Delete(e.ctx, nil)
		wantCode(t, err, 409, "BlobImmutableDueToPolicy")

		resp := e.raw(http.MethodPut, "moved?restype=container&comp=rename", http.Header{"X-Ms-Source-Container-Name": {"worm"}}, nil)
		if resp.StatusCode != 200 {
			t.Fatalf("rename: %d %s", resp.StatusCode, resp.Header.Get("x-ms-error-code"))
		}
		moved := e.svc.NewContainerClient("moved")
		_, err = moved.Delete(e.ctx, nil)
		wantCode(t, err, 409, "BlobImmutableDueToPolicy")

		e.in.Fake.Set(until.Truncate(time.Second))
		must(moved.Delete(e.ctx, nil)).on(t)
		if n := countKeys(t, e.in.App.Store, store.SpaceBlob); n != 0 {
			t.Fatalf("%d blob records left", n)
		}
		if n := countKeys(t, e.in.App.Store, store.SpaceBlobIndex); n != 0 {
			t.Fatalf("%d index entries left", n)
		}
	})
}
