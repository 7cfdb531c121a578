package dfs_test

import (
	"context"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/storage/azdatalake/filesystem"

	"github.com/lazuli-storage/lazuli/internal/check/lazulitest"
	"github.com/lazuli-storage/lazuli/internal/run/config"
)

// TestDFSPort: --dfsPort serves the Blob endpoint's handler on a port of
// its own, where the SDK given that URL creates and lists paths.
func TestDFSPort(t *testing.T) {
	in := lazulitest.Start(t, lazulitest.Options{InMemory: true, Services: []string{"blob"}, Configure: func(c *config.Config) {
		c.HNSAccounts = []string{lazulitest.Account}
		c.DFSPort = 0
	}})
	e := &env{t: t, in: in, ctx: context.Background()}
	url := in.App.Endpoints["dfs"]
	if url == "" || url == in.BlobURL {
		t.Fatalf("dfs endpoint %q (blob %q)", url, in.BlobURL)
	}
	fs, err := filesystem.NewClientWithSharedKeyCredential(url+"/lake", e.cred(), &filesystem.ClientOptions{ClientOptions: options()})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := fs.Create(e.ctx, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := fs.NewDirectoryClient("d").Create(e.ctx, nil); err != nil {
		t.Fatal(err)
	}
	page, err := fs.NewListPathsPager(true, nil).NextPage(e.ctx)
	if err != nil || len(page.Paths) != 1 || *page.Paths[0].Name != "d" {
		t.Fatalf("listing on the dfs port: %+v, %v", page.Paths, err)
	}
}
