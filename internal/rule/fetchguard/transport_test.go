package fetchguard

import (
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"
)

// TestEveryFetchCarriesOwnFetchHeader: the first request and the
// redirected one both carry OwnFetchHeader, even when the request given
// to the client sets it empty.
func TestEveryFetchCarriesOwnFetchHeader(t *testing.T) {
	var mu sync.Mutex
	seen := map[string][]string{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen[r.URL.Path] = r.Header.Values(OwnFetchHeader)
		mu.Unlock()
		if r.URL.Path == "/first" {
			http.Redirect(w, r, "/second", http.StatusFound)
		}
	}))
	defer srv.Close()
	req, _ := http.NewRequest(http.MethodGet, srv.URL+"/first", nil)
	req.Header.Set(OwnFetchHeader, "")
	resp, err := New(nil, true).Client(10 * time.Second).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	for _, path := range []string{"/first", "/second"} {
		if got := seen[path]; len(got) != 1 || got[0] != "1" {
			t.Errorf("%s: %s = %q, want one value \"1\"", path, OwnFetchHeader, got)
		}
	}
}
