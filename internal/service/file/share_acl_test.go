package file_test

import (
	"io"
	"net/http"
	"testing"

	"github.com/lazuli-storage/lazuli/internal/check/lazulitest"
	"github.com/lazuli-storage/lazuli/internal/service/file"
)

// A policy may start at the Unix epoch and expire in 9999, the "never" a
// client commonly sets, and an identifier may carry no policy: Get Share
// ACL answers each as it was set ("Set Share ACL", "Define a stored access
// policy").
func TestShareACLKeepsEveryInstant(t *testing.T) {
	in, svc := start(t, lazulitest.Options{InMemory: true})
	newShare(t, svc, "instants")
	const ids = `<SignedIdentifiers>` +
		`<SignedIdentifier><Id>edges</Id><AccessPolicy><Start>1970-01-01T00:00:00.0000000Z</Start>` +
		`<Expiry>9999-12-31T23:59:59.0000000Z</Expiry><Permission>rl</Permission></AccessPolicy></SignedIdentifier>` +
		`<SignedIdentifier><Id>bare</Id></SignedIdentifier></SignedIdentifiers>`
	if resp := rawRequest(t, in, http.MethodPut, "instants", "restype=share&comp=acl", nil, `<?xml version="1.0" encoding="utf-8"?>`+ids); resp.StatusCode != http.StatusOK {
		msg, _ := io.ReadAll(resp.Body)
		t.Fatalf("Set Share ACL: %s %s", resp.Status, msg)
	}
	resp := rawRequest(t, in, http.MethodGet, "instants", "restype=share&comp=acl", nil, "")
	got, _ := io.ReadAll(resp.Body)
	want := "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n" + ids
	if resp.StatusCode != http.StatusOK || string(got) != want {
		t.Fatalf("Get Share ACL: %s\n%s\nwant\n%s", resp.Status, got, want)
	}
}

// A share stored while its policies were field stagACL answers Get Share
// ACL as it did (the policies of storedShareBefore9 in records_golden_test.go).
func TestShareStoredBefore9ServesTheSameACL(t *testing.T) {
	in, svc := start(t, lazulitest.Options{InMemory: true})
	newShare(t, svc, "older")
	if err := file.StoreShareRecordBefore9(in.App.Store, lazulitest.Account, "older"); err != nil {
		t.Fatal(err)
	}
	const want = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<SignedIdentifiers>" +
		`<SignedIdentifier><Id>p</Id><AccessPolicy><Start>2024-05-06T07:08:09.0000000Z</Start>` +
		`<Expiry>2024-05-06T08:08:09.0000000Z</Expiry><Permission>rl</Permission></AccessPolicy></SignedIdentifier>` +
		`<SignedIdentifier><Id>q</Id></SignedIdentifier></SignedIdentifiers>`
	resp := rawRequest(t, in, http.MethodGet, "older", "restype=share&comp=acl", nil, "")
	got, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK || string(got) != want {
		t.Fatalf("Get Share ACL: %s\n%s\nwant\n%s", resp.Status, got, want)
	}
}
