package server

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/lazuli-storage/lazuli/internal/engine/store/memory"
	"github.com/lazuli-storage/lazuli/internal/rule/auth"
)

// emptyAnswer answers every request 200 with no body: what is left of a
// request's cost is the chain's.
type emptyAnswer struct{}

func (emptyAnswer) Name() auth.Service { return auth.Blob }

func (emptyAnswer) Handle(w http.ResponseWriter, _ *http.Request) error {
	w.WriteHeader(http.StatusOK)
	return nil
}

// countObserver is an Observer that only counts.
type countObserver struct{ n int }

func (o *countObserver) Request(string, string, int, string, int64, int64, time.Duration) { o.n++ }

// keptWriter is a ResponseWriter whose header map is reused between
// requests, so that AllocsPerRun counts the chain's allocations only.
type keptWriter struct {
	h      http.Header
	status int
}

func (w *keptWriter) Header() http.Header         { return w.h }
func (w *keptWriter) Write(b []byte) (int, error) { return len(b), nil }
func (w *keptWriter) WriteHeader(status int)      { w.status = status }

// signedSmallGet is a Shared Key GET of a blob with the limits, the
// observer and the authenticator the server runs with.
func signedSmallGet(t testing.TB) (http.Handler, *http.Request) {
	accounts := auth.DevAccounts()
	h := Handler(emptyAnswer{}, Options{Store: memory.New(), Auth: &auth.Authenticator{Accounts: accounts},
		Observer: &countObserver{}, BodyTimeout: DefaultBodyTimeout, WriteTimeout: DefaultWriteTimeout,
		MinBodyRate: DefaultMinBodyRate, BodyRateGrace: DefaultBodyRateGrace})
	acct, _ := accounts.Lookup("devstoreaccount1")
	r := httptest.NewRequest(http.MethodGet, "http://127.0.0.1:10000/devstoreaccount1/c/b", nil)
	r.Header.Set("X-Ms-Version", "2021-08-06")
	r.Header.Set("X-Ms-Date", time.Now().UTC().Format(http.TimeFormat))
	auth.SignSharedKey(r, auth.Blob, "devstoreaccount1", acct.Keys[0])
	return h, r
}

// chainAllocations is the most the chain may allocate for a small signed
// GET: its state (one), the request id (two), the request's copy and its
// context (two), the resource path and the x-ms-version header (two), and
// the signature check's Identity, MAC and header names (three). Each
// further allocation is paid by every request.
const chainAllocations = 10

func TestChainAllocations(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates on its own account")
	}
	h, r := signedSmallGet(t)
	w := &keptWriter{h: http.Header{}}
	allocs := testing.AllocsPerRun(200, func() {
		clear(w.h)
		h.ServeHTTP(w, r)
	})
	if w.status != http.StatusOK {
		t.Fatalf("status %d", w.status)
	}
	if allocs > chainAllocations {
		t.Errorf("the chain allocates %v times per small GET; want at most %d", allocs, chainAllocations)
	}
}

func BenchmarkChainSmallGet(b *testing.B) {
	h, r := signedSmallGet(b)
	w := &keptWriter{h: http.Header{}}
	b.ReportAllocs()
	for b.Loop() {
		clear(w.h)
		h.ServeHTTP(w, r)
	}
}
