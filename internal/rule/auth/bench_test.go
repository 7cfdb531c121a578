package auth

import (
	"encoding/base64"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// BenchmarkAuthenticateSharedKey verifies a Get Blob request signed as the
// SDKs sign it: the cost every Shared Key request pays.
func BenchmarkAuthenticateSharedKey(b *testing.B) {
	key, _ := base64.StdEncoding.DecodeString(DevAccountKey)
	a := &Authenticator{Accounts: NewAccounts(&Account{Name: DevAccountName, Keys: [][]byte{key}})}
	for _, tc := range []struct {
		name string
		svc  Service
		url  string
	}{
		{"blob", Blob, "http://127.0.0.1:10000/devstoreaccount1/bench/blob-17"},
		{"blob-query", Blob, "http://127.0.0.1:10000/devstoreaccount1/bench?restype=container&comp=list&prefix=a"},
		{"table", Table, "http://127.0.0.1:10002/devstoreaccount1/bench(PartitionKey='p',RowKey='r')"},
	} {
		b.Run(tc.name, func(b *testing.B) {
			r := httptest.NewRequest(http.MethodGet, tc.url, nil)
			r.Header.Set("X-Ms-Date", time.Now().UTC().Format(http.TimeFormat))
			r.Header.Set("X-Ms-Version", "2025-01-05")
			r.Header.Set("X-Ms-Client-Request-Id", "5a6a4c0e-3b8e-4a55-9f6a-1d2b3c4d5e6f")
			SignSharedKey(r, tc.svc, DevAccountName, key)
			b.ReportAllocs()
			for b.Loop() {
				if _, err := a.Authenticate(r, tc.svc, DevAccountName); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestHeaderNameShortcutsAgreeWithToLower pins the allocation-free header
// name checks to the lowercasing they stand in for.
func TestHeaderNameShortcutsAgreeWithToLower(t *testing.T) {
	for _, name := range []string{
		"X-Ms-Date", "X-Ms-Version", "X-Ms-Client-Request-Id", "x-ms-meta-A", "X-MS-", "X-Ms",
		"Xx-Ms-", "X_Ms-a", "Content-Type", "", "X-Mſ-a", "\xffX-Ms-a", "X-Ms-\xff",
	} {
		if got, want := hasXMSPrefix(name), strings.HasPrefix(strings.ToLower(name), "x-ms-"); got != want {
			t.Errorf("hasXMSPrefix(%q) = %v, want %v", name, got, want)
		}
		if got, want := lowerHeaderName(name), strings.ToLower(name); got != want {
			t.Errorf("lowerHeaderName(%q) = %q, want %q", name, got, want)
		}
	}
}
