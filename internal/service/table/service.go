// Package table is Lazuli's Table service: tables, entities with typed
// properties, OData JSON payloads at the three metadata levels, $filter
// queries answered by key-range scans where the filter allows, continuation
// paging, entity group transactions ($batch), table ACLs and service SAS
// key ranges, all on the shared record store.
//
// Tables are records in store.SpaceTable keyed by (account, lower-cased
// name); entities are records in store.SpaceEntity keyed by (account,
// lower-cased table, PartitionKey, RowKey) in the compact binary form of
// record.go. Every request runs one store transaction.
//
// Partitions that queries read whole again and again become tracked: they
// get a version record that every entity write to them bumps in its own
// transaction (version.go, track.go). Queries read the versions of the
// tracked partitions they cover and answer from an in-process cache of
// decoded partitions (partcache.go, with property indexes in partindex.go)
// when it holds them at those versions, so a filter on a non-key property
// does not read and decode every record of a hot partition, and no node
// ever serves rows another node has since changed.
package table

import (
	"context"
	"net/http"

	"github.com/lazuli-storage/lazuli/internal/base/clock"
	"github.com/lazuli-storage/lazuli/internal/engine/store"
	"github.com/lazuli-storage/lazuli/internal/frame/request"
	"github.com/lazuli-storage/lazuli/internal/frame/route"
	"github.com/lazuli-storage/lazuli/internal/frame/server"
	"github.com/lazuli-storage/lazuli/internal/rule/auth"
)

// Service is the Table service.
type Service struct {
	st     store.Store
	clock  clock.Clock
	routes route.Table
	parts  *partCache
}

// New builds the Table service on the host's dependencies.
func New(d server.Deps) (*Service, error) {
	s := &Service{st: d.Store, clock: d.Clock, parts: newPartCache(defaultCacheBytes)}
	if s.clock == nil {
		s.clock = clock.Real{}
	}
	s.routes = s.routeTable()
	return s, nil
}

// Name implements server.Service.
func (s *Service) Name() auth.Service { return auth.Table }

type targetKey struct{}

// Handle implements server.Service: it parses the resource path, finds the
// operation in the route table and runs it.
func (s *Service) Handle(w http.ResponseWriter, r *http.Request) error {
	t, err := parseTarget(request.Of(r).Path)
	if err != nil {
		return err
	}
	rule, err := s.routes.Match(r, t.level)
	if err != nil {
		return err
	}
	if err := route.Authorize(r, s.authTarget(r, t.table)); err != nil {
		return err
	}
	r = r.WithContext(withTarget(r.Context(), t))
	return rule.Handle(w, r)
}

func withTarget(ctx context.Context, t target) context.Context {
	return context.WithValue(ctx, targetKey{}, t)
}

// targetOf is the parsed path of a routed request.
func targetOf(r *http.Request) target {
	t, _ := r.Context().Value(targetKey{}).(target)
	return t
}

// Routes is the service's route table: its operations and who may call
// each (the authorization tests walk it).
func (s *Service) Routes() route.Table { return s.routes }
