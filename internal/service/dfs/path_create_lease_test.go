package dfs_test

import (
	"net/http"
	"testing"
)

// A Path Create whose proposed lease cannot be acquired writes nothing:
// the create and its lease are one transaction. Here the file is leased
// with another ID, which the create names to be allowed to replace it.
func TestCreateRefusedLeaseLeavesThePath(t *testing.T) {
	e := start(t)
	e.filesystem("lake")
	const held, proposed = "11111111-1111-1111-1111-111111111111", "22222222-2222-2222-2222-222222222222"
	resp, body := e.raw(http.MethodPut, "lake/f?resource=file", nil, nil)
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("create: %d %s", resp.StatusCode, body)
	}
	resp, body = e.raw(http.MethodPut, "lake/f?comp=lease", http.Header{"X-Ms-Lease-Action": {"acquire"},
		"X-Ms-Lease-Duration": {"-1"}, "X-Ms-Proposed-Lease-Id": {held}}, nil)
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("lease: %d %s", resp.StatusCode, body)
	}
	before := resp.Header.Get("ETag")
	resp, body = e.raw(http.MethodPut, "lake/f?resource=file", http.Header{"X-Ms-Lease-Id": {held},
		"X-Ms-Proposed-Lease-Id": {proposed}, "X-Ms-Lease-Duration": {"15"}, "X-Ms-Content-Type": {"text/plain"}}, nil)
	wantJSONError(t, resp, body, http.StatusConflict, "LeaseAlreadyPresent")
	resp, _ = e.raw(http.MethodHead, "lake/f", nil, nil)
	if got := resp.Header.Get("ETag"); got != before || resp.Header.Get("Content-Type") == "text/plain" {
		t.Fatalf("the refused create replaced the file: ETag %s, was %s, Content-Type %s", got, before, resp.Header.Get("Content-Type"))
	}
}
