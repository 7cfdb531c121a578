package blob_test

import (
	"fmt"
	"io"
	"net/http"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blockblob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/container"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/lease"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/service"

	"github.com/lazuli-storage/lazuli/internal/engine/store"
)

// enableContainerSoftDelete sets the ContainerDeleteRetentionPolicy
// extension of the Blob service properties.
func (e *env) enableContainerSoftDelete(days int) {
	e.t.Helper()
	body := fmt.Sprintf(`<?xml version="1.0" encoding="utf-8"?><StorageServiceProperties>`+
		`<ContainerDeleteRetentionPolicy><Enabled>true</Enabled><Days>%d</Days></ContainerDeleteRetentionPolicy></StorageServiceProperties>`, days)
	resp := e.raw(http.MethodPut, "?restype=service&comp=properties", http.Header{"Content-Type": {"application/xml"}}, []byte(body))
	if resp.StatusCode != http.StatusAccepted {
		e.t.Fatalf("set service properties: %d", resp.StatusCode)
	}
	resp = e.raw(http.MethodGet, "?restype=service&comp=properties", nil, nil)
	got := string(must(io.ReadAll(resp.Body)).on(e.t))
	if !strings.Contains(got, "<ContainerDeleteRetentionPolicy><Enabled>true</Enabled><Days>") {
		e.t.Fatalf("service properties: %s", got)
	}
}

// deletedContainers lists the deleted versions of containers named name.
func (e *env) deletedContainers(name string) []*service.ContainerItem {
	e.t.Helper()
	var out []*service.ContainerItem
	pager := e.svc.NewListContainersPager(&service.ListContainersOptions{Prefix: &name, Include: service.ListContainersInclude{Deleted: true}})
	for pager.More() {
		for _, it := range must(pager.NextPage(e.ctx)).on(e.t).ContainerItems {
			if it.Deleted != nil && *it.Deleted {
				out = append(out, it)
			}
		}
	}
	return out
}

// With container soft delete on, a deleted container's name is free at
// once, the deleted version is listed with include=deleted, and Restore
// Container brings back its blobs (more than one move batch of them),
// their uncommitted blocks and tags, and its metadata; when the
// retention ends the version is gone and its records are purged.
func TestContainerSoftDeleteAndRestore(t *testing.T) {
	engines(t, func(t *testing.T, e *env) {
		e.enableContainerSoftDelete(2)
		c := e.svc.NewContainerClient("docs")
		must(c.Create(e.ctx, &container.CreateOptions{Metadata: map[string]*string{"owner": to.Ptr("ann")}})).on(t)
		const n = 300
		for i := 0; i < n; i++ {
			e.upload(c, fmt.Sprintf("f%03d", i), []byte("x"))
		}
		tagged := c.NewBlockBlobClient("tagged")
		must(tagged.Upload(e.ctx, nopCloser([]byte("t")), &blockblob.UploadOptions{Tags: map[string]string{"k": "v"}})).on(t)
		must(c.NewBlockBlobClient("staged").StageBlock(e.ctx, "YQ==", nopCloser([]byte("s")), nil)).on(t)

		must(c.Delete(e.ctx, nil)).on(t)
		_, err := c.GetProperties(e.ctx, nil)
		wantCode(t, err, 404, "ContainerNotFound")
		if got := len(must(e.svc.FilterBlobs(e.ctx, `"k"='v'`, nil)).on(t).Blobs); got != 0 {
			t.Fatalf("a deleted container's blob is found by tags")
		}
		deleted := e.deletedContainers("docs")
		if len(deleted) != 1 || *deleted[0].Name != "docs" || deleted[0].Version == nil ||
			*deleted[0].Properties.RemainingRetentionDays != 2 || deleted[0].Properties.DeletedTime == nil {
			t.Fatalf("deleted listing: %+v", deleted)
		}
		first := *deleted[0].Version
		if got := listNames(t, e, nil); strings.Contains(got, "docs") {
			t.Fatalf("a plain listing shows the deleted container: %q", got)
		}

		// The name is free; a restore onto it is then refused.
		e.container("docs")
		e.upload(c, "newer", []byte("n"))
		_, err = e.svc.RestoreContainer(e.ctx, "docs", first, nil)
		wantCode(t, err, 409, "ContainerAlreadyExists")
		e.in.Fake.Advance(time.Second)
		must(c.Delete(e.ctx, nil)).on(t)
		if got := len(e.deletedContainers("docs")); got != 2 {
			t.Fatalf("%d deleted versions, want 2", got)
		}
		_, err = e.svc.RestoreContainer(e.ctx, "docs", "0000000000000000", nil)
		wantCode(t, err, 404, "ContainerNotFound")

		must(e.svc.RestoreContainer(e.ctx, "docs", first, nil)).on(t)
		props := must(c.GetProperties(e.ctx, nil)).on(t)
		if v := props.Metadata["Owner"]; v == nil || *v != "ann" {
			t.Fatalf("restored metadata %v", props.Metadata)
		}
		names := e.listed(c, container.ListBlobsInclude{UncommittedBlobs: true}, 0)
		if got := len(strings.Fields(names)); got != n+2 || !strings.Contains(names, "staged") || strings.Contains(names, "newer") {
			t.Fatalf("restored listing has %d names: %.80s...", got, names)
		}
		if got := must(e.svc.FilterBlobs(e.ctx, `"k"='v'`, nil)).on(t).Blobs; len(got) != 1 || *got[0].ContainerName != "docs" {
			t.Fatalf("tags after restore: %v", got)
		}
		if got := len(e.deletedContainers("docs")); got != 1 {
			t.Fatalf("%d deleted versions after the restore, want 1", got)
		}

		// Retention ends: the other version is gone at once, its records
		// soon.
		e.in.Fake.Advance(2 * 24 * time.Hour)
		if got := len(e.deletedContainers("docs")); got != 0 {
			t.Fatalf("%d deleted versions after the retention", got)
		}
		// Left: docs and the account's $logs.
		waitFor(t, func() bool { return countKeys(t, e.in.App.Store, store.SpaceContainer) == 2 })
		// The restored container's own blobs stay.
		if got := len(strings.Fields(e.listed(c, container.ListBlobsInclude{UncommittedBlobs: true}, 0))); got != n+2 {
			t.Fatalf("%d blobs after the purge, want %d", got, n+2)
		}
	})
}

func listNames(t *testing.T, e *env, include *service.ListContainersInclude) string {
	t.Helper()
	opts := &service.ListContainersOptions{}
	if include != nil {
		opts.Include = *include
	}
	var names []string
	pager := e.svc.NewListContainersPager(opts)
	for pager.More() {
		for _, it := range must(pager.NextPage(e.ctx)).on(t).ContainerItems {
			names = append(names, *it.Name)
		}
	}
	sort.Strings(names)
	return strings.Join(names, " ")
}

// Rename Container moves the blobs, tags, metadata and lease to the new
// name; a leased source needs x-ms-source-lease-id.
func TestRenameContainer(t *testing.T) {
	engines(t, func(t *testing.T, e *env) {
		src := e.svc.NewContainerClient("old")
		must(src.Create(e.ctx, &container.CreateOptions{Metadata: map[string]*string{"k": to.Ptr("v")}})).on(t)
		for i := 0; i < 260; i++ {
			e.upload(src, fmt.Sprintf("b%03d", i), []byte("x"))
		}
		must(src.NewBlockBlobClient("tagged").Upload(e.ctx, nopCloser([]byte("t")), &blockblob.UploadOptions{Tags: map[string]string{"k": "v"}})).on(t)
		lc := must(lease.NewContainerClient(src, nil)).on(t)
		must(lc.AcquireLease(e.ctx, -1, nil)).on(t)
		e.container("taken")

		rename := func(dest string, h http.Header) *http.Response {
			return e.raw(http.MethodPut, dest+"?restype=container&comp=rename", h, nil)
		}
		for _, tc := range []struct {
			dest   string
			h      http.Header
			status int
			code   string
		}{
			{"new", http.Header{}, 400, "MissingRequiredHeader"},
			{"new", http.Header{"X-Ms-Source-Container-Name": {"missing"}}, 404, "ContainerNotFound"},
			{"taken", http.Header{"X-Ms-Source-Container-Name": {"old"}}, 409, "ContainerAlreadyExists"},
			{"new", http.Header{"X-Ms-Source-Container-Name": {"old"}}, 412, "LeaseIdMissing"},
		} {
			resp := rename(tc.dest, tc.h)
			if resp.StatusCode != tc.status || resp.Header.Get("x-ms-error-code") != tc.code {
				t.Fatalf("%s %v: %d %s, want %d %s", tc.dest, tc.h, resp.StatusCode, resp.Header.Get("x-ms-error-code"), tc.status, tc.code)
			}
		}
		resp := rename("new", http.Header{"X-Ms-Source-Container-Name": {"old"}, "X-Ms-Source-Lease-Id": {*lc.LeaseID()}})
		if resp.StatusCode != 200 {
			t.Fatalf("rename: %d %s", resp.StatusCode, resp.Header.Get("x-ms-error-code"))
		}
		_, err := src.GetProperties(e.ctx, nil)
		wantCode(t, err, 404, "ContainerNotFound")
		dst := e.svc.NewContainerClient("new")
		props := must(dst.GetProperties(e.ctx, nil)).on(t)
		if v := props.Metadata["K"]; v == nil || *v != "v" || *props.LeaseState != "leased" {
			t.Fatalf("renamed container: metadata %v lease %v", props.Metadata, *props.LeaseState)
		}
		if got := len(strings.Fields(e.listed(dst, container.ListBlobsInclude{}, 0))); got != 261 {
			t.Fatalf("%d blobs after the rename", got)
		}
		if got := must(e.svc.FilterBlobs(e.ctx, `"k"='v'`, nil)).on(t).Blobs; len(got) != 1 || *got[0].ContainerName != "new" {
			t.Fatalf("tags after rename: %v", got)
		}
		// The old name is free again.
		e.container("old")
	})
}
