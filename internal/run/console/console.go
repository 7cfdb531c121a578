// Package console is the web console on the admin listener's root path: a
// page that shows what every account holds (containers and blobs as
// folders, a page at a time, with their properties, ETags, leases,
// snapshots, versions and tags, and with a hierarchical namespace a tree
// of their directories; queues with every message, invisible ones
// included, and tables with their entities under an OData filter, a page
// at a time; shares and their files), refreshed while a test runs, with the clock and fault rules
// of the test-control API, and the actions of a storage explorer: create
// and delete containers, queues, tables and shares; upload blobs in blocks
// and files in ranges; edit a blob's content headers, metadata, tags and
// tier; sign a service SAS; add, peek, get and delete messages; add, edit
// and delete typed entities.
//
// The page is plain HTML, CSS and JavaScript embedded in the binary; it
// reads JSON from /api/, which reads the services through their own REST
// API (signed requests run in-process through each service's handler), so
// what the console shows is what a client would see. Only queue messages
// come from the store directly, as no REST operation lists invisible ones.
// Its actions are REST calls it composes and the relay (relay.go) signs
// with the account's key: the services apply their own rules to them,
// names, conditions and permissions, and their errors reach the page as
// they answer them.
//
// The admin listener keeps other sites' pages away from the console (see
// package admin); the page sends its actions with the token of /csrf, as
// the listener asks of browsers. A download, and every relayed answer, is
// an attachment of type application/octet-stream in a sandbox, whatever
// the blob's stored Content-Type and Content-Disposition, so that no blob
// can run a script in the console's origin.
package console

import (
	"context"
	"embed"
	"encoding/json"
	"errors"
	"io/fs"
	"net/http"
	"strconv"
	"time"

	"github.com/lazuli-storage/lazuli/internal/base/clock"
	"github.com/lazuli-storage/lazuli/internal/engine/store"
	"github.com/lazuli-storage/lazuli/internal/rule/auth"
	"github.com/lazuli-storage/lazuli/internal/service/queue"
)

//go:embed static
var static embed.FS

// Options is what the console reads.
type Options struct {
	// Services are the services' handlers (with the shared middleware),
	// by name: blob, queue, table, file.
	Services map[string]http.Handler
	// Endpoints are the services' base URLs by name, for the URLs of the
	// SAS the console signs.
	Endpoints map[string]string
	Accounts  *auth.Accounts
	Store     store.Store
	Clock     clock.Clock
}

// Console serves the page and its API.
type Console struct {
	opts Options
}

// New builds the console.
func New(opts Options) *Console { return &Console{opts: opts} }

// Register adds the console's routes to the admin listener's mux.
func (c *Console) Register(handle func(pattern string, h http.Handler)) {
	files, _ := fs.Sub(static, "static")
	handle("GET /{$}", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.ServeFileFS(w, r, files, "index.html")
	}))
	handle("GET /console/", http.StripPrefix("/console/", http.FileServerFS(files)))
	handle("GET /api/overview", c.api(c.overview))
	handle("GET /api/blobs", c.api(c.blobs))
	handle("GET /api/tree", c.api(c.tree))
	handle("GET /api/messages", c.api(c.messages))
	handle("GET /api/entities", c.api(c.entities))
	handle("GET /api/files", c.api(c.files))
	handle("GET /api/download", http.HandlerFunc(c.download))
	handle("POST /api/break-lease", c.api(c.breakLease))
	handle("POST /api/delete-blob", c.api(c.deleteBlob))
	handle("POST /api/clear-queue", c.api(c.clearQueue))
	handle("POST /api/rest/{method}/{service}/{account}/{path...}", http.HandlerFunc(c.relay))
	handle("POST /api/sas", c.api(c.sas))
}

// api adapts a function returning a JSON value.
func (c *Console) api(fn func(r *http.Request) (any, error)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		v, err := fn(r)
		if err != nil {
			writeError(w, statusOf(err), err.Error())
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "no-store")
		_ = json.NewEncoder(w).Encode(v)
	})
}

// statusOf is the status a failed console call answers: the service's
// own, 500 when the console itself failed.
func statusOf(err error) int {
	var re *restError
	if errors.As(err, &re) {
		return re.Status
	}
	return http.StatusInternalServerError
}

// writeError answers {"error": msg} with status.
func writeError(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]string{"error": msg})
}

// accountView is one account on the first page.
type accountView struct {
	Name       string      `json:"name"`
	Containers []string    `json:"containers"`
	Queues     []queueView `json:"queues"`
	Tables     []string    `json:"tables"`
	Shares     []string    `json:"shares"`
	Errors     []string    `json:"errors,omitempty"`
}

type queueView struct {
	Name     string `json:"name"`
	Messages int    `json:"messages"`
}

// overview lists every account's containers, queues, tables and shares.
func (c *Console) overview(r *http.Request) (any, error) {
	ctx := r.Context()
	depths, err := queue.Depths(ctx, c.opts.Store, c.opts.Clock.Now())
	if err != nil {
		return nil, err
	}
	var out []accountView
	for _, name := range c.opts.Accounts.Names() {
		a := accountView{Name: name, Containers: []string{}, Queues: []queueView{}, Tables: []string{}, Shares: []string{}}
		note := func(svc string, err error) {
			var re *restError
			if err != nil && !(errors.As(err, &re) && re.Status == http.StatusNotFound) {
				a.Errors = append(a.Errors, svc+": "+err.Error())
			}
		}
		var err error
		a.Containers, err = orEmpty(c.listNames(ctx, "blob", name))
		note("blob", err)
		a.Shares, err = orEmpty(c.listNames(ctx, "file", name))
		note("file", err)
		a.Tables, err = orEmpty(c.listTables(ctx, name))
		note("table", err)
		for _, d := range depths {
			if d.Account == name {
				a.Queues = append(a.Queues, queueView{Name: d.Queue, Messages: d.Messages})
			}
		}
		out = append(out, a)
	}
	return map[string]any{"now": c.opts.Clock.Now().Format(time.RFC3339Nano), "accounts": out}, nil
}

func orEmpty(names []string, err error) ([]string, error) {
	if names == nil {
		names = []string{}
	}
	return names, err
}

// messages lists one page of a queue's messages (pageSize of them),
// invisible ones included, in the order they become visible. No REST
// operation lists invisible messages, so they are read from the store
// (queue.Inspect); its scan starts at the queue's first message, so the
// page's marker is the number of messages before it, and a page reads
// the messages before it too.
func (c *Console) messages(r *http.Request) (any, error) {
	q := r.URL.Query()
	skip := 0
	if m := q.Get("marker"); m != "" {
		var err error
		if skip, err = strconv.Atoi(m); err != nil || skip < 0 {
			return nil, badRequest("marker " + strconv.Quote(m) + " is not a count of messages")
		}
	}
	msgs, err := queue.Inspect(r.Context(), c.opts.Store, q.Get("account"), q.Get("queue"), c.opts.Clock.Now(), skip+pageSize+1)
	if err != nil {
		return nil, err
	}
	msgs = msgs[min(skip, len(msgs)):]
	next := ""
	if len(msgs) > pageSize {
		msgs, next = msgs[:pageSize], strconv.Itoa(skip+pageSize)
	}
	return map[string]any{"messages": append([]queue.MessageView{}, msgs...), "nextMarker": next}, nil
}

// clearQueue runs Clear Messages.
func (c *Console) clearQueue(r *http.Request) (any, error) {
	q := r.URL.Query()
	_, err := c.call(r.Context(), "queue", q.Get("account"), http.MethodDelete, "/"+q.Get("queue")+"/messages", nil, nil)
	return map[string]bool{"ok": err == nil}, err
}

// withTimeout bounds a console request that fans out.
func withTimeout(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, 10*time.Second)
}
