package file_test

import (
	"net/http"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azfile/service"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azfile/share"

	"github.com/lazuli-storage/lazuli/internal/check/lazulitest"
	"github.com/lazuli-storage/lazuli/internal/run/config"
)

// A premium share reports what the provisioned v1 model gives its quota,
// keeps paid bursting and, for NFS, the snapshot virtual directory choice
// (the azfile SDK's TestPremiumShareBandwidth, TestShareCreatePaidBursting,
// TestShareGetSetPropertiesWithSnapshotVirtualDirectory); a standard
// account refuses paid bursting.
func TestPremiumShareProperties(t *testing.T) {
	_, svc := start(t, lazulitest.Options{InMemory: true, Services: []string{"file"},
		Configure: func(c *config.Config) { c.PremiumAccounts = []string{lazulitest.Account} }})
	sh := svc.NewShareClient("premium")
	_, err := sh.Create(ctx, &share.CreateOptions{Quota: to.Ptr(int32(200)), PaidBurstingEnabled: to.Ptr(true),
		PaidBurstingMaxIops: to.Ptr(int64(5000)), PaidBurstingMaxBandwidthMibps: to.Ptr(int64(1000))})
	must(t, err)
	p, err := sh.GetProperties(ctx, nil)
	must(t, err)
	// 200 GiB: 3000 + 200 IOPS, 40 + 8 MiB/s in, 60 + 12 out.
	if *p.ProvisionedIops != 3200 || *p.ProvisionedIngressMBps != 48 || *p.ProvisionedEgressMBps != 72 ||
		*p.ProvisionedBandwidthMiBps != 120 || p.NextAllowedQuotaDowngradeTime == nil {
		t.Fatalf("provisioned %d IOPS, %d/%d/%d MiB/s", *p.ProvisionedIops, *p.ProvisionedIngressMBps,
			*p.ProvisionedEgressMBps, *p.ProvisionedBandwidthMiBps)
	}
	if !*p.PaidBurstingEnabled || *p.PaidBurstingMaxIops != 5000 || *p.PaidBurstingMaxBandwidthMibps != 1000 {
		t.Fatalf("paid bursting %v %d %d", *p.PaidBurstingEnabled, *p.PaidBurstingMaxIops, *p.PaidBurstingMaxBandwidthMibps)
	}
	page, err := svc.NewListSharesPager(&service.ListSharesOptions{Prefix: to.Ptr("premium")}).NextPage(ctx)
	must(t, err)
	if got := page.Shares[0].Properties; got.ProvisionedIops == nil || *got.ProvisionedIops != 3200 || !*got.PaidBurstingEnabled {
		t.Fatalf("listed %+v", got)
	}

	nfs := svc.NewShareClient("nfs")
	_, err = nfs.Create(ctx, &share.CreateOptions{EnabledProtocols: to.Ptr("NFS"), EnableSnapshotVirtualDirectoryAccess: to.Ptr(false)})
	must(t, err)
	if p, err := nfs.GetProperties(ctx, nil); err != nil || *p.EnableSnapshotVirtualDirectoryAccess {
		t.Fatalf("snapshot directories: %v", err)
	}
	_, err = nfs.SetProperties(ctx, &share.SetPropertiesOptions{EnableSnapshotVirtualDirectoryAccess: to.Ptr(true)})
	must(t, err)
	if p, err := nfs.GetProperties(ctx, nil); err != nil || !*p.EnableSnapshotVirtualDirectoryAccess {
		t.Fatalf("snapshot directories after set: %v", err)
	}

	_, standard := start(t, lazulitest.Options{InMemory: true, Services: []string{"file"}})
	_, err = standard.NewShareClient("std").Create(ctx, &share.CreateOptions{PaidBurstingEnabled: to.Ptr(true)})
	wantCode(t, err, http.StatusBadRequest, "InvalidHeaderValue")
	std := standard.NewShareClient("plain")
	_, err = std.Create(ctx, nil)
	must(t, err)
	if p, err := std.GetProperties(ctx, nil); err != nil || p.ProvisionedIops != nil {
		t.Fatalf("a standard share reports provisioning: %v", err)
	}
}
