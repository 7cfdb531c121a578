// Package admin is Lazuli's admin listener (default 127.0.0.1:10009): the
// test-control API that no Azure endpoint has. It moves the server's clock
// (leases, visibility, expiry and SAS windows follow it), installs fault
// rules that make chosen requests fail, and resets an account's data, all
// as JSON over HTTP; it also answers health (/healthz) and readiness
// (/readyz: the store answers) probes, and serves what the host adds
// (/metrics, the web console).
//
// Only loopback callers are served unless a token is configured
// (--adminToken), which any caller may then present as a bearer token (or
// a browser as the cookie that ?token= sets). As loopback callers need no
// token, web pages the machine's browser opens are kept out (guard.go):
//
//   - A request must name the listener in its Host header: localhost or an
//     address of this machine on the listener's port, or a name given with
//     --adminHosts. Otherwise it is refused (421), unless it carries the
//     token: a page reaching 127.0.0.1 through a DNS-rebound name of its
//     own has neither.
//   - A request a browser marks as another site's (Sec-Fetch-Site
//     cross-site or same-site, or an Origin other than the listener's) is
//     refused (403) on every route but the console page and its assets.
//   - A browser request that changes something (any method but GET and
//     HEAD) also needs the console page's X-Lazuli-Csrf token (GET /csrf)
//     or a JSON body, neither of which another origin can send without
//     asking first (CORS preflight), which the listener never grants.
//
// A request without Origin or Sec-Fetch-Site is not a browser's (browsers
// send Origin with every request but GET and HEAD): curl, scripts and
// test helpers are served as before, whatever their content type. Every
// answer forbids framing and type sniffing.
package admin

import (
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/lazuli-storage/lazuli/internal/base/clock"
	"github.com/lazuli-storage/lazuli/internal/engine/store"
	"github.com/lazuli-storage/lazuli/internal/frame/fault"
	"github.com/lazuli-storage/lazuli/internal/rule/auth"
	"github.com/lazuli-storage/lazuli/internal/rule/fetchguard"
)

// Options is what the admin API acts on.
type Options struct {
	Store    store.Store
	Accounts *auth.Accounts
	// Clock is the server's clock; the clock endpoints answer 501 when it
	// cannot be moved.
	Clock  clock.Clock
	Faults *fault.Set
	// Token, when set, admits callers from other hosts that present it as
	// "Authorization: Bearer <token>".
	Token string
	// Hosts are further names (or addresses) the listener answers to, on
	// any port (--adminHosts).
	Hosts  []string
	Logger *slog.Logger
	// Fresh, when set, gives a reset account what every new account has
	// (its $logs container); nil adds nothing.
	Fresh func(ctx context.Context, account string) error
}

// Handler is the admin API.
type Handler struct {
	opts      Options
	mux       *http.ServeMux
	hosts     map[string]bool
	csrfToken string
}

// New builds the admin API.
func New(opts Options) *Handler {
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	h := &Handler{opts: opts, mux: http.NewServeMux(), hosts: map[string]bool{}, csrfToken: newCSRFToken()}
	for _, name := range opts.Hosts {
		h.hosts[strings.ToLower(strings.Trim(name, "[]"))] = true
	}
	h.mux.HandleFunc("GET /clock", h.getClock)
	h.mux.HandleFunc("POST /clock/advance", h.advanceClock)
	h.mux.HandleFunc("POST /clock/pin", h.pinClock)
	h.mux.HandleFunc("POST /clock/release", h.releaseClock)
	h.mux.HandleFunc("GET /faults", h.listFaults)
	h.mux.HandleFunc("POST /faults", h.addFault)
	h.mux.HandleFunc("DELETE /faults", h.clearFaults)
	h.mux.HandleFunc("DELETE /faults/{id}", h.removeFault)
	h.mux.HandleFunc("POST /reset", h.reset)
	h.mux.HandleFunc("GET /healthz", h.healthz)
	h.mux.HandleFunc("GET /readyz", h.readyz)
	h.mux.HandleFunc("GET /csrf", h.csrf)
	return h
}

// Handle adds a route to the admin listener (observability, the console).
func (h *Handler) Handle(pattern string, handler http.Handler) { h.mux.Handle(pattern, handler) }

// ServeHTTP admits the caller, keeps other sites' pages out, then routes.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	secureHeaders(w.Header())
	// The server's own copy fetch is made on a storage caller's behalf,
	// from loopback: it is never an admin caller, token or not.
	if r.Header.Get(fetchguard.OwnFetchHeader) != "" {
		writeError(w, http.StatusForbidden, "the admin listener is never a copy source")
		return
	}
	byToken := h.tokenGiven(r)
	if !byToken && !fromLoopback(r) {
		writeError(w, http.StatusForbidden, "the admin API serves loopback callers only; others need --adminToken and \"Authorization: Bearer <token>\"")
		return
	}
	// A rebound page cannot present the token: it does not know it, and
	// the browser keeps the cookie for the name that set it.
	if !byToken && !h.ownHost(r) {
		writeError(w, http.StatusMisdirectedRequest, fmt.Sprintf("the admin listener does not answer to host %q; add it with --adminHosts if it is this server's name", r.Host))
		return
	}
	if why := h.crossSite(r); why != "" {
		writeError(w, http.StatusForbidden, why)
		return
	}
	if q := r.URL.Query().Get("token"); q != "" && h.tokenMatches(q) {
		http.SetCookie(w, &http.Cookie{Name: tokenCookie, Value: q, Path: "/", HttpOnly: true, SameSite: http.SameSiteStrictMode})
	}
	h.mux.ServeHTTP(w, r)
}

// tokenCookie carries the token for a browser, which cannot send a bearer
// header: the console's first visit passes ?token=, which sets it.
const tokenCookie = "lazuli_admin_token"

// tokenGiven reports whether the caller presents the token: as a bearer
// header, a ?token= query (which also sets the cookie) or the cookie.
func (h *Handler) tokenGiven(r *http.Request) bool {
	if h.opts.Token == "" {
		return false
	}
	given, _ := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if q := r.URL.Query().Get("token"); q != "" {
		given = q
	} else if c, err := r.Cookie(tokenCookie); err == nil && given == "" {
		given = c.Value
	}
	return h.tokenMatches(given)
}

// fromLoopback: callers on this machine need no token.
func fromLoopback(r *http.Request) bool {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return false
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

func (h *Handler) tokenMatches(given string) bool {
	return given != "" && subtle.ConstantTimeCompare([]byte(given), []byte(h.opts.Token)) == 1
}

// writeJSON answers v as JSON with status.
func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	_ = enc.Encode(v)
}

// writeError answers {"error": msg}.
func writeError(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, map[string]string{"error": msg})
}

// clockResponse is every clock endpoint's answer.
type clockResponse struct {
	Now string `json:"now"`
}

func (h *Handler) answerClock(w http.ResponseWriter) {
	writeJSON(w, http.StatusOK, clockResponse{Now: h.opts.Clock.Now().Format(time.RFC3339Nano)})
}

func (h *Handler) getClock(w http.ResponseWriter, _ *http.Request) { h.answerClock(w) }

// adjustable returns the clock if it can be moved, answering 501 if not.
func (h *Handler) adjustable(w http.ResponseWriter) (clock.Adjustable, bool) {
	c, ok := h.opts.Clock.(clock.Adjustable)
	if !ok {
		writeError(w, http.StatusNotImplemented, fmt.Sprintf("the server's clock (%T) cannot be moved", h.opts.Clock))
	}
	return c, ok
}

func (h *Handler) advanceClock(w http.ResponseWriter, r *http.Request) {
	c, ok := h.adjustable(w)
	if !ok {
		return
	}
	by, err := time.ParseDuration(r.URL.Query().Get("by"))
	if err != nil || by < 0 {
		writeError(w, http.StatusBadRequest, "by must be a non-negative Go duration such as 90s, 15m or 36h")
		return
	}
	c.Advance(by)
	h.opts.Logger.Info("admin: clock advanced", "by", by)
	h.answerClock(w)
}

func (h *Handler) pinClock(w http.ResponseWriter, r *http.Request) {
	c, ok := h.adjustable(w)
	if !ok {
		return
	}
	at, err := time.Parse(time.RFC3339Nano, r.URL.Query().Get("at"))
	if err != nil {
		writeError(w, http.StatusBadRequest, "at must be an RFC 3339 instant such as 2030-01-02T03:04:05Z")
		return
	}
	c.Pin(at)
	h.opts.Logger.Info("admin: clock pinned", "at", at)
	h.answerClock(w)
}

func (h *Handler) releaseClock(w http.ResponseWriter, _ *http.Request) {
	c, ok := h.adjustable(w)
	if !ok {
		return
	}
	c.Release()
	h.answerClock(w)
}

func (h *Handler) listFaults(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, map[string][]fault.Rule{"rules": h.opts.Faults.List()})
}

func (h *Handler) addFault(w http.ResponseWriter, r *http.Request) {
	var rule fault.Rule
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, 1<<16))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&rule); err != nil {
		writeError(w, http.StatusBadRequest, "the body must be one fault rule as JSON: "+err.Error())
		return
	}
	if rule.Service != "" && !knownService(rule.Service) {
		writeError(w, http.StatusBadRequest, fmt.Sprintf("service %q: want blob, queue, table or file", rule.Service))
		return
	}
	added, err := h.opts.Faults.Add(rule)
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	h.opts.Logger.Info("admin: fault rule added", "id", added.ID)
	writeJSON(w, http.StatusCreated, added)
}

func knownService(s string) bool {
	switch s {
	case "blob", "queue", "table", "file":
		return true
	}
	return false
}

func (h *Handler) clearFaults(w http.ResponseWriter, _ *http.Request) {
	h.opts.Faults.Clear()
	writeJSON(w, http.StatusOK, map[string][]fault.Rule{"rules": {}})
}

func (h *Handler) removeFault(w http.ResponseWriter, r *http.Request) {
	var id int
	if _, err := fmt.Sscan(r.PathValue("id"), &id); err != nil || !h.opts.Faults.Remove(id) {
		writeError(w, http.StatusNotFound, fmt.Sprintf("no fault rule %q", r.PathValue("id")))
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// resetResponse is the answer to POST /reset.
type resetResponse struct {
	Account string `json:"account,omitempty"`
	Records int    `json:"records"`
}

func (h *Handler) reset(w http.ResponseWriter, r *http.Request) {
	account := r.URL.Query().Get("account")
	if account != "" {
		if _, ok := h.opts.Accounts.Lookup(account); !ok {
			writeError(w, http.StatusNotFound, fmt.Sprintf("no account %q", account))
			return
		}
	}
	n, err := ResetFresh(r.Context(), h.opts.Store, h.opts.Accounts, account, h.opts.Clock.Now(), h.opts.Fresh)
	if err != nil {
		h.opts.Logger.Error("admin: reset", "account", account, "err", err)
		status := http.StatusInternalServerError
		if errors.Is(err, context.Canceled) {
			status = http.StatusServiceUnavailable
		}
		writeError(w, status, "reset failed: "+err.Error())
		return
	}
	h.opts.Logger.Info("admin: reset", "account", account, "records", n)
	writeJSON(w, http.StatusOK, resetResponse{Account: account, Records: n})
}
