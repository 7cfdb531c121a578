package dfs_test

import (
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/service"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azdatalake/filesystem"

	"github.com/lazuli-storage/lazuli/internal/check/lazulitest"
)

// softDelete turns blob soft delete on for the account (7 days, as
// azdatalake's test-resources.json sets its Data Lake account).
func (e *env) softDelete() {
	e.t.Helper()
	cred, err := service.NewSharedKeyCredential(lazulitest.Account, lazulitest.Key)
	if err != nil {
		e.t.Fatal(err)
	}
	svc, err := service.NewClientWithSharedKeyCredential(e.in.BlobURL, cred, nil)
	if err != nil {
		e.t.Fatal(err)
	}
	if _, err := svc.SetProperties(e.ctx, &service.SetPropertiesOptions{DeleteRetentionPolicy: &service.RetentionPolicy{
		Enabled: to.Ptr(true), Days: to.Ptr[int32](7)}}); err != nil {
		e.t.Fatal(err)
	}
}

// deletedPaths lists the filesystem's deleted paths through the SDK's
// ListDeletedPaths (List Blobs, showonly=deleted): name to deletion ID.
func (e *env) deletedPaths(fs *filesystem.Client) map[string]string {
	e.t.Helper()
	out := map[string]string{}
	pager := fs.NewListDeletedPathsPager(nil)
	for pager.More() {
		page, err := pager.NextPage(e.ctx)
		if err != nil {
			e.t.Fatal(err)
		}
		for _, it := range page.Segment.PathItems {
			p := it.Properties
			if it.DeletionID == nil || it.Deleted == nil || !*it.Deleted || p.DeletedTime == nil ||
				p.RemainingRetentionDays == nil || *p.RemainingRetentionDays != 7 {
				e.t.Fatalf("deleted path %s listed without its deletion: %+v %+v", *it.Name, it, p)
			}
			out[*it.Name] = *it.DeletionID
		}
	}
	return out
}

// undelete sends Path - Undelete of path in filesystem lake with source.
func (e *env) undelete(path, source string) (*http.Response, []byte) {
	return e.raw(http.MethodPut, "lake/"+path+"?comp=undelete", http.Header{"X-Ms-Undelete-Source": {source}}, nil)
}

// A path deleted under soft delete is listed by ListDeletedPaths with the
// ID of its deletion, and Path - Undelete with that ID brings it back, a
// directory with the paths its delete took.
func TestUndeletePath(t *testing.T) {
	e := start(t)
	e.softDelete()
	fs := e.filesystem("lake")
	if _, err := e.dir("lake", "d").Create(e.ctx, nil); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"d/f", "g"} {
		if _, err := e.file("lake", name).Create(e.ctx, nil); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := e.file("lake", "g").Delete(e.ctx, nil); err != nil {
		t.Fatal(err)
	}
	// Each delete is its own deletion, with its own ID.
	e.in.Fake.Advance(time.Second)
	if _, err := e.dir("lake", "d").Delete(e.ctx, nil); err != nil {
		t.Fatal(err)
	}
	ids := e.deletedPaths(fs)
	if ids["d"] == "" || ids["g"] == "" {
		t.Fatalf("deleted paths: %v", ids)
	}

	resp, body := e.undelete("d", "d?deletionid="+ids["g"])
	wantJSONError(t, resp, body, http.StatusNotFound, "PathNotFound")
	resp, body = e.undelete("d", "elsewhere?deletionid="+ids["d"])
	wantJSONError(t, resp, body, http.StatusBadRequest, "InvalidHeaderValue")

	resp, body = e.undelete("d", "d?deletionid="+ids["d"])
	if resp.StatusCode != http.StatusOK || resp.Header.Get("x-ms-resource-type") != "directory" {
		t.Fatalf("undelete d: %d %s %s", resp.StatusCode, resp.Header, body)
	}
	if _, err := e.file("lake", "d/f").GetProperties(e.ctx, nil); err != nil {
		t.Fatalf("d/f after its directory came back: %v", err)
	}
	resp, body = e.undelete("d", "d?deletionid="+ids["d"])
	wantJSONError(t, resp, body, http.StatusNotFound, "PathNotFound")

	resp, body = e.undelete("g", "/g?deletionid="+ids["g"])
	if resp.StatusCode != http.StatusOK || resp.Header.Get("x-ms-resource-type") != "file" {
		t.Fatalf("undelete g: %d %s %s", resp.StatusCode, resp.Header, body)
	}
	if left := e.deletedPaths(fs); len(left) != 0 {
		t.Fatalf("deleted paths after both came back: %v", left)
	}
}

// A path whose name is taken again is not restored over it (409
// PathAlreadyExists), nor one whose directory is gone (404 ParentNotFound).
func TestUndeletePathTakenOrOrphaned(t *testing.T) {
	e := start(t)
	e.softDelete()
	fs := e.filesystem("lake")
	for _, name := range []string{"g", "d/f"} {
		if _, err := e.file("lake", name).Create(e.ctx, nil); err != nil {
			t.Fatal(err)
		}
		if _, err := e.file("lake", name).Delete(e.ctx, nil); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := e.file("lake", "g").Create(e.ctx, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := e.dir("lake", "d").Delete(e.ctx, nil); err != nil {
		t.Fatal(err)
	}
	ids := e.deletedPaths(fs)
	resp, body := e.undelete("g", "g?deletionid="+ids["g"])
	wantJSONError(t, resp, body, http.StatusConflict, "PathAlreadyExists")
	resp, body = e.undelete("d/f", "d/f?deletionid="+ids["d/f"])
	wantJSONError(t, resp, body, http.StatusNotFound, "ParentNotFound")
}

// ListDirectoryPaths (List Blobs, showonly=directories) lists directories
// only, at every depth.
func TestListDirectoryPaths(t *testing.T) {
	e := start(t)
	fs := e.filesystem("lake")
	for _, name := range []string{"a/b/f", "a/g", "h"} {
		if _, err := e.file("lake", name).Create(e.ctx, nil); err != nil {
			t.Fatal(err)
		}
	}
	var got []string
	pager := fs.NewListDirectoryPathsPager(&filesystem.ListDirectoryPathsOptions{MaxResults: to.Ptr[int32](1)})
	for pager.More() {
		page, err := pager.NextPage(e.ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, it := range page.Segment.PathItems {
			got = append(got, *it.Name)
		}
	}
	if want := []string{"a", "a/b"}; !slices.Equal(got, want) {
		t.Fatalf("directories %v, want %v", got, want)
	}
}
