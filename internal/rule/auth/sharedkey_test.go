package auth

import (
	"bytes"
	"encoding/base64"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/lazuli-storage/lazuli/internal/base/clock"
	"github.com/lazuli-storage/lazuli/internal/rule/azerr"
)

func TestParseAuthorization(t *testing.T) {
	for _, tc := range []struct {
		in      string
		want    authHeader
		wantErr bool
	}{
		{in: "SharedKey acc:c2ln", want: authHeader{schemeSharedKey, "acc", "c2ln"}},
		{in: "SharedKeyLite acc:c2ln", want: authHeader{schemeSharedKeyLite, "acc", "c2ln"}},
		{in: "  SharedKey acc:c2ln==  ", want: authHeader{schemeSharedKey, "acc", "c2ln=="}},
		{in: "SharedKey  acc:c2ln", want: authHeader{schemeSharedKey, "acc", "c2ln"}},
		{in: "SharedKey", wantErr: true},
		{in: "SharedKey acc", wantErr: true},
		{in: "SharedKey :sig", wantErr: true},
		{in: "SharedKey acc:", wantErr: true},
		{in: "SharedKey acc:si:g", wantErr: true},
		{in: "SharedKey a cc:sig", wantErr: true},
		{in: "sharedkey acc:sig", wantErr: true},
		{in: "Bearer eyJ0eXAi", wantErr: true},
		{in: "", wantErr: true},
	} {
		got, err := parseAuthorization(tc.in)
		if tc.wantErr {
			if !azerr.Is(err, azerr.InvalidAuthenticationInfo) {
				t.Errorf("%q: err %v, want InvalidAuthenticationInfo", tc.in, err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("%q: got %+v, %v; want %+v", tc.in, got, err, tc.want)
		}
	}
}

// The example of the Azure reference page "Authorize with Shared Key"
// (learn.microsoft.com/rest/api/storageservices/authorize-with-shared-key).
func TestStringToSignDocumentationExample(t *testing.T) {
	r := httptest.NewRequest("GET", "http://myaccount.blob.core.windows.net/mycontainer?restype=container&comp=metadata&timeout=20", nil)
	r.Header.Set("x-ms-date", "Sun, 11 Oct 2009 21:49:13 GMT")
	r.Header.Set("x-ms-version", "2009-09-19")
	want := "GET\n\n\n\n\n\n\n\n\n\n\n\nx-ms-date:Sun, 11 Oct 2009 21:49:13 GMT\nx-ms-version:2009-09-19\n/myaccount/mycontainer\ncomp:metadata\nrestype:container\ntimeout:20"
	if got := sharedKeyStringsToSign(r, Blob, schemeSharedKey, "myaccount")[0]; got != want {
		t.Errorf("string to sign:\n%q\nwant\n%q", got, want)
	}
}

// signedRequest is a request to the dev account signed over exactly sts.
func signedRequest(method, target, scheme, sts string, header http.Header) *http.Request {
	r := httptest.NewRequest(method, target, nil)
	for k, v := range header {
		r.Header[k] = v
	}
	key, _ := base64.StdEncoding.DecodeString(DevAccountKey)
	r.Header.Set("Authorization", scheme+" "+DevAccountName+":"+base64.StdEncoding.EncodeToString(sign(key, sts)))
	return r
}

// Layouts written out as the documentation gives them, for the forms the
// SDK tests do not reach (Shared Key Lite on blob, full Shared Key on table,
// Date instead of x-ms-date, Content-Length 0 before 2015-02-21,
// whitespace-collapsed header values, uppercase query names).
func TestSharedKeyLayouts(t *testing.T) {
	now := time.Date(2025, 3, 14, 12, 0, 0, 0, time.UTC)
	date := now.Format(http.TimeFormat)
	const acct = "/" + DevAccountName
	target := "http://127.0.0.1:10000/devstoreaccount1/c1/b1?comp=metadata&timeout=30"
	h := func(kv ...string) http.Header {
		out := http.Header{}
		for i := 0; i < len(kv); i += 2 {
			out.Add(kv[i], kv[i+1])
		}
		return out
	}
	for _, tc := range []struct {
		name   string
		svc    Service
		method string
		target string
		scheme string
		header http.Header
		sts    string
	}{
		{"blob lite", Blob, "PUT", target, "SharedKeyLite", h("x-ms-date", date, "x-ms-version", "2025-01-05", "Content-Type", "text/plain"),
			"PUT\n\ntext/plain\n\nx-ms-date:" + date + "\nx-ms-version:2025-01-05\n" + acct + acct + "/c1/b1?comp=metadata"},
		{"queue lite with Date", Queue, "GET", "http://127.0.0.1:10001/devstoreaccount1/q1/messages?peekonly=true", "SharedKeyLite",
			h("Date", date, "x-ms-version", "2025-01-05"),
			"GET\n\n\n" + date + "\nx-ms-version:2025-01-05\n" + acct + acct + "/q1/messages"},
		{"blob with Date header", Blob, "GET", target, "SharedKey", h("Date", date, "x-ms-version", "2025-01-05"),
			"GET\n\n\n\n\n\n" + date + "\n\n\n\n\n\nx-ms-version:2025-01-05\n" + acct + acct + "/c1/b1\ncomp:metadata\ntimeout:30"},
		{"content-length 0 before 2015-02-21", File, "PUT", "http://127.0.0.1:10003/devstoreaccount1/s1?restype=share", "SharedKey",
			h("x-ms-date", date, "x-ms-version", "2014-02-14", "Content-Length", "0"),
			"PUT\n\n\n0\n\n\n\n\n\n\n\n\nx-ms-date:" + date + "\nx-ms-version:2014-02-14\n" + acct + acct + "/s1\nrestype:share"},
		{"content-length 0 from 2015-02-21", File, "PUT", "http://127.0.0.1:10003/devstoreaccount1/s1?restype=share", "SharedKey",
			h("x-ms-date", date, "x-ms-version", "2015-02-21", "Content-Length", "0"),
			"PUT\n\n\n\n\n\n\n\n\n\n\n\nx-ms-date:" + date + "\nx-ms-version:2015-02-21\n" + acct + acct + "/s1\nrestype:share"},
		{"collapsed header whitespace", Blob, "PUT", target, "SharedKey",
			h("x-ms-date", date, "x-ms-version", "2025-01-05", "x-ms-meta-k", "a   b \t c"),
			"PUT\n\n\n\n\n\n\n\n\n\n\n\nx-ms-date:" + date + "\nx-ms-meta-k:a b c\nx-ms-version:2025-01-05\n" + acct + acct + "/c1/b1\ncomp:metadata\ntimeout:30"},
		{"uppercase query names sorted lowercased", Blob, "GET", "http://127.0.0.1:10000/devstoreaccount1/c1?Zeta=1&alpha=2&alpha=0", "SharedKey",
			h("x-ms-date", date, "x-ms-version", "2025-01-05"),
			"GET\n\n\n\n\n\n\n\n\n\n\n\nx-ms-date:" + date + "\nx-ms-version:2025-01-05\n" + acct + acct + "/c1\nalpha:0,2\nzeta:1"},
		{"table full", Table, "POST", "http://127.0.0.1:10002/devstoreaccount1/Tables", "SharedKey",
			h("x-ms-date", date, "Content-Type", "application/json", "Content-MD5", "bWQ1"),
			"POST\nbWQ1\napplication/json\n" + date + "\n" + acct + acct + "/Tables"},
		{"table full with Date and comp", Table, "GET", "http://127.0.0.1:10002/devstoreaccount1/t1?comp=acl&timeout=5", "SharedKey",
			h("Date", date), "GET\n\n\n" + date + "\n" + acct + acct + "/t1?comp=acl"},
		{"table lite", Table, "GET", "http://127.0.0.1:10002/devstoreaccount1/t1(PartitionKey='a',RowKey='b')", "SharedKeyLite",
			h("x-ms-date", date), date + "\n" + acct + acct + "/t1(PartitionKey='a',RowKey='b')"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := &Authenticator{Accounts: DevAccounts(), Clock: clock.NewFake(now)}
			r := signedRequest(tc.method, tc.target, tc.scheme, tc.sts, tc.header)
			id, err := a.Authenticate(r, tc.svc, DevAccountName)
			if err != nil {
				t.Fatalf("%v", detail(err))
			}
			if id.Kind != SharedKey {
				t.Fatalf("kind %v", id.Kind)
			}
		})
	}
}

func TestSharedKeyFailures(t *testing.T) {
	now := time.Date(2025, 3, 14, 12, 0, 0, 0, time.UTC)
	date := now.Format(http.TimeFormat)
	good := "GET\n\n\n\n\n\n\n\n\n\n\n\nx-ms-date:" + date + "\n/devstoreaccount1/devstoreaccount1/c1"
	for _, tc := range []struct {
		name   string
		req    func() *http.Request
		code   string
		detail string
	}{
		{"wrong signature", func() *http.Request {
			return signedRequest("GET", "http://h/devstoreaccount1/c1", "SharedKey", good+"x", http.Header{"X-Ms-Date": {date}})
		}, azerr.AuthenticationFailed, "The MAC signature found in the HTTP request"},
		{"signature not base64", func() *http.Request {
			r := httptest.NewRequest("GET", "http://h/devstoreaccount1/c1", nil)
			r.Header.Set("x-ms-date", date)
			r.Header.Set("Authorization", "SharedKey devstoreaccount1:%%%")
			return r
		}, azerr.AuthenticationFailed, "The MAC signature found in the HTTP request '%%%'"},
		{"malformed header", func() *http.Request {
			r := httptest.NewRequest("GET", "http://h/devstoreaccount1/c1", nil)
			r.Header.Set("Authorization", "SharedKey devstoreaccount1")
			return r
		}, azerr.InvalidAuthenticationInfo, ""},
		{"two authorization headers", func() *http.Request {
			r := signedRequest("GET", "http://h/devstoreaccount1/c1", "SharedKey", good, http.Header{"X-Ms-Date": {date}})
			r.Header.Add("Authorization", "SharedKey devstoreaccount1:abc")
			return r
		}, azerr.InvalidAuthenticationInfo, ""},
		{"other account in header", func() *http.Request {
			r := httptest.NewRequest("GET", "http://h/devstoreaccount1/c1", nil)
			r.Header.Set("x-ms-date", date)
			r.Header.Set("Authorization", "SharedKey someoneelse:c2ln")
			return r
		}, azerr.AuthenticationFailed, "The account name 'someoneelse'"},
		{"no date", func() *http.Request {
			return signedRequest("GET", "http://h/devstoreaccount1/c1", "SharedKey", good, nil)
		}, azerr.AuthenticationFailed, "Request date header not specified"},
		{"unparseable date", func() *http.Request {
			return signedRequest("GET", "http://h/devstoreaccount1/c1", "SharedKey", good, http.Header{"X-Ms-Date": {"yesterday"}})
		}, azerr.AuthenticationFailed, "The request date header 'yesterday'"},
		{"old date", func() *http.Request {
			old := now.Add(-16 * time.Minute).Format(http.TimeFormat)
			return signedRequest("GET", "http://h/devstoreaccount1/c1", "SharedKey", good, http.Header{"X-Ms-Date": {old}})
		}, azerr.AuthenticationFailed, "Request date header too old"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var log bytes.Buffer
			a := &Authenticator{Accounts: DevAccounts(), Clock: clock.NewFake(now), Debug: true, Logger: slog.New(slog.NewTextHandler(&log, nil))}
			_, err := a.Authenticate(tc.req(), Blob, DevAccountName)
			if !azerr.Is(err, tc.code) {
				t.Fatalf("got %v, want %s", err, tc.code)
			}
			if tc.detail != "" && !hasDetailPrefix(err, tc.detail) {
				t.Fatalf("detail: %s", detail(err))
			}
			mismatch := strings.HasPrefix(tc.detail, "The MAC signature")
			if logged := strings.Contains(log.String(), "string_to_sign="); logged != mismatch {
				t.Fatalf("debug log of the string to sign: %v, want %v (%s)", logged, mismatch, log.String())
			}
		})
	}
	t.Run("unknown account", func(t *testing.T) {
		a := &Authenticator{Accounts: DevAccounts(), Clock: clock.NewFake(now)}
		r := httptest.NewRequest("GET", "http://h/nobody/c1", nil)
		r.Header.Set("x-ms-date", date)
		r.Header.Set("Authorization", "SharedKey nobody:c2ln")
		if _, err := a.Authenticate(r, Blob, "nobody"); !azerr.Is(err, azerr.AuthenticationFailed) {
			t.Fatalf("got %v", err)
		}
	})
}

func TestCollateHeaderNames(t *testing.T) {
	names := []string{"x-ms-meta-ab", "x-ms-meta-a1", "x-ms-meta-a_b", "x-ms-meta-a.b", "x-ms-meta-a-b", "x-ms-meta-a'b", "x-ms-date", "x-ms-version", "x-ms-meta-a"}
	sort.Slice(names, func(i, j int) bool { return collateHeaderNames(names[i], names[j]) < 0 })
	want := []string{"x-ms-date", "x-ms-meta-a", "x-ms-meta-a.b", "x-ms-meta-a_b", "x-ms-meta-a1", "x-ms-meta-ab", "x-ms-meta-a'b", "x-ms-meta-a-b", "x-ms-version"}
	if !reflect.DeepEqual(names, want) {
		t.Errorf("order\n%q\nwant\n%q", names, want)
	}
	for _, tc := range []struct {
		a, b string
		want int
	}{
		{"abc", "abc", 0}, {"a", "b", -1}, {"b", "a", 1}, {"ab", "abc", -1},
		{"ab", "a-b", -1}, {"a-b", "ab", 1}, {"a'b", "a-b", -1}, {"AB", "ab", 0},
	} {
		if got := collateHeaderNames(tc.a, tc.b); got != tc.want {
			t.Errorf("collate(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
	}
}

func TestCollapseSpace(t *testing.T) {
	for in, want := range map[string]string{
		"":                    "",
		"a":                   "a",
		"  a  b  ":            "a b",
		"a\t\tb":              "a b",
		`a  "b   c"  d`:       `a "b   c" d`,
		`"unterminated   x  `: `"unterminated   x  `,
	} {
		if got := collapseSpace(in); got != want {
			t.Errorf("collapseSpace(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestAnonymous(t *testing.T) {
	a := &Authenticator{Accounts: DevAccounts(), Clock: clock.NewFake(time.Now())}
	id, err := a.Authenticate(httptest.NewRequest("GET", "http://h/devstoreaccount1/c1/b1", nil), Blob, DevAccountName)
	if err != nil || id.Kind != Anonymous || id.Account != DevAccountName {
		t.Fatalf("got %+v, %v", id, err)
	}
	for _, tc := range []struct {
		name   string
		access Access
		code   string
	}{
		{"public read", Access{Service: Blob, ResourceType: ResourceObject, Perm: "r", Container: "c1", Object: "b1", PublicRead: true}, ""},
		{"private blob read", Access{Service: Blob, ResourceType: ResourceObject, Perm: "r", Container: "c1", Object: "b1"}, azerr.ResourceNotFound},
		{"private container list", Access{Service: Blob, ResourceType: ResourceContainer, Perm: "l", Container: "c1"}, azerr.ResourceNotFound},
		{"blob write", Access{Service: Blob, ResourceType: ResourceObject, Perm: "cw", Container: "c1", Object: "b1"}, azerr.NoAuthenticationInformation},
		{"list containers", Access{Service: Blob, ResourceType: ResourceService, Perm: "l"}, azerr.NoAuthenticationInformation},
		{"queue read", Access{Service: Queue, ResourceType: ResourceObject, Perm: "r", Container: "q1"}, azerr.NoAuthenticationInformation},
	} {
		if err := id.Authorize(tc.access); !codeIs(err, tc.code) {
			t.Errorf("%s: got %v, want %q", tc.name, err, tc.code)
		}
	}
	if err := (&Identity{Kind: SharedKey}).Authorize(Access{Service: Queue, ResourceType: ResourceService}); err != nil {
		t.Errorf("shared key: %v", err)
	}
}
