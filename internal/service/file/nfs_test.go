package file_test

import (
	"net/http"
	"net/url"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azfile/file"
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

// Symbolic links of NFS shares: created with their text, NFS properties
// and metadata, read back percent-encoded, reported as SymLink; refused on
// SMB shares and over an existing name (hard links: nfs_hardlink_test.go).
func TestNFSLinks(t *testing.T) {
	_, svc := start(t, lazulitest.Options{InMemory: true, Services: []string{"file"},
		Configure: func(c *config.Config) { c.PremiumAccounts = []string{lazulitest.Account} }})
	nfs := svc.NewShareClient("links")
	if _, err := nfs.Create(ctx, &share.CreateOptions{EnabledProtocols: to.Ptr("NFS")}); err != nil {
		t.Fatal(err)
	}
	f := nfs.NewRootDirectoryClient().NewFileClient("link")
	created, err := f.CreateSymbolicLink(ctx, "/dir/target file", &file.CreateSymbolicLinkOptions{
		FileNFSProperties: &file.NFSProperties{Owner: to.Ptr("345"), Group: to.Ptr("123"), FileMode: to.Ptr("0644")}})
	if err != nil {
		t.Fatal(err)
	}
	if *created.NFSFileType != "SymLink" || *created.Owner != "345" || *created.Group != "123" ||
		*created.FileMode != "0777" || created.ParentID == nil {
		t.Fatalf("created %+v", created)
	}
	got, err := f.GetSymbolicLink(ctx, nil)
	if err != nil || *got.LinkText != "%2Fdir%2Ftarget%20file" {
		t.Fatalf("link text %v, %v", got.LinkText, err)
	}
	if text, err := url.PathUnescape(*got.LinkText); err != nil || text != "/dir/target file" {
		t.Fatalf("link text decodes to %q, %v", text, err)
	}
	props, err := f.GetProperties(ctx, nil)
	if err != nil || *props.NFSFileType != "SymLink" {
		t.Fatalf("properties of a link: %v", err)
	}
	_, err = f.CreateSymbolicLink(ctx, "other", nil)
	wantCode(t, err, http.StatusConflict, "ResourceAlreadyExists")
	regular := nfs.NewRootDirectoryClient().NewFileClient("regular")
	_, err = regular.Create(ctx, 0, nil)
	must(t, err)
	_, err = regular.GetSymbolicLink(ctx, nil)
	wantCode(t, err, http.StatusConflict, "ResourceTypeMismatch")

	smb := svc.NewShareClient("smb")
	_, err = smb.Create(ctx, nil)
	must(t, err)
	_, err = smb.NewRootDirectoryClient().NewFileClient("link").CreateSymbolicLink(ctx, "target", nil)
	wantCode(t, err, http.StatusBadRequest, "InvalidHeaderValue")
}
