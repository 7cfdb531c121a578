package auth

import (
	"errors"
	"slices"
	"testing"

	"github.com/lazuli-storage/lazuli/internal/rule/azerr"
)

// The role decision: who the ACLs check a caller as. A token of a role
// holder, Shared Key and service SAS are never checked; a user delegation
// SAS is checked as its key owner when that has no role, and as its
// suoid, not its saoid.
func TestACLSubjects(t *testing.T) {
	owners, err := ParseDataOwners("holder")
	if err != nil {
		t.Fatal(err)
	}
	delegation := func(keyOwner, saoid, suoid string) *Identity {
		return &Identity{Kind: DelegationSAS, SAS: &SAS{Delegation: &Delegation{Key: DelegationKey{ObjectID: keyOwner},
			AuthorizedObjectID: saoid, UnauthorizedObjectID: suoid}}}
	}
	for _, c := range []struct {
		name string
		id   *Identity
		want []string // the subjects' object ids
	}{
		{"shared key", &Identity{Kind: SharedKey}, nil},
		{"service SAS", &Identity{Kind: ServiceSAS, SAS: &SAS{}}, nil},
		{"role holder's token", &Identity{Kind: Bearer, Principal: &Principal{ObjectID: "HOLDER"}}, nil},
		{"other token", &Identity{Kind: Bearer, Principal: &Principal{ObjectID: "u1"}}, []string{"u1"}},
		{"holder's SAS", delegation("holder", "", ""), nil},
		{"holder's SAS for saoid", delegation("holder", "u2", ""), nil},
		{"holder's SAS for suoid", delegation("holder", "", "u3"), []string{"u3"}},
		{"other's SAS for suoid", delegation("u1", "", "u3"), []string{"u1", "u3"}},
	} {
		var got []string
		for _, p := range owners.aclSubjects(c.id) {
			got = append(got, p.ObjectID)
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
		if got := (DataOwners{}).aclSubjects(c.id); c.id.Kind == Bearer && len(got) > 0 {
			t.Errorf("%s without --dataOwners: %v", c.name, got)
		}
	}
}

// A token the ACLs must allow is refused until they granted it.
func TestAuthorizeWaitsForTheACLs(t *testing.T) {
	id := &Identity{Kind: Bearer, Principal: &Principal{ObjectID: "u1"}, aclSubjects: []Principal{{ObjectID: "u1"}}}
	a := Access{Service: Blob, ResourceType: ResourceObject, Perm: "r"}
	var e *azerr.Error
	if err := id.Authorize(a); !errors.As(err, &e) || e.Code != azerr.AuthorizationPermissionMismatch {
		t.Fatalf("before the ACLs: %v", err)
	}
	id.GrantByACL()
	if err := id.Authorize(a); err != nil {
		t.Fatalf("after the ACLs: %v", err)
	}
}
