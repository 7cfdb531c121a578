package dfs_test

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"testing"
)

// TestFilesystemOverDFS drives the filesystem operations as the dfs
// endpoint takes them (?resource=filesystem), which the SDKs other than
// Go's send: the properties are the container's metadata, and errors are
// JSON with the dfs codes.
func TestFilesystemOverDFS(t *testing.T) {
	e := start(t)
	props := http.Header{"X-Ms-Properties": {"owner=" + base64.StdEncoding.EncodeToString([]byte("ann"))}}
	resp, body := e.raw("PUT", "lake?resource=filesystem", props, nil)
	if resp.StatusCode != http.StatusCreated || resp.Header.Get("ETag") == "" || resp.Header.Get("x-ms-namespace-enabled") != "true" {
		t.Fatalf("create: %d %v %s", resp.StatusCode, resp.Header, body)
	}
	resp, body = e.raw("PUT", "lake?resource=filesystem", nil, nil)
	wantJSONError(t, resp, body, http.StatusConflict, "FilesystemAlreadyExists")

	resp, _ = e.raw("HEAD", "lake?resource=filesystem", nil, nil)
	if resp.StatusCode != http.StatusOK || resp.Header.Get("x-ms-properties") != "owner=YW5u" {
		t.Fatalf("properties: %d %v", resp.StatusCode, resp.Header)
	}
	set := http.Header{"X-Ms-Properties": {"tier=" + base64.StdEncoding.EncodeToString([]byte("gold"))}}
	if resp, body = e.raw("PATCH", "lake?resource=filesystem", set, nil); resp.StatusCode != http.StatusOK {
		t.Fatalf("set properties: %d %s", resp.StatusCode, body)
	}
	if resp, _ = e.raw("HEAD", "lake?resource=filesystem", nil, nil); resp.Header.Get("x-ms-properties") != "tier=Z29sZA==" {
		t.Fatalf("properties after set: %v", resp.Header)
	}
	// Property names keep their case, as metadata names do on Azure.
	mixed := http.Header{"X-Ms-Properties": {"Tier=" + base64.StdEncoding.EncodeToString([]byte("gold")) + ",costCentre=MQ=="}}
	if resp, body = e.raw("PATCH", "lake?resource=filesystem", mixed, nil); resp.StatusCode != http.StatusOK {
		t.Fatalf("set mixed-case properties: %d %s", resp.StatusCode, body)
	}
	if resp, _ = e.raw("HEAD", "lake?resource=filesystem", nil, nil); resp.Header.Get("x-ms-properties") != "Tier=Z29sZA==,costCentre=MQ==" {
		t.Fatalf("mixed-case properties came back as %q", resp.Header.Get("x-ms-properties"))
	}
	resp, body = e.raw("PATCH", "lake?resource=filesystem", http.Header{"X-Ms-Properties": {"tier"}}, nil)
	wantJSONError(t, resp, body, http.StatusBadRequest, "InvalidHeaderValue")

	for _, name := range []string{"lake2", "other"} {
		if resp, body = e.raw("PUT", name+"?resource=filesystem", nil, nil); resp.StatusCode != http.StatusCreated {
			t.Fatalf("create %s: %d %s", name, resp.StatusCode, body)
		}
	}
	names, next := e.listFilesystems("?resource=account&prefix=lake&maxResults=1")
	if len(names) != 1 || names[0] != "lake" || next == "" {
		t.Fatalf("first page %v, continuation %q", names, next)
	}
	names, next = e.listFilesystems("?resource=account&prefix=lake&maxResults=1&continuation=" + next)
	if len(names) != 1 || names[0] != "lake2" || next != "" {
		t.Fatalf("second page %v, continuation %q", names, next)
	}

	if resp, body = e.raw("DELETE", "lake?resource=filesystem", nil, nil); resp.StatusCode != http.StatusAccepted {
		t.Fatalf("delete: %d %s", resp.StatusCode, body)
	}
	resp, body = e.raw("DELETE", "nothere?resource=filesystem", nil, nil)
	wantJSONError(t, resp, body, http.StatusNotFound, "FilesystemNotFound")
}

// listFilesystems sends List Filesystems with query and returns the names
// and the continuation token.
func (e *env) listFilesystems(query string) ([]string, string) {
	e.t.Helper()
	resp, body := e.raw("GET", query, nil, nil)
	var doc struct {
		Filesystems []struct{ Name, ETag, LastModified string } `json:"filesystems"`
	}
	if err := json.Unmarshal(body, &doc); resp.StatusCode != http.StatusOK || err != nil {
		e.t.Fatalf("list: %d %s %v", resp.StatusCode, body, err)
	}
	var names []string
	for _, f := range doc.Filesystems {
		if f.ETag == "" || f.LastModified == "" {
			e.t.Fatalf("entry %+v", f)
		}
		names = append(names, f.Name)
	}
	return names, resp.Header.Get("x-ms-continuation")
}
