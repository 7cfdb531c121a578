package cluster_test

import (
	"bytes"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/service"

	"github.com/lazuli-storage/lazuli/internal/check/lazulitest"
	"github.com/lazuli-storage/lazuli/internal/engine/store"
	"github.com/lazuli-storage/lazuli/internal/rule/auth"
)

// A policy and a legal hold set through one node protect the blob on the
// other, and the policy ends at its instant on both: each node reads the
// stored instant and the account's settings in the request's own
// transaction.
func TestImmutabilityAcrossNodes(t *testing.T) {
	c := startCluster(t, "blob")
	enableImmutability(t, c.nodes[1].BlobURL)
	c.container(t, "worm")
	b := c.blob(0, "worm", "doc")
	_, err := upload(c, b, []byte("record"), nil)
	must(t, err)
	clk := c.nodes[0].Fake
	until := clk.Now().Add(time.Hour).Truncate(time.Second)
	_, err = b.SetImmutabilityPolicy(c.ctx, until, nil)
	must(t, err)
	_, err = b.SetLegalHold(c.ctx, true, nil)
	must(t, err)

	other := c.blob(1, "worm", "doc")
	_, err = other.Delete(c.ctx, nil)
	wantError(t, err, 409, "BlobImmutableDueToLegalHold")
	_, err = other.SetLegalHold(c.ctx, false, nil)
	must(t, err)
	_, err = b.Delete(c.ctx, nil)
	wantError(t, err, 409, "BlobImmutableDueToPolicy")
	p, err := other.GetProperties(c.ctx, nil)
	must(t, err)
	if p.ImmutabilityPolicyExpiresOn == nil || !p.ImmutabilityPolicyExpiresOn.Equal(until) ||
		*p.ImmutabilityPolicyMode != blob.ImmutabilityPolicyModeUnlocked {
		t.Fatalf("the other node reads the policy as %v %v", p.ImmutabilityPolicyExpiresOn, p.ImmutabilityPolicyMode)
	}
	clk.Set(until.Add(-time.Millisecond))
	_, err = other.Delete(c.ctx, nil)
	wantError(t, err, 409, "BlobImmutableDueToPolicy")
	clk.Set(until)
	_, err = other.Delete(c.ctx, nil)
	must(t, err)
}

// enableImmutability turns versioning and version-level immutability on
// for the dev account, through the Blob service properties extension.
func enableImmutability(t *testing.T, blobURL string) {
	t.Helper()
	setServiceProperties(t, blobURL, `<IsVersioningEnabled>true</IsVersioningEnabled>`+
		`<ImmutableStorageWithVersioning><Enabled>true</Enabled></ImmutableStorageWithVersioning>`)
}

// setServiceProperties sets Blob service properties of the dev account.
func setServiceProperties(t *testing.T, blobURL, elements string) {
	t.Helper()
	body := []byte(`<?xml version="1.0" encoding="utf-8"?><StorageServiceProperties>` + elements + `</StorageServiceProperties>`)
	req, err := http.NewRequest(http.MethodPut, blobURL+"?restype=service&comp=properties", bytes.NewReader(body))
	must(t, err)
	req.Header.Set("Content-Type", "application/xml")
	req.Header.Set("x-ms-version", "2025-01-05")
	req.Header.Set("x-ms-date", time.Now().UTC().Format(http.TimeFormat))
	auth.SignSharedKey(req, auth.Blob, lazulitest.Account, lazulitest.KeyBytes())
	resp, err := http.DefaultClient.Do(req)
	must(t, err)
	resp.Body.Close()
	if resp.StatusCode != http.StatusAccepted {
		t.Fatalf("set service properties: %d", resp.StatusCode)
	}
}

// A container soft-deleted through one node is listed and restored
// through the other; deleted again, it is purged by the nodes' reapers
// once the shared clock passes its retention.
func TestContainerSoftDeleteAcrossNodes(t *testing.T) {
	c := startCluster(t, "blob")
	setServiceProperties(t, c.nodes[0].BlobURL, `<ContainerDeleteRetentionPolicy><Enabled>true</Enabled><Days>1</Days></ContainerDeleteRetentionPolicy>`)
	c.container(t, "kept")
	for i := 0; i < 10; i++ {
		_, err := upload(c, c.blob(i, "kept", fmt.Sprintf("b%d", i)), []byte("x"), nil)
		must(t, err)
	}
	_, err := c.blobs[0].NewContainerClient("kept").Delete(c.ctx, nil)
	must(t, err)
	pager := c.blobs[1].NewListContainersPager(&service.ListContainersOptions{Include: service.ListContainersInclude{Deleted: true}})
	page, err := pager.NextPage(c.ctx)
	must(t, err)
	if len(page.ContainerItems) != 1 || page.ContainerItems[0].Version == nil {
		t.Fatalf("the other node lists %d containers", len(page.ContainerItems))
	}
	_, err = c.blobs[1].RestoreContainer(c.ctx, "kept", *page.ContainerItems[0].Version, nil)
	must(t, err)
	data, _ := download(t, c, c.blob(0, "kept", "b3"))
	if string(data) != "x" {
		t.Fatalf("restored blob reads %q", data)
	}
	_, err = c.blobs[1].NewContainerClient("kept").Delete(c.ctx, nil)
	must(t, err)
	c.nodes[0].Fake.Advance(24 * time.Hour)
	st := c.nodes[0].App.Store
	deadline := time.Now().Add(30 * time.Second)
	// What stays is the account's $logs container.
	for countRecords(t, st, store.SpaceContainer) > 1 || countRecords(t, st, store.SpaceBlob) > 0 {
		if time.Now().After(deadline) {
			t.Fatalf("%d container and %d blob records left", countRecords(t, st, store.SpaceContainer), countRecords(t, st, store.SpaceBlob))
		}
		time.Sleep(100 * time.Millisecond)
	}
}
