package cluster_test

import (
	"bytes"
	"net/http"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blob"

	"github.com/lazuli-storage/lazuli/internal/auth"
	"github.com/lazuli-storage/lazuli/internal/lazulitest"
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
	body := []byte(`<?xml version="1.0" encoding="utf-8"?><StorageServiceProperties><IsVersioningEnabled>true</IsVersioningEnabled>` +
		`<ImmutableStorageWithVersioning><Enabled>true</Enabled></ImmutableStorageWithVersioning></StorageServiceProperties>`)
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
