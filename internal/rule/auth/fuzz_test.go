package auth

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/lazuli-storage/lazuli/internal/base/clock"
	"github.com/lazuli-storage/lazuli/internal/rule/azerr"
)

func FuzzParseAuthorization(f *testing.F) {
	for _, s := range []string{
		"SharedKey devstoreaccount1:c2lnbmF0dXJl", "SharedKeyLite a:b", "SharedKey a", "Bearer x.y.z",
		"SharedKey :", " SharedKey  a:b ", "SharedKey a:b:c", "SharedKey\ta:b", "",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		h, err := parseAuthorization(v)
		if err != nil {
			if !azerr.Is(err, azerr.InvalidAuthenticationInfo) {
				t.Fatalf("error %v is not InvalidAuthenticationInfo", err)
			}
			return
		}
		if h.account == "" || h.signature == "" || strings.ContainsAny(h.account, " \t") || strings.ContainsAny(h.signature, " \t:") {
			t.Fatalf("accepted %q as %+v", v, h)
		}
		name := "SharedKey"
		if h.scheme == schemeSharedKeyLite {
			name = "SharedKeyLite"
		}
		again, err := parseAuthorization(name + " " + h.account + ":" + h.signature)
		if err != nil || again != h {
			t.Fatalf("round trip of %+v: %+v, %v", h, again, err)
		}
	})
}

func FuzzParseSAS(f *testing.F) {
	for _, s := range []string{
		"sv=2020-12-06&sr=b&sp=r&se=2025-03-14T13:00:00Z&sig=c2ln",
		"sv=2020-12-06&ss=bqtf&srt=sco&sp=rwdl&st=2025-03-14&se=2025-03-15T00:00Z&sip=10.0.0.1-10.0.0.9&spr=https&sig=c2ln",
		"sv=2019-02-02&tn=t1&sp=raud&spk=a&srk=b&epk=c&erk=d&se=2025-03-14T13:00:00.1234567Z&sig=x",
		"sv=2020-12-06&sr=d&sdd=3&sp=r&si=policy&sig=x",
		"sv=2012-02-12&si=p&sig=x",
		"sig=&sv=",
		"sv=2020-12-06&sr=b&sp=r&se=2025-03-14T13:00:00%2B01:00&sip=::1-::2&sig=x",
	} {
		f.Add(s)
	}
	services := []Service{Blob, Queue, Table, File}
	f.Fuzz(func(t *testing.T, raw string) {
		q, _ := url.ParseQuery(raw)
		for _, svc := range services {
			s, err := parseSAS(q, svc)
			if err != nil {
				if !azerr.Is(err, azerr.AuthenticationFailed) {
					t.Fatalf("error %v is not AuthenticationFailed", err)
				}
				continue
			}
			u := &url.URL{Path: "/devstoreaccount1/c/d/e", RawQuery: raw}
			if s.IsAccount() {
				_ = accountSASStringToSign(DevAccountName, s)
			} else {
				for _, sc := range serviceScopes(svc, s, u, DevAccountName) {
					_ = serviceSASStringToSign(svc, s, canonicalName(svc, s.Version, DevAccountName, sc), signedTimestamp(s, q))
				}
			}
			kind := ServiceSAS
			if s.IsAccount() {
				kind = AccountSAS
			}
			id := &Identity{Kind: kind, SAS: s, service: svc, at: time.Unix(1.7e9, 0)}
			for _, rt := range []ResourceType{ResourceService, ResourceContainer, ResourceObject} {
				err := id.Authorize(Access{Service: svc, ResourceType: rt, Perm: "r", Container: "c", Object: "d/e"})
				if e, ok := azerr.As(err); err != nil && (!ok || e.Status < 400 || e.Status >= 500) {
					t.Fatalf("Authorize: %v", err)
				}
			}
			_ = s.TableRange().Contains("a", "b")
		}
	})
}

// FuzzAuthenticate feeds arbitrary Authorization headers, queries and paths
// through Authenticate: every failure must be an Azure 4xx error.
func FuzzAuthenticate(f *testing.F) {
	f.Add("SharedKey devstoreaccount1:c2ln", "comp=list&restype=container", "/devstoreaccount1/c1", "Fri, 14 Mar 2025 12:00:00 GMT")
	f.Add("", "sv=2020-12-06&sr=c&sp=r&se=2025-03-14T13:00:00Z&sig=c2ln", "/devstoreaccount1/c1/b", "")
	f.Add("SharedKeyLite devstoreaccount1:", "a=1&a=2&B=3", "/devstoreaccount1/t1(PartitionKey='a')", "garbage")
	f.Add("", "", "", "")
	now := time.Date(2025, 3, 14, 12, 0, 0, 0, time.UTC)
	a := &Authenticator{Accounts: DevAccounts(), Clock: clock.NewFake(now)}
	f.Fuzz(func(t *testing.T, authz, rawQuery, path, date string) {
		for _, svc := range []Service{Blob, Queue, Table, File} {
			r := &http.Request{Method: "PUT", URL: &url.URL{Path: path, RawQuery: rawQuery}, Header: http.Header{}, RemoteAddr: "127.0.0.1:1"}
			if authz != "" {
				r.Header.Set("Authorization", authz)
			}
			r.Header.Set("x-ms-date", date)
			r.Header.Set("x-ms-meta-Key", path)
			id, err := a.Authenticate(r, svc, DevAccountName)
			if err != nil {
				if e, ok := azerr.As(err); !ok || e.Status < 400 || e.Status >= 500 {
					t.Fatalf("Authenticate: %v", err)
				}
				continue
			}
			if id == nil || id.Account != DevAccountName {
				t.Fatalf("identity %+v", id)
			}
		}
	})
}
