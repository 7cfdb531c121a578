package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/lazuli-storage/lazuli/internal/base/clock"
	"github.com/lazuli-storage/lazuli/internal/engine/store/memory"
	"github.com/lazuli-storage/lazuli/internal/frame/request"
	"github.com/lazuli-storage/lazuli/internal/rule/auth"
	"github.com/lazuli-storage/lazuli/internal/rule/azerr"
	"github.com/lazuli-storage/lazuli/internal/rule/svcprops"
)

// echoService records what the middleware handed it.
type echoService struct {
	got  *request.Info
	fail error
	boom bool
}

func (e *echoService) Name() auth.Service { return auth.Service("blob") }

func (e *echoService) Handle(w http.ResponseWriter, r *http.Request) error {
	if e.boom {
		panic("boom")
	}
	e.got = request.Of(r)
	if e.fail != nil {
		return e.fail
	}
	w.WriteHeader(http.StatusOK)
	return nil
}

func newChain(t *testing.T, svc *echoService, skipVersion bool) (http.Handler, Options) {
	t.Helper()
	opts := Options{Store: memory.New(), Auth: &auth.Authenticator{Accounts: auth.DevAccounts()}, SkipAPIVersionCheck: skipVersion}
	return Handler(svc, opts), opts
}

func TestAccountAndPath(t *testing.T) {
	cases := []struct {
		host, target     string
		account, path    string
		secondary        bool
		wantStatus       int
		wantErrorCodeHdr string
	}{
		{"127.0.0.1:10000", "/devstoreaccount1/c/b%2Fx", "devstoreaccount1", "/c/b/x", false, 200, ""},
		{"127.0.0.1:10000", "/devstoreaccount1", "devstoreaccount1", "", false, 200, ""},
		{"127.0.0.1:10000", "/devstoreaccount1-secondary/c", "devstoreaccount1", "/c", true, 200, ""},
		{"devstoreaccount1.blob.localhost:10000", "/c/b", "devstoreaccount1", "/c/b", false, 200, ""},
		{"devstoreaccount1.blob.core.windows.net", "/c/b", "devstoreaccount1", "/c/b", false, 200, ""},
		{"devstoreaccount1-secondary.blob.core.windows.net", "/c/b", "devstoreaccount1", "/c/b", true, 200, ""},
		// An account this server does not hold is answered as Azurite
		// answers it (its authenticators: 400 InvalidOperation, "Invalid
		// storage account."); Azure itself has no such request.
		{"127.0.0.1:10000", "/nosuchaccount/c", "", "", false, 400, azerr.InvalidOperation},
		{"127.0.0.1:10000", "/", "", "", false, 400, azerr.InvalidUri},
	}
	for _, c := range cases {
		svc := &echoService{}
		h, _ := newChain(t, svc, false)
		r := httptest.NewRequest("GET", "http://"+c.host+c.target, nil)
		r.Host = c.host
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		if w.Code != c.wantStatus || w.Header().Get(azerr.ErrorCodeHeader) != c.wantErrorCodeHdr {
			t.Errorf("%s%s: status %d code %q", c.host, c.target, w.Code, w.Header().Get(azerr.ErrorCodeHeader))
			continue
		}
		if c.wantStatus == 200 && (svc.got.Account != c.account || svc.got.Path != c.path || svc.got.Secondary != c.secondary) {
			t.Errorf("%s%s: account %q path %q secondary %v", c.host, c.target, svc.got.Account, svc.got.Path, svc.got.Secondary)
		}
		for _, hdr := range []string{"x-ms-request-id", "Date", "Server"} {
			if w.Header().Get(hdr) == "" {
				t.Errorf("%s%s: missing %s", c.host, c.target, hdr)
			}
		}
	}
}

func TestVersionCheck(t *testing.T) {
	cases := []struct {
		version string
		skip    bool
		status  int
	}{
		{"2021-08-06", false, 200},
		{NewestVersion, false, 200},
		{"2099-01-01", false, 400},
		{"garbage", false, 400},
		{"2099-01-01", true, 200},
	}
	for _, c := range cases {
		h, _ := newChain(t, &echoService{}, c.skip)
		r := httptest.NewRequest("GET", "/devstoreaccount1/c", nil)
		r.Header.Set("x-ms-version", c.version)
		r.Header.Set("x-ms-client-request-id", "client-1")
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		if w.Code != c.status {
			t.Errorf("version %s skip %v: status %d", c.version, c.skip, w.Code)
		}
		if w.Header().Get("x-ms-version") != c.version && c.status == 200 {
			t.Errorf("version %s not echoed: %q", c.version, w.Header().Get("x-ms-version"))
		}
		if w.Header().Get("x-ms-client-request-id") != "client-1" {
			t.Error("client request id not echoed")
		}
	}
}

// TestSubRequestVersion: a request served through the chain again for a
// batch (its context carries the batch's Info) takes the batch's version
// unless it sends x-ms-version itself; its Info names the batch's as its
// parent and the chain as the one serving it.
func TestSubRequestVersion(t *testing.T) {
	batch := &request.Info{ID: "batch", Version: "2021-08-06"}
	cases := []struct {
		header, query, want string
	}{
		{"", "", "2021-08-06"},
		{"", "?sv=2025-01-05&sig=x", "2021-08-06"},
		{"2023-11-03", "", "2023-11-03"},
	}
	for _, c := range cases {
		svc := &echoService{}
		h, _ := newChain(t, svc, false)
		r := httptest.NewRequest("DELETE", "/devstoreaccount1/c/b"+c.query, nil)
		if c.header != "" {
			r.Header.Set("x-ms-version", c.header)
		}
		r = r.WithContext(request.With(r.Context(), batch))
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		// The version is settled before authentication: even the unsigned
		// SAS, refused, echoes it.
		if got := w.Header().Get("x-ms-version"); got != c.want {
			t.Errorf("%+v: echoed version %q", c, got)
		}
		if svc.got == nil {
			if c.query == "" {
				t.Fatalf("%+v: not served: %d", c, w.Code)
			}
			continue
		}
		if svc.got.Version != c.want || svc.got.Parent != batch || svc.got.Chain != h || svc.got.ID == batch.ID {
			t.Errorf("%+v: version %q parent %p chain %v id %q", c, svc.got.Version, svc.got.Parent, svc.got.Chain, svc.got.ID)
		}
	}
}

func TestErrorsAndPanics(t *testing.T) {
	h, _ := newChain(t, &echoService{fail: azerr.New(azerr.BlobNotFound)}, false)
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest("GET", "/devstoreaccount1/c/b", nil))
	if w.Code != 404 || !strings.Contains(w.Body.String(), "<Code>BlobNotFound</Code>") {
		t.Errorf("error rendering: %d %s", w.Code, w.Body.String())
	}
	h, _ = newChain(t, &echoService{boom: true}, false)
	w = httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest("GET", "/devstoreaccount1/c/b", nil))
	if w.Code != 500 || w.Header().Get(azerr.ErrorCodeHeader) != azerr.InternalError {
		t.Errorf("panic recovery: %d", w.Code)
	}
}

// TestFaultsLoggedThroughInjectedLoggerAndClock: a 500 and a panic reach
// Options.Logger, stamped with Options.Clock, with the request id the client
// saw.
func TestFaultsLoggedThroughInjectedLoggerAndClock(t *testing.T) {
	at := time.Date(2032, 7, 8, 9, 10, 11, 0, time.UTC)
	for _, svc := range []*echoService{{fail: errors.New("disk on fire")}, {boom: true}} {
		var logged bytes.Buffer
		opts := Options{Store: memory.New(), Auth: &auth.Authenticator{Accounts: auth.DevAccounts()}, Clock: clock.NewFake(at),
			Logger: slog.New(slog.NewJSONHandler(&logged, nil))}
		w := httptest.NewRecorder()
		Handler(svc, opts).ServeHTTP(w, httptest.NewRequest("GET", "/devstoreaccount1/c/b", nil))
		if w.Code != http.StatusInternalServerError {
			t.Fatalf("boom=%v: status %d", svc.boom, w.Code)
		}
		var line struct {
			Time      time.Time `json:"time"`
			Level     string    `json:"level"`
			RequestID string    `json:"request_id"`
		}
		if err := json.Unmarshal(logged.Bytes(), &line); err != nil {
			t.Fatalf("boom=%v: log %q: %v", svc.boom, logged.String(), err)
		}
		if !line.Time.Equal(at) || line.Level != "ERROR" || line.RequestID != w.Header().Get(azerr.RequestIDHeader) {
			t.Fatalf("boom=%v: logged %s", svc.boom, logged.String())
		}
	}
}

func TestCORSPreflight(t *testing.T) {
	h, opts := newChain(t, &echoService{}, false)
	preflight := func() *httptest.ResponseRecorder {
		r := httptest.NewRequest("OPTIONS", "/devstoreaccount1/c/b", nil)
		r.Header.Set("Origin", "http://app.example")
		r.Header.Set("Access-Control-Request-Method", "PUT")
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w
	}
	if w := preflight(); w.Code != 403 || w.Header().Get(azerr.ErrorCodeHeader) != azerr.CorsPreflightFailure {
		t.Fatalf("preflight without rules: %d", w.Code)
	}
	rules := svcprops.Properties{Cors: &svcprops.CorsRules{Rules: []svcprops.CorsRule{{AllowedOrigins: "http://app.example",
		AllowedMethods: "PUT,GET", MaxAgeInSeconds: 30}}}}
	if err := svcprops.Set(t.Context(), opts.Store, "devstoreaccount1", "blob", rules); err != nil {
		t.Fatal(err)
	}
	if w := preflight(); w.Code != 200 || w.Header().Get("Access-Control-Allow-Origin") != "http://app.example" {
		t.Fatalf("preflight with a rule: %d %v", w.Code, w.Header())
	}
	r := httptest.NewRequest("GET", "/devstoreaccount1/c/b", nil)
	r.Header.Set("Origin", "http://app.example")
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	if w.Header().Get("Access-Control-Allow-Origin") != "http://app.example" {
		t.Errorf("actual request CORS headers: %v", w.Header())
	}
}
