package auth

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// TestSignSharedKeyVerifies checks that a request signed by SignSharedKey
// is accepted by Authenticate, and a tampered one is not.
func TestSignSharedKeyVerifies(t *testing.T) {
	accts := DevAccounts()
	acct, _ := accts.Lookup("devstoreaccount1")
	a := &Authenticator{Accounts: accts}
	for _, svc := range []Service{Blob, Queue, Table, File} {
		r := httptest.NewRequest("PUT", "http://127.0.0.1:10000/devstoreaccount1/c/b?comp=metadata&timeout=30", strings.NewReader("hello"))
		r.Header.Set("x-ms-date", time.Now().UTC().Format(http.TimeFormat))
		r.Header.Set("x-ms-version", "2021-08-06")
		r.Header.Set("x-ms-meta-color", "blue")
		SignSharedKey(r, svc, "devstoreaccount1", acct.Keys[0])
		id, err := a.Authenticate(r, svc, "devstoreaccount1")
		if err != nil || id.Kind != SharedKey {
			t.Errorf("%s: signed request rejected: %v", svc, err)
		}
		r.Header.Set("x-ms-date", time.Now().Add(time.Minute).UTC().Format(http.TimeFormat))
		if _, err := a.Authenticate(r, svc, "devstoreaccount1"); err == nil {
			t.Errorf("%s: tampered request accepted", svc)
		}
	}
}

// TestPrimaryStringToSignIsFirstVariant pins the fast path of verification
// to the first of the accepted variants for every service and scheme.
func TestPrimaryStringToSignIsFirstVariant(t *testing.T) {
	for _, svc := range []Service{Blob, Queue, Table, File} {
		for _, target := range []string{"/devstoreaccount1/c/b?comp=metadata&Timeout=30&b=2&a=1", "/devstoreaccount1/c/b"} {
			for _, scheme := range []authScheme{schemeSharedKey, schemeSharedKeyLite} {
				r := httptest.NewRequest("PUT", "http://h"+target, nil)
				r.Header.Set("x-ms-date", "Sun, 22 Nov 2026 12:00:00 GMT")
				r.Header.Set("x-ms-meta-Two", "a  b")
				r.Header.Set("x-ms-version", "2021-08-06")
				r.Header.Set("Content-Type", "text/plain")
				if got, want := primaryStringToSign(r, svc, scheme, "devstoreaccount1"),
					sharedKeyStringsToSign(r, svc, scheme, "devstoreaccount1")[0]; got != want {
					t.Errorf("%s %s scheme %d: primary %q, first variant %q", svc, target, scheme, got, want)
				}
			}
		}
	}
}
