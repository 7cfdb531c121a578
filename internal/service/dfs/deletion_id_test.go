package dfs_test

import (
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/lazuli-storage/lazuli/internal/check/lazulitest"
	"github.com/lazuli-storage/lazuli/internal/rule/auth"
	"github.com/lazuli-storage/lazuli/internal/service/dfs"
)

// deleteAt sends Path - Delete of path, recursive, from continuation
// ("" to start) at x-ms-version version.
func (e *env) deleteAt(path, continuation, version string) *http.Response {
	e.t.Helper()
	query := "?recursive=true"
	if continuation != "" {
		query += "&continuation=" + url.QueryEscape(continuation)
	}
	resp, body := e.send(http.MethodDelete, path+query, nil, nil, func(req *http.Request) {
		req.Header.Set("x-ms-version", version)
		auth.SignSharedKey(req, auth.Blob, lazulitest.Account, lazulitest.KeyBytes())
	})
	if resp.StatusCode != http.StatusOK {
		e.t.Fatalf("delete %s: %d %s", path, resp.StatusCode, body)
	}
	return resp
}

// Path - Delete answers x-ms-deletion-id, the ID ListDeletedPaths lists
// and Path - Undelete takes, on an account with a hierarchical namespace
// and soft delete from version 2020-02-10 (DataLakeStorage.json,
// Path_Delete: "Returned only for hierarchical namespace space enabled
// accounts when soft delete is enabled"); the SDK reads it as the
// delete's DeletionID.
func TestDeleteAnswersDeletionID(t *testing.T) {
	e := start(t)
	e.softDelete()
	fs := e.filesystem("lake")
	e.write("lake", "d/x", "x")
	e.write("lake", "f", "y")

	got, err := e.file("lake", "f").Delete(e.ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	e.in.Fake.Advance(time.Second) // each delete its own ID
	dirID := e.deleteAt("lake/d", "", "2020-02-10").Header.Get("x-ms-deletion-id")
	listed := e.deletedPaths(fs)
	if got.DeletionID == nil || *got.DeletionID != listed["f"] || dirID == "" || dirID != listed["d"] {
		t.Fatalf("deletion IDs %v and %q, listed %v", got.DeletionID, dirID, listed)
	}
	if resp, body := e.undelete("d", "d?deletionid="+dirID); resp.StatusCode != http.StatusOK {
		t.Fatalf("undelete d with its delete's ID: %d %s", resp.StatusCode, body)
	}
	if e.content("lake", "d/x") != "x" {
		t.Fatal("d/x did not come back with d")
	}

	// Before 2020-02-10 the answer has no ID.
	e.write("lake", "g", "z")
	if id := e.deleteAt("lake/g", "", "2019-12-12").Header.Get("x-ms-deletion-id"); id != "" {
		t.Fatalf("x-ms-deletion-id %q at 2019-12-12", id)
	}
}

// Without soft delete nothing is kept to restore and no ID is answered
// (a flat account's dfs endpoint serves no delete under soft delete:
// 409 EndpointUnsupportedAccountFeatures, flat.go).
func TestDeleteWithoutDeletionID(t *testing.T) {
	e := start(t)
	e.filesystem("lake")
	e.write("lake", "f", "y")
	if id := e.deleteAt("lake/f", "", "2025-01-05").Header.Get("x-ms-deletion-id"); id != "" {
		t.Fatalf("x-ms-deletion-id %q", id)
	}
}

// A directory deleted over several requests is named by the request that
// deletes the directory itself, the last: the others answer a
// continuation and no ID.
func TestPagedDeleteAnswersDeletionIDLast(t *testing.T) {
	defer dfs.SetDeletePage(2)()
	e := start(t)
	e.softDelete()
	fs := e.filesystem("lake")
	for _, name := range []string{"d/a", "d/b", "d/c"} {
		e.write("lake", name, "x")
	}
	var ids []string
	for continuation := ""; ; {
		resp := e.deleteAt("lake/d", continuation, "2025-01-05")
		ids = append(ids, resp.Header.Get("x-ms-deletion-id"))
		if continuation = resp.Header.Get("x-ms-continuation"); continuation == "" {
			break
		}
	}
	if len(ids) < 2 || ids[0] != "" || ids[len(ids)-1] != e.deletedPaths(fs)["d"] {
		t.Fatalf("deletion IDs by page %q", ids)
	}
}

// A directory deleted over several requests, with time passing between
// them, is one deletion: every path it took is listed with the directory's
// deletion ID, and Path - Undelete of the directory with that ID brings
// back what each request took, not only the last one's.
func TestPagedDeleteIsOneDeletion(t *testing.T) {
	defer dfs.SetDeletePage(2)()
	e := start(t)
	e.softDelete()
	fs := e.filesystem("lake")
	names := []string{"d/a", "d/b", "d/c", "d/e/f"}
	for _, name := range names {
		e.write("lake", name, "x")
	}
	requests := 0
	for continuation := ""; ; requests++ {
		resp := e.deleteAt("lake/d", continuation, "2025-01-05")
		if continuation = resp.Header.Get("x-ms-continuation"); continuation == "" {
			break
		}
		e.in.Fake.Advance(time.Second)
	}
	if requests < 2 {
		t.Fatalf("the delete took %d requests; the test needs it paged", requests+1)
	}
	ids := e.deletedPaths(fs)
	for _, name := range append(names, "d") {
		if ids[name] != ids["d"] {
			t.Errorf("%s deleted as %q, the directory as %q", name, ids[name], ids["d"])
		}
	}
	resp, body := e.undelete("d", "d?deletionid="+ids["d"])
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("undelete d: %d %s", resp.StatusCode, body)
	}
	for _, name := range names {
		if _, err := e.file("lake", name).GetProperties(e.ctx, nil); err != nil {
			t.Errorf("%s after its directory came back: %v", name, err)
		}
	}
}
