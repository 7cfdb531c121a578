package dfs_test

import (
	"io"
	"net/http"
	"testing"
	"time"
)

// The ACLs that allow a write are the ones it commits over: a Put Blob
// whose caller loses write on the directory while its body is still
// arriving, after the request's access check passed, is refused with 403
// AuthorizationPermissionMismatch and leaves nothing, as the check is
// asked again in the write's own transaction (store.WithCheck).
func TestACLChangedDuringAWriteRefusesIt(t *testing.T) {
	e := startACL(t, true, ownerOID)
	e.tree()
	e.grantUser()

	body, feed := io.Pipe()
	req, err := http.NewRequest(http.MethodPut, e.url+"acl/d/late", body)
	if err != nil {
		t.Fatal(err)
	}
	req.ContentLength = 6
	req.Header.Set("X-Ms-Blob-Type", "BlockBlob")
	req.Header.Set("x-ms-version", "2025-01-05")
	req.Header.Set("x-ms-date", time.Now().UTC().Format(http.TimeFormat))
	req.Header.Set("Authorization", "Bearer "+e.token(userOID))
	// With 100-continue the client sends the body only once the handler
	// reads it, which it does after the request's access check: the
	// first bytes leave the pipe after the check passed.
	req.Header.Set("Expect", "100-continue")
	transport := e.client.Transport.(*http.Transport).Clone()
	transport.ExpectContinueTimeout = time.Minute
	answered := make(chan *http.Response, 1)
	go func() {
		resp, err := (&http.Client{Transport: transport}).Do(req)
		if err != nil {
			t.Error(err)
			close(answered)
			return
		}
		resp.Body.Close()
		answered <- resp
	}()
	if _, err := feed.Write([]byte("abc")); err != nil {
		t.Fatal(err)
	}
	// userOID keeps execute on the root but loses every right on d.
	e.putACL("d", "user::rwx,group::r-x,other::---")
	if _, err := feed.Write([]byte("def")); err != nil {
		t.Fatal(err)
	}
	feed.Close()
	resp := <-answered
	if resp == nil {
		return
	}
	if resp.StatusCode != http.StatusForbidden || resp.Header.Get("x-ms-error-code") != "AuthorizationPermissionMismatch" {
		t.Fatalf("the write after its permission went: %d %s, want 403 AuthorizationPermissionMismatch",
			resp.StatusCode, resp.Header.Get("x-ms-error-code"))
	}
	if status, _ := e.send("", http.MethodHead, "acl/d/late", nil, ""); status != http.StatusNotFound {
		t.Fatalf("the refused write left acl/d/late: HEAD %d", status)
	}
}
