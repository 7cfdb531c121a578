package file

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
	"github.com/lazuli-storage/lazuli/internal/frame/changefeed"
	"github.com/lazuli-storage/lazuli/internal/frame/liveness"
	"github.com/lazuli-storage/lazuli/internal/frame/recentdelete"
	"github.com/lazuli-storage/lazuli/internal/frame/request"
	"github.com/lazuli-storage/lazuli/internal/frame/route"
	"github.com/lazuli-storage/lazuli/internal/frame/server"
	"github.com/lazuli-storage/lazuli/internal/rule/auth"
	"github.com/lazuli-storage/lazuli/internal/rule/azerr"
	"github.com/lazuli-storage/lazuli/internal/rule/fetchguard"
	"github.com/lazuli-storage/lazuli/internal/rule/locks"
)

// Resource levels of the File service's route table.
const (
	levelService = route.Service
	levelShare   = route.Container
	levelFile    = route.Object
	levelDir     = route.Object + 1
)

// Service is the File service.
type Service struct {
	store    store.Store
	extents  extent.Engine
	clock    clock.Clock
	logger   *slog.Logger
	accounts *auth.Accounts
	// byteLocks are the byte-range locks SMB clients hold (nil: none).
	byteLocks *locks.Table
	// live judges the nodes holding SMB opens (nil: all alive).
	live *liveness.Registry
	// changes is rung after requests that may write (SMB CHANGE_NOTIFY).
	changes *changefeed.Feed
	// authn verifies the signatures in copy source URLs.
	authn  *auth.Authenticator
	routes route.Table
	// premium are the accounts that may create NFS shares (nfs.go).
	premium map[string]bool
	// sources is the copy-source host policy (--copySourceAllow) and
	// fetcher the HTTP client that keeps to it, for blob sources.
	sources *fetchguard.Guard
	fetcher *http.Client
	// recentlyDeleted answers a repeat Delete of a container or share as
	// Azure's asynchronous deletion does (frame/recentdelete).
	recentlyDeleted *recentdelete.Names
}

// New builds the File service on the host's storage.
func New(d server.Deps) (*Service, error) {
	if d.Store == nil || d.Extents == nil {
		return nil, errors.New("file: a store and an extent engine are required")
	}
	s := &Service{store: d.Store, extents: d.Extents, clock: d.Clock, logger: d.Logger, accounts: d.Accounts,
		byteLocks: d.ByteLocks, live: d.Liveness, changes: d.Changes}
	if s.clock == nil {
		s.clock = clock.Real{}
	}
	if s.logger == nil {
		s.logger = slog.Default()
	}
	if s.accounts == nil {
		s.accounts = auth.DevAccounts()
	}
	s.authn = &auth.Authenticator{Accounts: s.accounts, Clock: s.clock, Logger: s.logger, OAuth: d.OAuth}
	s.premium = map[string]bool{}
	for _, name := range d.PremiumAccounts {
		s.premium[name] = true
	}
	s.recentlyDeleted = recentdelete.New()
	s.routes = s.table()
	s.sources = fetchguard.OrLocal(d.CopySources)
	s.fetcher = s.sources.Client(30 * time.Minute)
	return s, nil
}

// Name is the service's name for authentication and error rendering.
func (s *Service) Name() auth.Service { return auth.File }

// target is the resource a request addresses.
type target struct {
	Account  string
	Share    string
	Snapshot string // canonical share snapshot instant, "" for the live share
	Path     filePath
	// live judges whether the nodes holding SMB opens on the entries still
	// run (forgetDeadOpens); nil judges them all alive.
	live *liveness.Registry
}

type ctxTarget struct{}

// targetOf returns the target Handle parsed for r.
func targetOf(r *http.Request) *target {
	t, _ := r.Context().Value(ctxTarget{}).(*target)
	return t
}

// Handle routes an authenticated request to its operation.
func (s *Service) Handle(w http.ResponseWriter, r *http.Request) error {
	t, level, err := parseTarget(r)
	if err != nil {
		return err
	}
	t.live = s.live
	rule, err := s.routes.Match(r, level)
	if err != nil {
		return err
	}
	if err := route.Authorize(r, s.authTarget(r, t)); err != nil {
		return err
	}
	err = rule.Handle(w, r.WithContext(context.WithValue(r.Context(), ctxTarget{}, t)))
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		s.changes.Changed() // SMB watchers look again (a failed write costs them a listing)
	}
	return err
}

// parseTarget splits the resource path into share and path and picks the
// route level: the service, a share (restype=share), a directory
// (restype=directory, or the share's root for handle operations) or a file.
func parseTarget(r *http.Request) (*target, route.Level, error) {
	info := request.Of(r)
	t := &target{Account: info.Account}
	p := strings.TrimPrefix(info.Path, "/")
	if p == "" {
		return t, levelService, nil
	}
	q := r.URL.Query()
	share, rest, _ := strings.Cut(p, "/")
	if err := validShareName(share); err != nil {
		return nil, 0, err
	}
	t.Share = share
	// Snapshot Share ignores sharesnapshot, even one that is no date: a
	// snapshot of a snapshot is a snapshot of the share (the SDK's recorded
	// TestShareCreateSnapshotNegativeSnapshotOfSnapshot).
	snapshotShare := q.Get("restype") == "share" && q.Get("comp") == "snapshot"
	if raw := q.Get("sharesnapshot"); raw != "" && !snapshotShare {
		snap, err := parseSnapshot(raw)
		if err != nil {
			return nil, 0, err
		}
		t.Snapshot = snap
	}
	restype := q.Get("restype")
	if strings.TrimSuffix(rest, "/") == "" && restype != "directory" {
		if restype == "share" {
			return t, levelShare, nil
		}
		// The share's root directory answers the handle operations.
		return t, levelDir, nil
	}
	keepDots := strings.EqualFold(r.Header.Get("X-Ms-Allow-Trailing-Dot"), "true")
	fp, err := parsePath(rest, keepDots)
	if err != nil {
		return nil, 0, err
	}
	t.Path = fp
	if restype == "directory" {
		return t, levelDir, nil
	}
	return t, levelFile, nil
}

// snapshotLayout is the x-ms-snapshot form of a share snapshot instant.
const snapshotLayout = "2006-01-02T15:04:05.0000000Z"

// parseSnapshot reads a sharesnapshot value into its canonical form.
func parseSnapshot(raw string) (string, error) {
	t, err := time.Parse(time.RFC3339Nano, raw)
	if err != nil {
		return "", azerr.InvalidQuery("sharesnapshot", raw, "The share snapshot value is not a valid date-time.")
	}
	return t.UTC().Format(snapshotLayout), nil
}

// now is the service's current time.
func (s *Service) now() time.Time { return s.clock.Now().UTC() }

// authTarget is the share and path a request addresses, for the
// authorizer. Policy lookups read the share's stored access policies in
// their own snapshot, and only when a SAS names one.
func (s *Service) authTarget(r *http.Request, t *target) auth.Target {
	a := auth.Target{Service: auth.File, Container: t.Share, Object: t.Path.String()}
	if t.Share != "" {
		a.Policy = func(si string) (*auth.AccessPolicy, error) { return s.lookupPolicy(r.Context(), t, si) }
	}
	return a
}

// authorizeOverwrite is the check a write that finds its file existing
// makes in its own transaction, as its route row declares (Need.Replace):
// the create permission (c) makes new files only.
func (s *Service) authorizeOverwrite(tx store.Tx, r *http.Request, t *target) error {
	a := s.authTarget(r, t)
	a.Policy = func(si string) (*auth.AccessPolicy, error) { return policyIn(tx, t, si) }
	return route.AuthorizeReplace(r, a)
}

// Routes is the service's route table: its operations and who may call
// each (the authorization tests walk it).
func (s *Service) Routes() route.Table { return s.routes }
