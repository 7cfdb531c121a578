package file_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azfile/file"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azfile/sas"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azfile/service"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azfile/share"

	"github.com/lazuli-storage/lazuli/internal/check/lazulitest"
	"github.com/lazuli-storage/lazuli/internal/engine/store"
	lazfile "github.com/lazuli-storage/lazuli/internal/service/file"
)

// engines runs a test on the memory engines and on sqlite.
func engines(t *testing.T, run func(t *testing.T, in *lazulitest.Instance, svc *service.Client)) {
	for _, e := range []struct {
		name   string
		memory bool
	}{{"memory", true}, {"sqlite", false}} {
		t.Run(e.name, func(t *testing.T) {
			in, svc := start(t, lazulitest.Options{InMemory: e.memory})
			run(t, in, svc)
		})
	}
}

// enableShareSoftDelete sets the File service properties'
// ShareDeleteRetentionPolicy, which the azfile SDK does not send (Azure
// sets it in the management plane).
func enableShareSoftDelete(t *testing.T, in *lazulitest.Instance, days int) {
	t.Helper()
	body := fmt.Sprintf(`<?xml version="1.0" encoding="utf-8"?><StorageServiceProperties>`+
		`<ShareDeleteRetentionPolicy><Enabled>true</Enabled><Days>%d</Days></ShareDeleteRetentionPolicy></StorageServiceProperties>`, days)
	resp := rawRequest(t, in, http.MethodPut, "", "restype=service&comp=properties", http.Header{"Content-Type": {"application/xml"}}, body)
	if resp.StatusCode != http.StatusAccepted {
		t.Fatalf("set file service properties: %d", resp.StatusCode)
	}
}

// deletedShares lists the deleted versions of shares named name.
func deletedShares(t *testing.T, svc *service.Client, name string) []*service.Share {
	t.Helper()
	var out []*service.Share
	pager := svc.NewListSharesPager(&service.ListSharesOptions{Prefix: &name, Include: service.ListSharesInclude{Deleted: true}})
	for pager.More() {
		page, err := pager.NextPage(ctx)
		must(t, err)
		for _, s := range page.Shares {
			if s.Deleted != nil && *s.Deleted {
				out = append(out, s)
			}
		}
	}
	return out
}

// liveShares is how many live shares and snapshots List Shares shows.
func liveShares(t *testing.T, svc *service.Client, name string) int {
	t.Helper()
	n := 0
	pager := svc.NewListSharesPager(&service.ListSharesOptions{Prefix: &name, Include: service.ListSharesInclude{Snapshots: true}})
	for pager.More() {
		page, err := pager.NextPage(ctx)
		must(t, err)
		n += len(page.Shares)
	}
	return n
}

func readFile(t *testing.T, f *file.Client) string {
	t.Helper()
	resp, err := f.DownloadStream(ctx, nil)
	must(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	must(t, err)
	return string(b)
}

func countKeys(t *testing.T, st store.Store, space store.Space) int {
	t.Helper()
	n := 0
	prefix := store.NewKey(space)
	err := st.View(context.Background(), func(tx store.Tx) error {
		return tx.Scan(prefix, store.PrefixEnd(prefix), store.ScanOptions{}, func(_, _ []byte) bool { n++; return true })
	})
	must(t, err)
	return n
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

var versionForm = regexp.MustCompile(`^[0-9A-F]{16}$`)

// With share soft delete on, Delete Share keeps the share with its
// snapshots as a deleted version: the name is free at once, List Shares
// with include=deleted shows the version, and Undelete Share brings back
// its files (more than one move batch of them), metadata and snapshots;
// the name taken again is 409, an unknown version 404; when the retention
// ends the version is gone and the reaper purges its records.
func TestShareSoftDeleteAndRestore(t *testing.T) {
	engines(t, func(t *testing.T, in *lazulitest.Instance, svc *service.Client) {
		enableShareSoftDelete(t, in, 2)
		sh := svc.NewShareClient("docs")
		_, err := sh.Create(ctx, &share.CreateOptions{Metadata: map[string]*string{"owner": to.Ptr("ann")}})
		must(t, err)
		created, err := sh.GetProperties(ctx, nil)
		must(t, err)
		dir := sh.NewDirectoryClient("d")
		_, err = dir.Create(ctx, nil)
		must(t, err)
		const n = 300
		for i := 0; i < n; i++ {
			_, err := dir.NewFileClient(fmt.Sprintf("f%03d", i)).Create(ctx, 0, nil)
			must(t, err)
		}
		hello := sh.NewRootDirectoryClient().NewFileClient("hello.txt")
		_, err = hello.Create(ctx, 5, nil)
		must(t, err)
		_, err = hello.UploadRange(ctx, 0, streamOf([]byte("hello")), nil)
		must(t, err)
		snap, err := sh.CreateSnapshot(ctx, nil)
		must(t, err)

		_, err = sh.Delete(ctx, nil)
		wantCode(t, err, 409, "ShareHasSnapshots")
		_, err = sh.Delete(ctx, &share.DeleteOptions{DeleteSnapshots: to.Ptr(share.DeleteSnapshotsOptionTypeInclude)})
		must(t, err)
		_, err = sh.GetProperties(ctx, nil)
		wantCode(t, err, 404, "ShareNotFound")
		_, err = hello.GetProperties(ctx, nil)
		wantCode(t, err, 404, "ShareNotFound")
		if got := liveShares(t, svc, "docs"); got != 0 {
			t.Fatalf("a plain listing shows %d shares", got)
		}
		deleted := deletedShares(t, svc, "docs")
		if len(deleted) != 1 || *deleted[0].Name != "docs" || deleted[0].Version == nil || !versionForm.MatchString(*deleted[0].Version) {
			t.Fatalf("deleted listing: %+v", deleted)
		}
		p := deleted[0].Properties
		if p.RemainingRetentionDays == nil || *p.RemainingRetentionDays != 2 || p.DeletedTime == nil ||
			p.LeaseState == nil || string(*p.LeaseState) != "broken" {
			t.Fatalf("deleted share properties: %+v", p)
		}
		first := *deleted[0].Version

		// The name is free; a restore onto it is then refused.
		newer := newShare(t, svc, "docs")
		_, err = svc.RestoreShare(ctx, "docs", first, nil)
		wantCode(t, err, 409, "ShareAlreadyExists")
		in.Fake.Advance(time.Second)
		_, err = newer.Delete(ctx, nil)
		must(t, err)
		if got := len(deletedShares(t, svc, "docs")); got != 2 {
			t.Fatalf("%d deleted versions, want 2", got)
		}
		_, err = svc.RestoreShare(ctx, "docs", "0000000000000000", nil)
		wantCode(t, err, 404, "ShareNotFound")

		restored, err := svc.RestoreShare(ctx, "docs", first, nil)
		must(t, err)
		if restored.ETag == nil || *restored.ETag == *created.ETag {
			t.Fatalf("restored ETag %v, created %v", restored.ETag, created.ETag)
		}
		props, err := sh.GetProperties(ctx, nil)
		must(t, err)
		if meta(props.Metadata, "owner") != "ann" || *props.ETag != *restored.ETag {
			t.Fatalf("restored share: metadata %v, ETag %v", props.Metadata, props.ETag)
		}
		if got := readFile(t, hello); got != "hello" {
			t.Fatalf("restored file reads %q", got)
		}
		entries := 0
		pager := dir.NewListFilesAndDirectoriesPager(nil)
		for pager.More() {
			page, err := pager.NextPage(ctx)
			must(t, err)
			entries += len(page.Segment.Files)
		}
		if entries != n {
			t.Fatalf("restored directory lists %d files, want %d", entries, n)
		}
		atSnap, err := sh.WithSnapshot(*snap.Snapshot)
		must(t, err)
		if got := readFile(t, atSnap.NewRootDirectoryClient().NewFileClient("hello.txt")); got != "hello" {
			t.Fatalf("restored snapshot reads %q", got)
		}
		if got := liveShares(t, svc, "docs"); got != 2 {
			t.Fatalf("%d shares and snapshots listed after the restore, want 2", got)
		}
		remaining := deletedShares(t, svc, "docs")
		if len(remaining) != 1 {
			t.Fatalf("%d deleted versions after the restore, want 1", len(remaining))
		}

		// Retention ends: the other version is gone at once, its records
		// soon.
		in.Fake.Advance(2 * 24 * time.Hour)
		if got := len(deletedShares(t, svc, "docs")); got != 0 {
			t.Fatalf("%d deleted versions after the retention", got)
		}
		// Restored under a free name, the expired version is not found.
		resp := rawRequest(t, in, http.MethodPut, "other", "restype=share&comp=undelete",
			http.Header{"X-Ms-Deleted-Share-Name": {"docs"}, "X-Ms-Deleted-Share-Version": {*remaining[0].Version}}, "")
		if resp.StatusCode != 404 || resp.Header.Get("X-Ms-Error-Code") != "ShareNotFound" {
			t.Fatalf("restoring an expired version: %d %s", resp.StatusCode, resp.Header.Get("X-Ms-Error-Code"))
		}
		waitFor(t, "the purge", func() bool {
			return countKeys(t, in.App.Store, store.SpaceShareExpiry) == 0 && countKeys(t, in.App.Store, store.SpaceShare) == 2
		})
		if got := readFile(t, hello); got != "hello" {
			t.Fatalf("after the purge the restored file reads %q", got)
		}
	})
}

// Create Share on a name whose deletion is still under way is 409
// ShareBeingDeleted; once the deletion ends the name is free, soft delete
// or not.
func TestCreateShareWhileBeingDeleted(t *testing.T) {
	in, svc := start(t, lazulitest.Options{InMemory: true})
	newShare(t, svc, "going")
	must(t, lazfile.MarkShareDeleting(in.App.Store, lazulitest.Account, "going"))
	_, err := svc.CreateShare(ctx, "going", nil)
	wantCode(t, err, 409, "ShareBeingDeleted")
	_, err = svc.NewShareClient("going").GetProperties(ctx, nil)
	wantCode(t, err, 404, "ShareNotFound")
	// Deleting it again finishes the deletion.
	_, err = svc.DeleteShare(ctx, "going", nil)
	must(t, err)
	newShare(t, svc, "going")
}

// Undelete Share without its headers is 400; without soft delete a deleted
// share has no version to restore.
func TestUndeleteShareRefusals(t *testing.T) {
	in, svc := start(t, lazulitest.Options{InMemory: true})
	resp := rawRequest(t, in, http.MethodPut, "docs", "restype=share&comp=undelete", http.Header{"X-Ms-Deleted-Share-Version": {"01D9B4BA75B2F410"}}, "")
	if resp.StatusCode != 400 || resp.Header.Get("X-Ms-Error-Code") != "MissingRequiredHeader" {
		t.Fatalf("without the name: %d %s", resp.StatusCode, resp.Header.Get("X-Ms-Error-Code"))
	}
	resp = rawRequest(t, in, http.MethodPut, "docs", "restype=share&comp=undelete", http.Header{"X-Ms-Deleted-Share-Name": {"docs"}}, "")
	if resp.StatusCode != 400 || resp.Header.Get("X-Ms-Error-Code") != "MissingRequiredHeader" {
		t.Fatalf("without the version: %d %s", resp.StatusCode, resp.Header.Get("X-Ms-Error-Code"))
	}
	sh := newShare(t, svc, "docs")
	_, err := sh.Delete(ctx, nil)
	must(t, err)
	if got := len(deletedShares(t, svc, "docs")); got != 0 {
		t.Fatalf("without soft delete %d deleted versions are listed", got)
	}
	_, err = svc.RestoreShare(ctx, "docs", "01D9B4BA75B2F410", nil)
	wantCode(t, err, 404, "ShareNotFound")
	if got := countKeys(t, in.App.Store, store.SpaceFile) + countKeys(t, in.App.Store, store.SpaceShare); got != 0 {
		t.Fatalf("%d records left after a delete without soft delete", got)
	}
}

// An account SAS with the write permission on containers restores a share,
// as azfile's TestSASServiceClientRestoreShare does against the service;
// one without it is refused.
func TestUndeleteShareWithAccountSAS(t *testing.T) {
	in, svc := start(t, lazulitest.Options{InMemory: true})
	enableShareSoftDelete(t, in, 1)
	sh := newShare(t, svc, "docs")
	_, err := sh.Delete(ctx, nil)
	must(t, err)
	version := *deletedShares(t, svc, "docs")[0].Version
	expiry := time.Now().Add(time.Hour)
	sasClient := func(perms sas.AccountPermissions) *service.Client {
		u, err := svc.GetSASURL(sas.AccountResourceTypes{Service: true, Container: true, Object: true}, perms, expiry, nil)
		must(t, err)
		c, err := service.NewClientWithNoCredential(u, clientOptions())
		must(t, err)
		return c
	}
	_, err = sasClient(sas.AccountPermissions{Read: true, List: true}).RestoreShare(ctx, "docs", version, nil)
	wantCode(t, err, 403, "AuthorizationPermissionMismatch")
	_, err = sasClient(sas.AccountPermissions{Read: true, Write: true, Delete: true, List: true, Create: true}).RestoreShare(ctx, "docs", version, nil)
	must(t, err)
	_, err = sh.GetProperties(ctx, nil)
	must(t, err)
}

// List Shares pages through live shares, snapshots and deleted versions
// alike: one entry a page, each once, in name order with a deleted version
// right after the live share of its name.
func TestListSharesPagesDeletedVersions(t *testing.T) {
	in, svc := start(t, lazulitest.Options{InMemory: true})
	enableShareSoftDelete(t, in, 1)
	for _, name := range []string{"aaa", "bbb"} {
		sh := newShare(t, svc, name)
		_, err := sh.Delete(ctx, nil)
		must(t, err)
		in.Fake.Advance(time.Second)
	}
	newShare(t, svc, "aaa")
	_, err := svc.NewShareClient("aaa").CreateSnapshot(ctx, nil)
	must(t, err)
	var got []string
	pager := svc.NewListSharesPager(&service.ListSharesOptions{MaxResults: to.Ptr[int32](1),
		Include: service.ListSharesInclude{Deleted: true, Snapshots: true}})
	for pager.More() {
		page, err := pager.NextPage(ctx)
		must(t, err)
		if len(page.Shares) > 1 {
			t.Fatalf("a page of %d", len(page.Shares))
		}
		for _, s := range page.Shares {
			entry := *s.Name
			switch {
			case s.Snapshot != nil:
				entry += "@snapshot"
			case s.Deleted != nil && *s.Deleted:
				entry += "!deleted"
			}
			got = append(got, entry)
		}
	}
	if want := "aaa aaa@snapshot aaa!deleted bbb!deleted"; fmt.Sprint(got) != "["+want+"]" {
		t.Fatalf("listed %v, want [%s]", got, want)
	}
}
