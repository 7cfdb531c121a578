package blob

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/lazuli-storage/lazuli/internal/base/clock"
	"github.com/lazuli-storage/lazuli/internal/engine/extent"
	"github.com/lazuli-storage/lazuli/internal/engine/store"
	"github.com/lazuli-storage/lazuli/internal/frame/recentdelete"
	"github.com/lazuli-storage/lazuli/internal/frame/request"
	"github.com/lazuli-storage/lazuli/internal/frame/route"
	"github.com/lazuli-storage/lazuli/internal/frame/server"
	"github.com/lazuli-storage/lazuli/internal/rule/auth"
	"github.com/lazuli-storage/lazuli/internal/rule/fetchguard"
	"github.com/lazuli-storage/lazuli/internal/service/blobdata"
)

// rootContainer is the container a blob path without a container names.
const rootContainer = "$root"

// Service is the Blob service.
type Service struct {
	store   store.Store
	extents extent.Engine
	clock   clock.Clock
	logger  *slog.Logger
	loose   bool
	routes  route.Table
	// authn authenticates the sub-requests of a Blob Batch, each of
	// which carries its own credentials (batch.go).
	authn *auth.Authenticator
	// sources is the copy-source host policy, and fetcher the HTTP client
	// that enforces it on every connection and redirect (copy_fetch.go).
	sources *fetchguard.Guard
	fetcher *http.Client
	// versioningDefault is blob versioning for accounts whose service
	// properties do not set it (--blobVersioning).
	versioningDefault bool
	// crossAccountCopyRate, in bytes per second, is how fast a copy from
	// another account or server appears to run (copy_pending.go); 0: at once.
	crossAccountCopyRate float64
	// scopes are the encryption scopes every account has (scope.go);
	// premium the accounts that are premium ones (premium.go); hns those
	// with a hierarchical namespace (expiry.go).
	scopes, premium, hns map[string]bool
	// recentlyDeleted answers a repeat Delete of a container or share as
	// Azure's asynchronous deletion does (frame/recentdelete).
	recentlyDeleted *recentdelete.Names
}

// New builds the Blob service on the host's storage.
func New(d server.Deps) (*Service, error) {
	if d.Store == nil || d.Extents == nil {
		return nil, errors.New("blob: a store and an extent engine are required")
	}
	s := &Service{store: store.Checked(d.Store), extents: d.Extents, clock: d.Clock, logger: d.Logger, loose: d.Loose,
		versioningDefault: d.BlobVersioning, crossAccountCopyRate: d.CrossAccountCopyRate * (1 << 20)}
	if s.clock == nil {
		s.clock = clock.Real{}
	}
	if s.logger == nil {
		s.logger = slog.Default()
	}
	accounts := d.Accounts
	if accounts == nil {
		accounts = auth.DevAccounts()
	}
	// Request dates are judged against wall time, as the middleware does.
	s.authn = &auth.Authenticator{Accounts: accounts, Clock: s.clock, RequestClock: clock.Real{}, Logger: s.logger, OAuth: d.OAuth}
	s.sources = fetchguard.OrLocal(d.CopySources)
	s.fetcher = s.sources.Client(30 * time.Minute)
	s.scopes, s.premium, s.hns = map[string]bool{}, map[string]bool{}, map[string]bool{}
	for _, name := range d.EncryptionScopes {
		s.scopes[name] = true
	}
	for _, name := range d.PremiumAccounts {
		s.premium[name] = true
	}
	for _, name := range d.HNSAccounts {
		s.hns[name] = true
	}
	s.recentlyDeleted = recentdelete.New()
	s.routes = s.limitOnHNS(s.table())
	return s, nil
}

// Name is the service's name for authentication and error rendering.
func (s *Service) Name() auth.Service { return auth.Blob }

// target is the resource a request addresses.
type target struct {
	Container, Blob string
}

// ctxTarget carries the parsed target from Handle to the handler.
type ctxTarget struct{}

// withTarget hands t to the handler in r's context.
func withTarget(r *http.Request, t target) *http.Request {
	return r.WithContext(context.WithValue(r.Context(), ctxTarget{}, t))
}

// targetOf returns the container and blob Handle parsed.
func targetOf(r *http.Request) target {
	t, _ := r.Context().Value(ctxTarget{}).(target)
	return t
}

// Handle routes an authenticated request to its operation.
func (s *Service) Handle(w http.ResponseWriter, r *http.Request) error {
	t, level := parsePath(request.Of(r).Path, r)
	if scope, ok := batchScopeOf(r); ok {
		if err := scope.admit(r, t, level); err != nil {
			return err
		}
	}
	rule, err := s.routes.Match(r, level)
	if err != nil {
		return err
	}
	if level == route.Object {
		if err := validBlobName(t.Blob); err != nil {
			return err
		}
	}
	if err := route.Authorize(r, s.authTarget(r, t)); err != nil {
		return err
	}
	r, err = s.withEncryption(r, rule.Op)
	if err != nil {
		return err
	}
	return rule.Handle(w, withTarget(r, t))
}

// parsePath splits the resource path into container and blob. A single
// path segment is a container when the request says restype=container (or
// is a service-wide query), and otherwise a blob of the $root container.
func parsePath(path string, r *http.Request) (target, route.Level) {
	path = strings.TrimPrefix(path, "/")
	if path == "" {
		return target{}, route.Service
	}
	container, blob, hasSlash := strings.Cut(path, "/")
	if hasSlash && blob != "" {
		return target{Container: container, Blob: blobName(blob)}, route.Object
	}
	q := r.URL.Query()
	if hasSlash || q.Get("restype") == "container" || q.Get("restype") == "account" {
		return target{Container: container}, route.Container
	}
	return target{Container: rootContainer, Blob: blobName(container)}, route.Object
}

// blobName is the name a blob path addresses: the service reads "" in a
// blob name as "/" (the JavaScript SDK's recorded "Should work with special
// blob name characters" puts "...\:..." and lists ".../:...").
func blobName(path string) string { return strings.ReplaceAll(path, `\`, "/") }

// Routes is the service's route table: its operations and who may call
// each (the authorization tests walk it).
func (s *Service) Routes() route.Table { return s.routes }

// now is the service clock's time.
func (s *Service) now() time.Time { return s.clock.Now() }

// authTarget is the container and blob a request addresses, for the
// authorizer. The container's stored access policies and public access
// level are read, in their own snapshot, only for the callers that need
// them: a service SAS naming a policy, an anonymous caller.
func (s *Service) authTarget(r *http.Request, t target) auth.Target {
	return blobdata.AuthTarget(r.Context(), s.store, request.Of(r).Account, t.Container, t.Blob)
}

// containerTarget is authTarget with the container record in hand (nil
// when there is none), for a decision inside a transaction.
func containerTarget(t target, c *blobdata.Container) auth.Target {
	return auth.Target{Service: auth.Blob, Container: t.Container, Object: t.Blob, Policy: c.Policy,
		Public: func() (auth.PublicLevel, error) { return c.PublicLevel(), nil }}
}
