package dfs

import (
	"context"
	"log/slog"
	"net/http"
	"strings"

	"github.com/lazuli-storage/lazuli/internal/base/clock"
	"github.com/lazuli-storage/lazuli/internal/engine/extent"
	"github.com/lazuli-storage/lazuli/internal/engine/store"
	"github.com/lazuli-storage/lazuli/internal/frame/request"
	"github.com/lazuli-storage/lazuli/internal/frame/route"
	"github.com/lazuli-storage/lazuli/internal/frame/server"
	"github.com/lazuli-storage/lazuli/internal/rule/auth"
	"github.com/lazuli-storage/lazuli/internal/rule/azerr"
	"github.com/lazuli-storage/lazuli/internal/service/blob"
	"github.com/lazuli-storage/lazuli/internal/service/blobdata"
)

// Service is the Data Lake (dfs) API over the Blob service's records.
type Service struct {
	store  store.Store
	clock  clock.Clock
	logger *slog.Logger
	// blobs serves the operations that are Blob ones on a rewritten
	// request (filesystem create, delete, properties; errors.go).
	blobs *blob.Service
	// hns are the accounts with a hierarchical namespace (--hnsAccounts).
	hns map[string]bool
	// versioningDefault is --blobVersioning, for the history a path's
	// replacement keeps.
	versioningDefault bool
	routes            route.Table

	// extents holds the data Path - Update appends (append.go).
	extents extent.Engine
	// authn authenticates the credentials a request carries for another
	// resource than its own: a rename source's SAS.
	authn *auth.Authenticator
	// names are the user principal names recorded, for rememberUPN.
	names knownNames
}

// New builds the dfs API beside blobs, on the host's storage.
func New(d server.Deps, blobs *blob.Service) *Service {
	s := &Service{store: store.Checked(d.Store), clock: d.Clock, extents: d.Extents, logger: d.Logger, blobs: blobs, hns: map[string]bool{},
		versioningDefault: d.BlobVersioning}
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
	// A source's SAS window is judged by the service clock, as the
	// request's own SAS is; request dates by the wall clock.
	s.authn = &auth.Authenticator{Accounts: accounts, Clock: s.clock, RequestClock: clock.Real{}, Logger: s.logger, OAuth: d.OAuth}
	for _, name := range d.HNSAccounts {
		s.hns[name] = true
	}
	s.routes = s.table()
	return s
}

// Routes is the dfs route table: its operations and who may call each.
func (s *Service) Routes() route.Table { return s.routes }

// target is the filesystem and path a dfs request addresses.
type target struct {
	Filesystem, Path string
}

type ctxTarget struct{}

// parsePath splits the resource path into filesystem and path; a path's
// trailing slash is not part of its name.
func parsePath(p string) (target, route.Level) {
	p = strings.TrimPrefix(p, "/")
	if p == "" {
		return target{}, route.Service
	}
	fs, name, _ := strings.Cut(p, "/")
	name = strings.Trim(name, "/")
	if name == "" {
		return target{Filesystem: fs}, route.Container
	}
	return target{Filesystem: fs, Path: name}, route.Object
}

// Handle routes an authenticated dfs request to its operation.
func (s *Service) Handle(w http.ResponseWriter, r *http.Request) error {
	t, level := parsePath(request.Of(r).Path)
	rule, err := s.routes.Match(r, level)
	if err != nil {
		return err
	}
	if err := refuseAnonymous(r); err != nil {
		return err
	}
	if r, err = s.checkPathACL(r, dfsQuestions(r, rule.Op, t)); err != nil {
		return err
	}
	if err := route.Authorize(r, s.authTarget(r, t)); err != nil {
		return err
	}
	if err := s.flatAccountFeatures(r); err != nil {
		return err
	}
	return rule.Handle(w, r.WithContext(context.WithValue(r.Context(), ctxTarget{}, t)))
}

// refuseAnonymous is 401 NoAuthenticationInformation for a caller with no
// credentials: no dfs operation is open to one, a filesystem's public
// access level opening its blobs to the Blob API alone (azure-sdk-for-
// python issue 25476: get_paths of a container with public access
// answers an authentication error where its blobs download), and a
// private filesystem's existence is not told by a 404.
func refuseAnonymous(r *http.Request) error {
	if id := request.Of(r).Identity; id == nil || id.Kind == auth.Anonymous {
		return azerr.New(azerr.NoAuthenticationInformation)
	}
	return nil
}

// authTarget is the filesystem and path a request addresses, for the
// authorizer, with the filesystem's stored access policies (service SAS
// with si=) read when asked.
func (s *Service) authTarget(r *http.Request, t target) auth.Target {
	return blobdata.AuthTarget(r.Context(), s.store, request.Of(r).Account, t.Filesystem, t.Path)
}

// hnsAccount reports whether the request's account has a hierarchical
// namespace.
func (s *Service) hnsAccount(r *http.Request) bool { return s.hns[request.Of(r).Account] }

// Endpoint is the Blob endpoint's service: the Blob API and the dfs API on
// one port, told apart per request by IsRequest.
type Endpoint struct {
	Blob *blob.Service
	DFS  *Service
}

// Mount returns the Blob endpoint serving both blobs's API and the dfs API.
func Mount(blobs *blob.Service, d server.Deps) *Endpoint {
	return &Endpoint{Blob: blobs, DFS: New(d, blobs)}
}

// Name is the Blob service's: dfs requests are signed and authorized as
// Blob ones (Shared Key canonicalization, SAS ss=b).
func (e *Endpoint) Name() auth.Service { return auth.Blob }

// Handle serves r with the dfs API or the Blob API.
func (e *Endpoint) Handle(w http.ResponseWriter, r *http.Request) error {
	e.DFS.rememberUPN(r)
	if IsRequest(r) {
		return dfsError(e.DFS.Handle(w, r))
	}
	r, err := e.DFS.checkBlobACL(r)
	if err != nil {
		return err
	}
	return e.Blob.Handle(e.withResourceType(w, r), r)
}

// ErrorFormat is JSON for dfs operations and XML for Blob ones.
func (e *Endpoint) ErrorFormat(r *http.Request) azerr.Format {
	if IsRequest(r) {
		return azerr.DataLake
	}
	return azerr.XML
}

// Run runs the Blob service's background work.
func (e *Endpoint) Run(ctx context.Context) { e.Blob.Run(ctx) }
