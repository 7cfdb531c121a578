package blob_test

import (
	"net/http"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/container"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/pageblob"

	"github.com/lazuli-storage/lazuli/internal/check/lazulitest"
	"github.com/lazuli-storage/lazuli/internal/run/config"
)

const gib = int64(1) << 30

// Premium page blob tiers, as the service answers its SDK tests
// (TestBlobTierInferred: a 5120-byte page blob is P10, inferred; Set Blob
// Tier P4 then shows P4, not inferred).
func TestPremiumPageBlobTiers(t *testing.T) {
	e := startWith(t, lazulitest.Options{InMemory: true,
		Configure: func(c *config.Config) { c.PremiumAccounts = []string{lazulitest.Account} }})
	info, err := e.svc.GetAccountInfo(e.ctx, nil)
	if err != nil || *info.SKUName != "Premium_LRS" {
		t.Fatalf("account info: %v", err)
	}
	c := e.container("disks")
	small := c.NewPageBlobClient("small")
	if _, err := small.Create(e.ctx, 5120, nil); err != nil {
		t.Fatal(err)
	}
	p := e.props(small.BlobClient())
	if *p.AccessTier != "P10" || p.AccessTierInferred == nil || !*p.AccessTierInferred {
		t.Fatalf("inferred tier: %v %v", *p.AccessTier, p.AccessTierInferred)
	}
	if _, err := small.SetTier(e.ctx, blob.AccessTierP4, nil); err != nil {
		t.Fatal(err)
	}
	after := e.props(small.BlobClient())
	if *after.AccessTier != "P4" || after.AccessTierInferred != nil || *after.ETag != *p.ETag {
		t.Fatalf("after Set Blob Tier P4: %v %v", *after.AccessTier, after.AccessTierInferred)
	}
	items := e.listAll(c, container.ListBlobsInclude{}, 0)
	if *items[0].Properties.AccessTier != blob.AccessTierP4 {
		t.Fatalf("listed tier %v", *items[0].Properties.AccessTier)
	}
	// A resize past the set tier's 32 GiB is refused.
	_, err = small.Resize(e.ctx, 33*gib, nil)
	wantCode(t, err, http.StatusConflict, "ContentLengthLargerThanTierLimit")

	// Put Blob sets a tier, which must hold the blob.
	tiered := c.NewPageBlobClient("tiered")
	if _, err := tiered.Create(e.ctx, 1024, &pageblob.CreateOptions{Tier: to.Ptr(pageblob.PremiumPageBlobAccessTierP20)}); err != nil {
		t.Fatal(err)
	}
	if tier := *e.props(tiered.BlobClient()).AccessTier; tier != "P20" {
		t.Fatalf("created with P20, shows %s", tier)
	}
	_, err = c.NewPageBlobClient("toolarge").Create(e.ctx, 200*gib, &pageblob.CreateOptions{Tier: to.Ptr(pageblob.PremiumPageBlobAccessTierP10)})
	wantCode(t, err, http.StatusConflict, "BlobTierInadequateForContentLength")

	big := c.NewPageBlobClient("big")
	if _, err := big.Create(e.ctx, 200*gib, nil); err != nil {
		t.Fatal(err)
	}
	if tier := *e.props(big.BlobClient()).AccessTier; tier != "P15" {
		t.Fatalf("a 200 GiB page blob infers %s", tier)
	}
	_, err = big.SetTier(e.ctx, blob.AccessTierP10, nil)
	wantCode(t, err, http.StatusConflict, "BlobTierInadequateForContentLength")

	// A block blob takes no premium tier.
	bb := e.upload(c, "doc", []byte("x"))
	_, err = bb.SetTier(e.ctx, blob.AccessTierP10, nil)
	wantCode(t, err, http.StatusConflict, "InvalidBlobType")
}

// A standard account refuses premium tiers, as an invalid x-ms-access-tier.
func TestPremiumTiersOnAStandardAccount(t *testing.T) {
	e := start(t)
	c := e.container("disks")
	pb := c.NewPageBlobClient("disk")
	_, err := pb.Create(e.ctx, 512, &pageblob.CreateOptions{Tier: to.Ptr(pageblob.PremiumPageBlobAccessTierP10)})
	wantCode(t, err, http.StatusBadRequest, "InvalidHeaderValue")
	if _, err := pb.Create(e.ctx, 512, nil); err != nil {
		t.Fatal(err)
	}
	_, err = pb.SetTier(e.ctx, blob.AccessTierP10, nil)
	wantCode(t, err, http.StatusBadRequest, "InvalidHeaderValue")
	info, err := e.svc.GetAccountInfo(e.ctx, nil)
	if err != nil || *info.SKUName != "Standard_RAGRS" {
		t.Fatalf("account info: %v", err)
	}
}
