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
