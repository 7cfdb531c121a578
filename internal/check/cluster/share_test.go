package cluster_test

import (
	"bytes"
	"net/http"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azfile/service"

	"github.com/lazuli-storage/lazuli/internal/check/lazulitest"
	"github.com/lazuli-storage/lazuli/internal/engine/store"
	"github.com/lazuli-storage/lazuli/internal/rule/auth"
)

// A share soft-deleted through one node is listed and restored through the
// other; deleted again, it is purged by the nodes' reapers once the shared
// clock passes its retention.
func TestShareSoftDeleteAcrossNodes(t *testing.T) {
	c := startCluster(t, "file")
	setFileServiceProperties(t, c.nodes[0].FileURL, `<ShareDeleteRetentionPolicy><Enabled>true</Enabled><Days>1</Days></ShareDeleteRetentionPolicy>`)
	files := make([]*service.Client, len(c.nodes))
	for i, n := range c.nodes {
		var err error
		files[i], err = service.NewClientFromConnectionString(n.ConnectionString,
			&service.ClientOptions{ClientOptions: azcore.ClientOptions{Retry: policy.RetryOptions{MaxRetries: -1}}})
		must(t, err)
	}
	sh := files[0].NewShareClient("kept")
	_, err := sh.Create(c.ctx, nil)
	must(t, err)
	for i := 0; i < 10; i++ {
		_, err := files[i%nodes].NewShareClient("kept").NewRootDirectoryClient().NewFileClient(string(rune('a'+i))).Create(c.ctx, 0, nil)
		must(t, err)
	}
	_, err = sh.Delete(c.ctx, nil)
	must(t, err)
	page, err := files[1].NewListSharesPager(&service.ListSharesOptions{Include: service.ListSharesInclude{Deleted: true}}).NextPage(c.ctx)
	must(t, err)
	if len(page.Shares) != 1 || page.Shares[0].Version == nil {
		t.Fatalf("the other node lists %d shares", len(page.Shares))
	}
	_, err = files[1].RestoreShare(c.ctx, "kept", *page.Shares[0].Version, nil)
	must(t, err)
	if _, err := files[0].NewShareClient("kept").NewRootDirectoryClient().NewFileClient("c").GetProperties(c.ctx, nil); err != nil {
		t.Fatalf("a restored file: %v", err)
	}
	_, err = files[1].DeleteShare(c.ctx, "kept", nil)
	must(t, err)
	c.nodes[0].Fake.Advance(24 * time.Hour)
	st := c.nodes[0].App.Store
	deadline := time.Now().Add(30 * time.Second)
	for left := countRecords(t, st, store.SpaceShare) + countRecords(t, st, store.SpaceFile) + countRecords(t, st, store.SpaceShareExpiry); left > 0; {
		if time.Now().After(deadline) {
			t.Fatalf("%d share, file and purge records left", left)
		}
		time.Sleep(100 * time.Millisecond)
		left = countRecords(t, st, store.SpaceShare) + countRecords(t, st, store.SpaceFile) + countRecords(t, st, store.SpaceShareExpiry)
	}
}

// setFileServiceProperties sets File service properties of the dev
// account.
func setFileServiceProperties(t *testing.T, fileURL, elements string) {
	t.Helper()
	body := []byte(`<?xml version="1.0" encoding="utf-8"?><StorageServiceProperties>` + elements + `</StorageServiceProperties>`)
	req, err := http.NewRequest(http.MethodPut, fileURL+"?restype=service&comp=properties", bytes.NewReader(body))
	must(t, err)
	req.Header.Set("Content-Type", "application/xml")
	req.Header.Set("x-ms-version", "2025-05-05")
	req.Header.Set("x-ms-date", time.Now().UTC().Format(http.TimeFormat))
	auth.SignSharedKey(req, auth.File, lazulitest.Account, lazulitest.KeyBytes())
	resp, err := http.DefaultClient.Do(req)
	must(t, err)
	resp.Body.Close()
	if resp.StatusCode != http.StatusAccepted {
		t.Fatalf("set file service properties: %d", resp.StatusCode)
	}
}
