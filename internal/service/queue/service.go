package queue

import (
	"errors"
	"log/slog"
	"net/http"
	"strconv"
	"strings"

	"github.com/lazuli-storage/lazuli/internal/base/clock"
	"github.com/lazuli-storage/lazuli/internal/engine/store"
	"github.com/lazuli-storage/lazuli/internal/frame/request"
	"github.com/lazuli-storage/lazuli/internal/frame/route"
	"github.com/lazuli-storage/lazuli/internal/frame/server"
	"github.com/lazuli-storage/lazuli/internal/rule/auth"
	"github.com/lazuli-storage/lazuli/internal/rule/azerr"
)

// Service is the Queue service. It is safe for concurrent use.
type Service struct {
	store    store.Store
	clock    clock.Clock
	log      *slog.Logger
	routes   route.Table
	accounts *auth.Accounts // for the user delegation keys it derives
	reaper   reaper         // expired messages to remove (reaper.go)
}

// New builds the Queue service on the host's store and clock.
func New(d server.Deps) (*Service, error) {
	if d.Store == nil {
		return nil, errors.New("queue: no store")
	}
	s := &Service{store: d.Store, clock: d.Clock, log: d.Logger, accounts: d.Accounts, reaper: newReaper()}
	if s.accounts == nil {
		s.accounts = auth.DevAccounts()
	}
	if s.clock == nil {
		s.clock = clock.Real{}
	}
	if s.log == nil {
		s.log = slog.Default()
	}
	s.routes = s.table()
	return s, nil
}

// Name is the queue service.
func (s *Service) Name() auth.Service { return auth.Queue }

// Levels of a queue request path beyond the service and the queue.
const (
	levelMessages = route.Object     // /queue/messages
	levelMessage  = route.Object + 1 // /queue/messages/{id}
)

// target is what a request path addresses.
type target struct {
	level   route.Level
	queue   string
	message string // message id, at levelMessage
}

// parseTarget splits the resource path after the account:
// "" | "/" | "/q" | "/q/messages" | "/q/messages/{id}".
func parseTarget(path string) (target, error) {
	path = strings.TrimPrefix(path, "/")
	if path == "" {
		return target{level: route.Service}, nil
	}
	queue, rest, _ := strings.Cut(path, "/")
	t := target{level: route.Container, queue: queue}
	if rest == "" {
		return t, checkName(queue)
	}
	sub, id, _ := strings.Cut(rest, "/")
	if sub != "messages" || strings.Contains(id, "/") {
		return t, azerr.New(azerr.InvalidUri)
	}
	if err := checkName(queue); err != nil {
		return t, err
	}
	t.level, t.message = levelMessages, id
	if id != "" {
		t.level = levelMessage
	}
	return t, nil
}

// Handle routes an authenticated request to its operation.
func (s *Service) Handle(w http.ResponseWriter, r *http.Request) error {
	t, err := parseTarget(request.Of(r).Path)
	if err != nil {
		return err
	}
	rule, err := s.routes.Match(r, t.level)
	if err != nil {
		return err
	}
	if err := route.Authorize(r, s.authTarget(r, t)); err != nil {
		return err
	}
	return rule.Handle(w, r)
}

// op adapts an operation that needs the parsed target to a route handler.
// The path was already validated by Handle, so parsing it again cannot fail.
func op(fn func(w http.ResponseWriter, r *http.Request, t target) error) route.Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		t, err := parseTarget(request.Of(r).Path)
		if err != nil {
			return err
		}
		return fn(w, r, t)
	}
}

// authTarget is the queue a request addresses, for the authorizer. A
// service SAS naming a stored access policy has it looked up in the
// queue's ACL.
func (s *Service) authTarget(r *http.Request, t target) auth.Target {
	a := auth.Target{Service: auth.Queue, Container: t.queue}
	if t.queue != "" {
		account := request.Of(r).Account
		a.Policy = func(id string) (*auth.AccessPolicy, error) {
			return s.lookupPolicy(r, account, t.queue, id)
		}
	}
	return a
}

// writeEmpty answers a successful operation without a body.
func writeEmpty(w http.ResponseWriter, status int) error {
	if status != http.StatusNoContent {
		w.Header().Set("Content-Length", "0")
	}
	w.WriteHeader(status)
	return nil
}

// writeXML answers with an XML body.
func writeXML(w http.ResponseWriter, r *http.Request, status int, body []byte) error {
	h := w.Header()
	h.Set("Content-Type", "application/xml")
	h.Set("Content-Length", itoa(len(body)))
	w.WriteHeader(status)
	if r.Method != http.MethodHead {
		_, _ = w.Write(body)
	}
	return nil
}

func itoa(n int) string { return strconv.Itoa(n) }

// Routes is the service's route table: its operations and who may call
// each (the authorization tests walk it).
func (s *Service) Routes() route.Table { return s.routes }
