package table

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/lazuli-storage/lazuli/internal/frame/accesspolicy"
)

// TestStoredACLReadsAsBefore: table records keep their stored ACL form
// (JSON, instants as text), so records written before the shared
// accesspolicy package read back the same, and what is stored now is the
// same shape.
func TestStoredACLReadsAsBefore(t *testing.T) {
	stored := `[{"i":"bare"},{"i":"full","p":{"s":"2030-01-02T03:04:05.0000000Z","e":"2030-01-03T03:04:05.1234567Z","r":"raud"}},{"i":"empty","p":{}}]`
	var acl []signedIdentifier
	if err := json.Unmarshal([]byte(stored), &acl); err != nil {
		t.Fatal(err)
	}
	got := tablePolicies(acl)
	start := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
	expiry := time.Date(2030, 1, 3, 3, 4, 5, 123456700, time.UTC)
	if len(got) != 3 || got[0].ID != "bare" || got[0].Start != nil || got[0].Permission != "" ||
		got[1].ID != "full" || !got[1].Start.Equal(start) || !got[1].Expiry.Equal(expiry) || got[1].Permission != "raud" ||
		got[2].ID != "empty" || got[2].Start != nil || got[2].Expiry != nil {
		t.Fatalf("read back %+v", got)
	}
	again, err := json.Marshal(tableACL([]accesspolicy.Identifier{got[1]}))
	if err != nil {
		t.Fatal(err)
	}
	if want := `[{"i":"full","p":{"s":"2030-01-02T03:04:05.0000000Z","e":"2030-01-03T03:04:05.1234567Z","r":"raud"}}]`; string(again) != want {
		t.Fatalf("stored as %s, want %s", again, want)
	}
}
