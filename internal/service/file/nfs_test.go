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

// A premium account creates NFS shares: the protocol and root squash are
// shown by Get Share Properties and List Shares, and Set Share Properties
// changes the root squash.
func TestNFSShareOnAPremiumAccount(t *testing.T) {
	_, svc := start(t, lazulitest.Options{InMemory: true, Services: []string{"file"},
		Configure: func(c *config.Config) { c.PremiumAccounts = []string{lazulitest.Account} }})
	nfs := svc.NewShareClient("nfs")
	if _, err := nfs.Create(ctx, &share.CreateOptions{EnabledProtocols: to.Ptr("NFS")}); err != nil {
		t.Fatal(err)
	}
	p, err := nfs.GetProperties(ctx, nil)
	if err != nil || *p.EnabledProtocols != "NFS" || p.RootSquash == nil || *p.RootSquash != "NoRootSquash" {
		t.Fatalf("NFS share properties: %v", err)
	}
	if _, err := nfs.SetProperties(ctx, &share.SetPropertiesOptions{RootSquash: to.Ptr(share.RootSquashAllSquash)}); err != nil {
		t.Fatal(err)
	}
	if p, _ = nfs.GetProperties(ctx, nil); *p.RootSquash != "AllSquash" {
		t.Fatalf("root squash after Set Share Properties: %s", *p.RootSquash)
	}
	squashed := svc.NewShareClient("squashed")
	if _, err := squashed.Create(ctx, &share.CreateOptions{EnabledProtocols: to.Ptr("NFS"),
		RootSquash: to.Ptr(share.RootSquashRootSquash)}); err != nil {
		t.Fatal(err)
	}
	smb := newShare(t, svc, "smb")
	if p, _ = smb.GetProperties(ctx, nil); *p.EnabledProtocols != "SMB" || p.RootSquash != nil {
		t.Fatalf("SMB share: %v %v", *p.EnabledProtocols, p.RootSquash)
	}
	_, err = smb.SetProperties(ctx, &share.SetPropertiesOptions{RootSquash: to.Ptr(share.RootSquashRootSquash)})
	wantCode(t, err, http.StatusBadRequest, "InvalidHeaderValue")

	pager := svc.NewListSharesPager(&service.ListSharesOptions{})
	page, err := pager.NextPage(ctx)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, it := range page.Shares {
		squash := ""
		if it.Properties.RootSquash != nil {
			squash = string(*it.Properties.RootSquash)
		}
		got[*it.Name] = *it.Properties.EnabledProtocols + "/" + squash
	}
	want := map[string]string{"nfs": "NFS/AllSquash", "squashed": "NFS/RootSquash", "smb": "SMB/"}
	for name, w := range want {
		if got[name] != w {
			t.Errorf("listed %s as %q, want %q", name, got[name], w)
		}
	}
}

// A standard account's shares speak SMB only.
func TestNFSShareOnAStandardAccount(t *testing.T) {
	_, svc := start(t, lazulitest.Options{InMemory: true, Services: []string{"file"}})
	_, err := svc.NewShareClient("nfs").Create(ctx, &share.CreateOptions{EnabledProtocols: to.Ptr("NFS")})
	wantCode(t, err, http.StatusBadRequest, "InvalidHeaderValue")
	_, err = svc.NewShareClient("smb").Create(ctx, &share.CreateOptions{RootSquash: to.Ptr(share.RootSquashRootSquash)})
	wantCode(t, err, http.StatusBadRequest, "InvalidHeaderValue")
}

// The NFS link operations answer 501 NotImplemented, named, rather than a
// 400 that reads as the client's fault.
func TestNFSLinksAreNotImplemented(t *testing.T) {
	_, svc := start(t, lazulitest.Options{InMemory: true, Services: []string{"file"},
		Configure: func(c *config.Config) { c.PremiumAccounts = []string{lazulitest.Account} }})
	nfs := svc.NewShareClient("links")
	if _, err := nfs.Create(ctx, &share.CreateOptions{EnabledProtocols: to.Ptr("NFS")}); err != nil {
		t.Fatal(err)
	}
	f := nfs.NewRootDirectoryClient().NewFileClient("link")
	_, err := f.CreateSymbolicLink(ctx, "target", nil)
	wantCode(t, err, http.StatusNotImplemented, "NotImplemented")
	_, err = f.GetSymbolicLink(ctx, nil)
	wantCode(t, err, http.StatusNotImplemented, "NotImplemented")
	_, err = f.CreateHardLink(ctx, "target", nil)
	wantCode(t, err, http.StatusNotImplemented, "NotImplemented")
}
