// Package server runs Lazuli's listeners and the middleware chain every
// service shares: request id, Date and Server headers, the account from the
// host or path, x-ms-version checking, CORS (preflight and response headers),
// authentication, panic recovery, access logging, Storage Analytics
// logging, and the one place errors are rendered.
package server

import (
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"regexp"
	"strings"
	"time"

	"github.com/lazuli-storage/lazuli/internal/base/clock"
	"github.com/lazuli-storage/lazuli/internal/base/guid"
	"github.com/lazuli-storage/lazuli/internal/engine/store"
	"github.com/lazuli-storage/lazuli/internal/frame/analytics"
	"github.com/lazuli-storage/lazuli/internal/frame/fault"
	"github.com/lazuli-storage/lazuli/internal/frame/request"
	"github.com/lazuli-storage/lazuli/internal/rule/auth"
	"github.com/lazuli-storage/lazuli/internal/rule/azerr"
	"github.com/lazuli-storage/lazuli/internal/rule/svcprops"
)

// NewestVersion is the newest x-ms-version accepted without
// --skipApiVersionCheck.
const NewestVersion = "2027-03-07"

// Service is what a storage service plugs into the shared chain.
type Service interface {
	// Name is the service: it selects the auth canonicalisation, the
	// error format and the service properties used for CORS.
	Name() auth.Service
	// Handle serves an authenticated request whose request.Info is in the
	// context. A returned error is rendered by the chain.
	Handle(w http.ResponseWriter, r *http.Request) error
}

// ErrorFormatter is implemented by a service whose requests do not all
// answer errors in one format: the Blob endpoint also serves the Data Lake
// (dfs) API, whose errors are JSON (service/dfs).
type ErrorFormatter interface {
	ErrorFormat(r *http.Request) azerr.Format
}

// Background is implemented by a service with work of its own to do while
// it runs (the queue's reaper of expired messages): the host calls Run in a
// goroutine and cancels ctx at shutdown.
type Background interface {
	Run(ctx context.Context)
}

// Options configure the chain.
type Options struct {
	Store                  store.Store
	Auth                   *auth.Authenticator
	Clock                  clock.Clock
	SkipAPIVersionCheck    bool
	DisableProductStyleURL bool
	// Logger receives internal faults (500s, panics); nil is slog.Default().
	Logger *slog.Logger
	// AccessLog receives one line per request; nil for none.
	AccessLog *slog.Logger
	// BodyTimeout and WriteTimeout bound how long a request body may stop
	// arriving and a response stop being read (limits.go); 0 for no bound.
	BodyTimeout, WriteTimeout time.Duration
	// MinBodyRate, in bytes a second, is the average rate a request body
	// must keep once BodyRateGrace has passed (limits.go); 0 for none.
	MinBodyRate   int64
	BodyRateGrace time.Duration
	// Faults are the test-control API's fault rules; nil for none.
	Faults *fault.Set
	// Observer learns every answered request (metrics); nil for none.
	Observer Observer
	// Analytics receives the Storage Analytics log entries of the Blob,
	// Queue and Table services (analytics.go); nil for none.
	Analytics *analytics.Logger
	// RequireTLS refuses a request that did not come over TLS with 400
	// AccountRequiresHttps: the listeners serve HTTPS, and a client that
	// speaks plain HTTP to them gets Azure's answer (plainhttp.go).
	RequireTLS bool
}

// Observer is told about every answered request: its service, operation
// (route table name, "" when unrouted), status, Azure error code, request
// and response body bytes, and wall-clock duration.
type Observer interface {
	Request(service, operation string, status int, code string, in, out int64, d time.Duration)
}

// ErrorFormat is the error body format of a service.
func ErrorFormat(svc auth.Service) azerr.Format {
	if svc == auth.Service("table") {
		return azerr.OData
	}
	return azerr.XML
}

// Handler wraps svc in the shared middleware chain.
func Handler(svc Service, opts Options) http.Handler {
	if opts.Clock == nil {
		opts.Clock = clock.Real{}
	}
	return &chain{svc: svc, opts: opts,
		errors:       azerr.Renderer{Format: ErrorFormat(svc.Name()), Logger: opts.Logger, Clock: opts.Clock},
		props:        svcprops.NewCache(opts.Store, svcprops.CacheLifetime),
		serverHeader: []string{"Lazuli-" + strings.ToUpper(string(svc.Name())[:1]) + string(svc.Name())[1:] + "/1.0"}}
}

type chain struct {
	svc    Service
	opts   Options
	errors azerr.Renderer
	// serverHeader is the Server header's value, shared by every answer
	// (net/http only reads header values).
	serverHeader []string
	// date is the Date header's value, formatted once a second.
	date dateHeader
	// props serves the CORS rules every GET and HEAD consults.
	props *svcprops.Cache
}

// statusWriter remembers the status for the access log.
type statusWriter struct {
	http.ResponseWriter
	status int
	bytes  int64
	// began is wall time, for the logged duration: info.Start comes from
	// the injectable clock, which tests move freely.
	began time.Time
	// faultRule is the fault rule that acted on the request (0: none);
	// cut is set when it closes the connection mid-body (faults.go), after
	// budget bytes (-1 until the body starts).
	faultRule int
	cut       bool
	budget    int64
	// writeTimeout bounds each write of the response (limits.go).
	writeTimeout time.Duration
}

func (s *statusWriter) WriteHeader(code int) {
	if s.cut {
		s.cutWriteHeader(code)
		return
	}
	if s.status == 0 {
		s.status = code
	}
	s.ResponseWriter.WriteHeader(code)
}

func (s *statusWriter) Write(b []byte) (int, error) {
	if s.cut {
		return s.cutWrite(b)
	}
	if s.status == 0 {
		s.status = http.StatusOK
	}
	s.extendWrite()
	n, err := s.ResponseWriter.Write(b)
	s.bytes += int64(n)
	return n, err
}

// ReadFrom keeps the connection's zero-copy path (sendfile) reachable for
// handlers that stream files.
func (s *statusWriter) ReadFrom(r io.Reader) (int64, error) {
	if s.cut {
		return io.Copy(writerOnly{s}, r)
	}
	if s.status == 0 {
		s.status = http.StatusOK
	}
	n, err := s.copyInChunks(s.ResponseWriter, r)
	s.bytes += n
	return n, err
}

// Unwrap lets http.ResponseController reach the connection.
func (s *statusWriter) Unwrap() http.ResponseWriter { return s.ResponseWriter }

// requestState is the chain's state for one request, allocated at once.
type requestState struct {
	w    statusWriter
	info request.Info
	body countingBody
	id   [1]string // the x-ms-request-id header's value
}

func (c *chain) ServeHTTP(rw http.ResponseWriter, r *http.Request) {
	ex := &requestState{w: statusWriter{ResponseWriter: rw, began: time.Now(), budget: -1, writeTimeout: c.opts.WriteTimeout},
		// A batch's sub-request comes back through the chain with the
		// batch's Info in its context: that is its parent.
		info: request.Info{ID: guid.New(), Start: c.opts.Clock.Now(), Chain: c, Parent: request.From(r.Context())}}
	w, info := &ex.w, &ex.info
	if c.opts.Faults != nil {
		info.Routed = c.routedHook(w, r, info)
	}
	// The body is wrapped on the copy of the request that carries info:
	// net/http decides from the original's body type whether an unread body
	// may be discarded after the answer or must close the connection.
	progress := c.limitBody(rw, r)
	r = r.WithContext(request.With(r.Context(), info))
	if progress != nil {
		r.Body = progress
	}
	ex.body.ReadCloser = r.Body
	body := &ex.body
	r.Body = body
	h := w.Header()
	ex.id[0] = info.ID
	h[requestIDKey] = ex.id[:]
	h["Server"] = c.serverHeader
	h["Date"] = c.date.of(info.Start)
	if id := r.Header.Get("X-Ms-Client-Request-Id"); id != "" {
		h.Set("X-Ms-Client-Request-Id", id)
	}
	defer func() {
		if p := recover(); p != nil {
			if p == http.ErrAbortHandler {
				c.logAccess(r, w, info)
				c.observe(w, info, body.n)
				panic(p)
			}
			c.renderer(r).Panic(w, r, p, w.status != 0)
		}
		c.logAccess(r, w, info)
		c.observe(w, info, body.n)
		c.recordAnalytics(r, w, info, body.n)
	}()
	err := c.serve(w, r, info)
	if progress.timedOut() && w.status == 0 {
		err = bodyTimedOut(w)
	}
	if err != nil && !w.cut {
		c.renderer(r).Write(w, r, err)
	}
	if w.cut {
		// A fault rule cut the response: drop the connection.
		panic(http.ErrAbortHandler)
	}
}

// renderer is the error renderer of r: the service's, in the format the
// service picks for r when it picks one per request (ErrorFormatter).
func (c *chain) renderer(r *http.Request) azerr.Renderer {
	rd := c.errors
	if f, ok := c.svc.(ErrorFormatter); ok {
		rd.Format = f.ErrorFormat(r)
	}
	return rd
}

func (c *chain) serve(w http.ResponseWriter, r *http.Request, info *request.Info) error {
	if c.opts.RequireTLS && r.TLS == nil {
		return azerr.New(azerr.AccountRequiresHttps)
	}
	if err := c.resolveAccount(r, info); err != nil {
		return err
	}
	if err := c.checkVersion(r, info); err != nil {
		return err
	}
	w.Header().Set("X-Ms-Version", info.Version)
	if r.Method == http.MethodOptions {
		return c.preflight(w, r, info)
	}
	id, err := c.opts.Auth.Authenticate(r, c.svc.Name(), info.Account)
	if err != nil {
		return err
	}
	info.Identity = id
	if origin := r.Header.Get("Origin"); svcprops.ActualApplies(origin, r.Method) {
		c.corsHeaders(w, r, info, origin)
	}
	return c.svc.Handle(w, r)
}

var versionPattern = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}$`)

// checkVersion accepts versions up to NewestVersion and echoes the request's.
func (c *chain) checkVersion(r *http.Request, info *request.Info) error {
	v := r.Header.Get("X-Ms-Version")
	if v == "" && info.Parent != nil {
		// A batch's sub-request is of the batch's version (checked
		// already), whatever version its SAS was signed with.
		info.Version = info.Parent.Version
		return nil
	}
	if v == "" {
		// SAS requests carry their version in sv (or api-version).
		v = r.URL.Query().Get("api-version")
		if v == "" {
			v = r.URL.Query().Get("sv")
		}
	}
	if v == "" {
		info.Version = NewestVersion
		return nil
	}
	info.Version = v
	if c.opts.SkipAPIVersionCheck {
		return nil
	}
	if !versionPattern.MatchString(v) || v > NewestVersion {
		return azerr.Newf(azerr.InvalidHeaderValue,
			"The API version %s is not supported by Lazuli. Lazuli supports API versions up to %s; use --skipApiVersionCheck to accept any.",
			v, NewestVersion).With("HeaderName", "x-ms-version").With("HeaderValue", v)
	}
	return nil
}

// resolveAccount takes the account from a production-style host
// (account.blob.localhost) or else from the first path segment.
func (c *chain) resolveAccount(r *http.Request, info *request.Info) error {
	path := r.URL.Path
	if acct, secondary, ok := c.hostAccount(r.Host); ok {
		info.Account, info.Path, info.Secondary = acct, path, secondary
		return nil
	}
	trimmed := strings.TrimPrefix(path, "/")
	acct, rest, _ := strings.Cut(trimmed, "/")
	acct, info.Secondary = cutSecondary(acct)
	if acct == "" {
		return azerr.New(azerr.InvalidUri)
	}
	if _, ok := c.opts.Auth.Accounts.Lookup(acct); !ok {
		if acct, ok := c.renameSourceAccount(r); ok {
			info.Account, info.PathStyle, info.Path = acct, true, path
			return nil
		}
		// Azure has no such request (its accounts are host names); this
		// is Azurite's answer, so that code written against it runs.
		return azerr.Newf(azerr.InvalidOperation, "Invalid storage account.")
	}
	info.Account, info.PathStyle = acct, true
	if rest != "" || strings.HasSuffix(trimmed, "/") {
		info.Path = "/" + rest
	}
	return nil
}

// renameSourceAccount is the account of a path-style dfs rename whose
// path lacks it: the JavaScript DataLake SDK's move (DataLakePathClient
// .move, @azure/storage-file-datalake 12.29) replaces the whole URL path
// by /filesystem/path, dropping an emulator URL's account segment, while
// its x-ms-rename-source keeps /account/filesystem/path; it signs the
// request as the account's, so authentication decides as for any other.
func (c *chain) renameSourceAccount(r *http.Request) (string, bool) {
	source := strings.TrimPrefix(r.Header.Get("x-ms-rename-source"), "/")
	acct, _, found := strings.Cut(source, "/")
	if !found || r.Method != http.MethodPut {
		return "", false
	}
	_, known := c.opts.Auth.Accounts.Lookup(acct)
	return acct, known
}

// hostAccount takes the account, and whether its secondary endpoint was
// named, from a production-style host name.
func (c *chain) hostAccount(host string) (account string, secondary, ok bool) {
	if c.opts.DisableProductStyleURL {
		return "", false, false
	}
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	if net.ParseIP(host) != nil {
		return "", false, false
	}
	label, rest, found := strings.Cut(host, ".")
	if !found || rest == "" {
		return "", false, false
	}
	label, secondary = cutSecondary(label)
	_, known := c.opts.Auth.Accounts.Lookup(label)
	return label, secondary, known
}

// cutSecondary strips the "-secondary" suffix that names an account's
// read-only geo-replica endpoint.
func cutSecondary(name string) (account string, secondary bool) {
	account, secondary = strings.CutSuffix(name, "-secondary")
	return account, secondary
}

func (c *chain) preflight(w http.ResponseWriter, r *http.Request, info *request.Info) error {
	origin := r.Header.Get("Origin")
	method := r.Header.Get("Access-Control-Request-Method")
	if origin == "" {
		return azerr.MissingHeader("Origin")
	}
	if method == "" {
		return azerr.MissingHeader("Access-Control-Request-Method")
	}
	props, err := svcprops.Get(r.Context(), c.opts.Store, info.Account, string(c.svc.Name()))
	if err != nil {
		return err
	}
	out, ok := props.Preflight(r.Header, origin, method)
	if !ok {
		return azerr.New(azerr.CorsPreflightFailure)
	}
	for k, v := range out {
		w.Header()[k] = v
	}
	w.WriteHeader(http.StatusOK)
	return nil
}

// corsHeaders adds the CORS response headers the rules give; failures to
// read the rules only cost the headers, never the request.
func (c *chain) corsHeaders(w http.ResponseWriter, r *http.Request, info *request.Info, origin string) {
	props, err := c.props.Get(r.Context(), info.Account, string(c.svc.Name()))
	if err != nil {
		return
	}
	for k, v := range props.Actual(origin, r.Method) {
		w.Header()[k] = v
	}
}

func (c *chain) logAccess(r *http.Request, w *statusWriter, info *request.Info) {
	if c.opts.AccessLog == nil {
		return
	}
	status := w.status
	if status == 0 {
		status = http.StatusOK
	}
	c.opts.AccessLog.LogAttrs(context.Background(), slog.LevelInfo, "request",
		slog.String("service", string(c.svc.Name())),
		slog.String("request_id", info.ID),
		slog.String("operation", info.Op),
		slog.String("method", r.Method),
		slog.String("url", r.URL.RequestURI()),
		slog.Int("status", status),
		slog.String("error_code", errorCode(w.Header())),
		slog.Int64("bytes", w.bytes),
		slog.Duration("duration", time.Since(w.began)),
		faultAttr(w))
}

// faultAttr marks an access-log line whose answer a fault rule injected.
func faultAttr(w *statusWriter) slog.Attr {
	if w.faultRule == 0 {
		return slog.Attr{}
	}
	return slog.Int("fault_rule", w.faultRule)
}
