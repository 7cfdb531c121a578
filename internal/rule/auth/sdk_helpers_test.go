package auth

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lazuli-storage/lazuli/internal/base/clock"
	"github.com/lazuli-storage/lazuli/internal/rule/azerr"
)

// devKey is the development account key as the SDK credentials take it.
const devKey = DevAccountKey

// otherKey is a valid key that is not the account's.
const otherKey = "dGhpcyBpcyBub3QgdGhlIGFjY291bnQga2V5IGF0IGFsbCwgbm90IGF0IGFsbCE="

// outcome is what Authenticate returned for one request the server saw.
type outcome struct {
	method, path string
	id           *Identity
	err          error
}

// authServer is an httptest server that authenticates every request it
// receives the way the middleware will, records the outcome and answers
// success (or the error) so the SDKs do not retry.
type authServer struct {
	*httptest.Server
	mu       sync.Mutex
	outcomes []outcome
}

func newAuthServer(t *testing.T, svc Service, a *Authenticator) *authServer {
	t.Helper()
	s := &authServer{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		account, _, _ := strings.Cut(strings.TrimPrefix(r.URL.Path, "/"), "/")
		id, err := a.Authenticate(r, svc, account)
		s.mu.Lock()
		s.outcomes = append(s.outcomes, outcome{r.Method, r.URL.Path, id, err})
		s.mu.Unlock()
		if err != nil {
			format := azerr.XML
			if svc == Table {
				format = azerr.JSON
			}
			azerr.Renderer{Format: format}.Write(w, r, err)
			return
		}
		w.Header().Set("x-ms-request-id", "test")
		switch r.Method {
		case http.MethodPut:
			w.WriteHeader(http.StatusCreated)
		case http.MethodDelete:
			w.WriteHeader(http.StatusAccepted)
		case http.MethodPost:
			if svc == Table {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusCreated)
				_, _ = w.Write([]byte(`{}`))
				return
			}
			w.WriteHeader(http.StatusCreated)
		default:
			w.WriteHeader(http.StatusOK)
		}
	}))
	t.Cleanup(s.Close)
	return s
}

// take returns and clears the recorded outcomes.
func (s *authServer) take() []outcome {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := s.outcomes
	s.outcomes = nil
	return out
}

// devAuthenticator authenticates against the development account with a
// fake clock set to now.
func devAuthenticator() (*Authenticator, *clock.Fake) {
	c := clock.NewFake(time.Now())
	return &Authenticator{Accounts: DevAccounts(), Clock: c}, c
}
