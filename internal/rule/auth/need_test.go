package auth

import (
	"testing"
	"time"

	"github.com/lazuli-storage/lazuli/internal/rule/azerr"
)

// TestAllow: what a route row's Need grants each kind of caller.
func TestAllow(t *testing.T) {
	now := time.Unix(1.7e9, 0)
	account := func(sp, srt string) *Identity {
		return &Identity{Kind: AccountSAS, service: Blob, at: now,
			SAS: &SAS{Services: "b", ResourceTypes: srt, Permissions: sp, Expiry: now.Add(time.Hour)}}
	}
	service := func(sp string) *Identity {
		return &Identity{Kind: ServiceSAS, service: Table, at: now,
			SAS: &SAS{Resource: "", TableName: "t", SignedContainer: "t", Permissions: sp, Expiry: now.Add(time.Hour)}}
	}
	expired := account("rwdlacup", "sco")
	expired.SAS.Expiry = now.Add(-time.Minute)
	anonymous := &Identity{Kind: Anonymous, service: Blob, at: now}
	blobTarget := func(level PublicLevel) Target {
		return Target{Service: Blob, Container: "c", Object: "b", Public: func() (PublicLevel, error) { return level, nil }}
	}
	tableTarget := Target{Service: Table, Container: "t"}
	cases := []struct {
		name    string
		id      *Identity
		need    *Need
		target  Target
		replace bool
		want    string // error code, "" for granted
	}{
		{"no declaration", &Identity{Kind: SharedKey}, nil, Target{}, false, azerr.InternalError},
		{"shared key", &Identity{Kind: SharedKey}, OnObject("w"), blobTarget(PublicNone), false, ""},
		{"one of the letters", account("c", "o"), OnObject("cw"), blobTarget(PublicNone), false, ""},
		{"none of the letters", account("r", "o"), OnObject("cw"), blobTarget(PublicNone), false, azerr.AuthorizationPermissionMismatch},
		{"create cannot replace", account("c", "o"), OnObject("cw").Replacing("w"), blobTarget(PublicNone), true, azerr.AuthorizationPermissionMismatch},
		{"write replaces", account("w", "o"), OnObject("cw").Replacing("w"), blobTarget(PublicNone), true, ""},
		{"resource type", account("r", "c"), OnObject("r"), blobTarget(PublicNone), false, azerr.AuthorizationResourceTypeMismatch},
		{"key only", account("rw", "sco"), OnContainer("r").OnlyAccountKey(), blobTarget(PublicNone), false, azerr.AuthorizationFailure},
		{"oauth only", &Identity{Kind: SharedKey}, OAuthOnly(), Target{Service: Blob}, false, azerr.AuthenticationFailed},
		{"oauth", &Identity{Kind: Bearer}, OAuthOnly(), Target{Service: Blob}, false, ""},
		{"public blob", anonymous, OnObject("r").PublicFrom(PublicBlob), blobTarget(PublicBlob), false, ""},
		{"public container needed", anonymous, OnContainer("l").PublicFrom(PublicContainer), blobTarget(PublicBlob), false, azerr.ResourceNotFound},
		{"anonymous write", anonymous, OnObject("w"), blobTarget(PublicContainer), false, azerr.NoAuthenticationInformation},
		{"upsert needs both", service("a"), OnObject("a").And("u"), tableTarget, false, azerr.AuthorizationPermissionMismatch},
		{"upsert", service("au"), OnObject("a").And("u"), tableTarget, false, ""},
		{"no service SAS", service("rwdlacu"), OnContainer("d").NoServiceSAS(), tableTarget, false, azerr.AuthorizationResourceTypeMismatch},
		{"account letters", account("wd", "o"), OnObject("m").ForAccountSAS("w", "d"), blobTarget(PublicNone), false, ""},
		{"account letters short of one", account("w", "o"), OnObject("m").ForAccountSAS("w", "d"), blobTarget(PublicNone), false, azerr.AuthorizationPermissionMismatch},
		{"service letter in an account SAS", account("m", "o"), OnObject("m").ForAccountSAS("w", "d"), blobTarget(PublicNone), false, azerr.AuthorizationPermissionMismatch},
		{"account letters replace", account("w", "o"), OnObject("cw").Replacing("p").ForAccountSAS("w"), blobTarget(PublicNone), true, ""},
		{"account letters not asked of a service SAS", service("w"), OnObject("p").ForAccountSAS("w"), tableTarget, false, azerr.AuthorizationPermissionMismatch},
		{"envelope", service("r"), PartsAuthorized(), Target{Service: Table}, false, ""},
		{"envelope expired", expired, PartsAuthorized(), Target{Service: Blob}, false, azerr.AuthenticationFailed},
		{"envelope anonymous", anonymous, PartsAuthorized().ForbidAnonymous(), Target{Service: Table}, false, azerr.AuthorizationFailure},
	}
	for _, c := range cases {
		var err error
		if c.replace {
			err = c.id.AllowReplace(c.need, c.target)
		} else {
			err = c.id.Allow(c.need, c.target)
		}
		got := ""
		if err != nil {
			e, _ := azerr.As(err)
			got = e.Code
		}
		if got != c.want {
			t.Errorf("%s: got %q (%v), want %q", c.name, got, err, c.want)
		}
	}
}
