package blob_test

import (
	"io"
	"net/http"
	"testing"

	"github.com/lazuli-storage/lazuli/internal/check/lazulitest"
	"github.com/lazuli-storage/lazuli/internal/service/blob"
)

// A policy may start at the Unix epoch and expire in 9999, the "never" a
// client commonly sets, and an identifier may carry no policy: Get
// Container ACL answers each as it was set ("Set Container ACL", "Define a
// stored access policy").
func TestContainerACLKeepsEveryInstant(t *testing.T) {
	e := start(t)
	e.container("instants")
	const ids = `<SignedIdentifiers>` +
		`<SignedIdentifier><Id>edges</Id><AccessPolicy><Start>1970-01-01T00:00:00.0000000Z</Start>` +
		`<Expiry>9999-12-31T23:59:59.0000000Z</Expiry><Permission>rl</Permission></AccessPolicy></SignedIdentifier>` +
		`<SignedIdentifier><Id>bare</Id></SignedIdentifier></SignedIdentifiers>`
	set := e.raw(http.MethodPut, "instants?restype=container&comp=acl", nil, []byte(`<?xml version="1.0" encoding="utf-8"?>`+ids))
	if set.StatusCode != http.StatusOK {
		msg, _ := io.ReadAll(set.Body)
		t.Fatalf("Set Container ACL: %s %s", set.Status, msg)
	}
	resp := e.raw(http.MethodGet, "instants?restype=container&comp=acl", nil, nil)
	got, _ := io.ReadAll(resp.Body)
	want := `<?xml version="1.0" encoding="UTF-8"?>` + ids
	if resp.StatusCode != http.StatusOK || string(got) != want {
		t.Fatalf("Get Container ACL: %s\n%s\nwant\n%s", resp.Status, got, want)
	}
}

// A container stored while its policies were the old record field answers
// Get Container ACL as it did (the policies of storedContainerBefore7 in
// blobdata's records_golden_test.go).
func TestContainerStoredBefore7ServesTheSameACL(t *testing.T) {
	e := start(t)
	e.container("older")
	if err := blob.StoreContainerACLBefore7(e.in.App.Store, lazulitest.Account, "older"); err != nil {
		t.Fatal(err)
	}
	const want = `<?xml version="1.0" encoding="UTF-8"?><SignedIdentifiers>` +
		`<SignedIdentifier><Id>p1</Id><AccessPolicy><Start>2024-05-06T08:08:09.0000000Z</Start>` +
		`<Expiry>2024-05-06T07:08:09.0000000Z</Expiry><Permission>rl</Permission></AccessPolicy></SignedIdentifier>` +
		`<SignedIdentifier><Id>p2</Id></SignedIdentifier></SignedIdentifiers>`
	resp := e.raw(http.MethodGet, "older?restype=container&comp=acl", nil, nil)
	got, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK || string(got) != want {
		t.Fatalf("Get Container ACL: %s\n%s\nwant\n%s", resp.Status, got, want)
	}
}
