package table_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/lazuli-storage/lazuli/internal/check/lazulitest"
)

// TestACLWithoutPolicyHasNoAccessPolicy replays the recorded live session of
// azure-sdk-for-js sdk/tables/data-tables/recordings/node/
// access_policy_operations/recording_should_send_a_null_ap.js ("should send
// a null ap"): identifiers set with an empty <AccessPolicy/> come back from
// Get Table ACL as a bare <SignedIdentifier><Id>..</Id></SignedIdentifier>,
// while one with only a Permission keeps an AccessPolicy holding just that.
func TestACLWithoutPolicyHasNoAccessPolicy(t *testing.T) {
	e := start(t, lazulitest.Options{InMemory: true})
	e.table(t, "AccessPolicy")
	const set = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><SignedIdentifiers>` +
		`<SignedIdentifier><Id>null</Id><AccessPolicy/></SignedIdentifier>` +
		`<SignedIdentifier><Id>empty</Id><AccessPolicy/></SignedIdentifier>` +
		`<SignedIdentifier><Id>partial</Id><AccessPolicy><Permission>r</Permission></AccessPolicy></SignedIdentifier>` +
		`<SignedIdentifier><Id>full</Id><AccessPolicy><Start>2021-07-08T09:10:09.0000000Z</Start>` +
		`<Expiry>2021-07-08T09:10:09.0000000Z</Expiry><Permission>r</Permission></AccessPolicy></SignedIdentifier>` +
		`</SignedIdentifiers>`
	resp, body := e.raw(t, "PUT", "/AccessPolicy?comp=acl", http.Header{"Content-Type": {"application/xml"}}, set)
	if resp.StatusCode != http.StatusNoContent {
		t.Fatalf("set ACL: %d %s", resp.StatusCode, body)
	}
	resp, body = e.raw(t, "GET", "/AccessPolicy?comp=acl", nil, "")
	const want = `<SignedIdentifiers><SignedIdentifier><Id>null</Id></SignedIdentifier>` +
		`<SignedIdentifier><Id>empty</Id></SignedIdentifier>` +
		`<SignedIdentifier><Id>partial</Id><AccessPolicy><Permission>r</Permission></AccessPolicy></SignedIdentifier>` +
		`<SignedIdentifier><Id>full</Id><AccessPolicy><Start>2021-07-08T09:10:09.0000000Z</Start>` +
		`<Expiry>2021-07-08T09:10:09.0000000Z</Expiry><Permission>r</Permission></AccessPolicy></SignedIdentifier>` +
		`</SignedIdentifiers>`
	if resp.StatusCode != http.StatusOK || !strings.HasSuffix(body, want) {
		t.Fatalf("get ACL: %d %s\nwant it to end %s", resp.StatusCode, body, want)
	}
}
