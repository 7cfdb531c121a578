package server

import (
	"crypto/tls"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/lazuli-storage/lazuli/internal/frame/analytics"
	"github.com/lazuli-storage/lazuli/internal/frame/request"
	"github.com/lazuli-storage/lazuli/internal/rule/auth"
)

// The URL field of a log line never carries a usable SAS signature.
func TestLoggedURL(t *testing.T) {
	for _, tt := range []struct {
		url  string
		tls  bool
		want string
	}{
		{"/acct/c/b?timeout=30", false, "http://example.test/acct/c/b?timeout=30"},
		{"/acct/c/b?sv=2025-01-05&sig=c2VjcmV0&sp=r", true, "https://example.test/acct/c/b?sig=XXXXX&sp=r&sv=2025-01-05"},
		{"/acct/c", false, "http://example.test/acct/c"},
	} {
		r := httptest.NewRequest(http.MethodGet, tt.url, nil)
		r.Host = "example.test"
		if tt.tls {
			r.TLS = &tls.ConnectionState{}
		}
		if got := loggedURL(r); got != tt.want {
			t.Errorf("loggedURL(%s) = %s, want %s", tt.url, got, tt.want)
		}
	}
}

// The authentication-type field follows how the caller authenticated, or,
// for a request refused before that, what it carried.
func TestAuthTypeOf(t *testing.T) {
	for _, tt := range []struct {
		name      string
		id        *auth.Identity
		header    string
		query     string
		want, who string
	}{
		{"shared key", &auth.Identity{Kind: auth.SharedKey, Account: "acct"}, "", "", analytics.AuthKey, "acct"},
		{"bearer", &auth.Identity{Kind: auth.Bearer}, "", "", analytics.AuthKey, ""},
		{"account sas", &auth.Identity{Kind: auth.AccountSAS}, "", "", analytics.AuthSAS, ""},
		{"delegation sas", &auth.Identity{Kind: auth.DelegationSAS}, "", "", analytics.AuthSAS, ""},
		{"anonymous", &auth.Identity{Kind: auth.Anonymous}, "", "", analytics.AuthAnonymous, ""},
		{"refused key", nil, "SharedKey acct:x", "", analytics.AuthKey, ""},
		{"refused sas", nil, "", "?sig=x", analytics.AuthSAS, ""},
		{"refused nothing", nil, "", "", analytics.AuthAnonymous, ""},
	} {
		r := httptest.NewRequest(http.MethodGet, "/acct/c"+tt.query, nil)
		if tt.header != "" {
			r.Header.Set("Authorization", tt.header)
		}
		got, who := authTypeOf(r, &request.Info{Identity: tt.id})
		if got != tt.want || who != tt.who {
			t.Errorf("%s: %s %q, want %s %q", tt.name, got, who, tt.want, tt.who)
		}
	}
}
