package table

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/lazuli-storage/lazuli/internal/base/guid"

	"github.com/lazuli-storage/lazuli/internal/engine/store"
	"github.com/lazuli-storage/lazuli/internal/frame/request"
	"github.com/lazuli-storage/lazuli/internal/frame/route"
	"github.com/lazuli-storage/lazuli/internal/rule/azerr"
	"github.com/lazuli-storage/lazuli/internal/service/table/batch"
)

// maxChangesetOps is the service's limit of operations in one changeset.
const maxChangesetOps = 100

// opFailure is the failure of the operation at index i of a changeset; it
// aborts the whole transaction.
type opFailure struct {
	index int
	err   *azerr.Error
}

func (f *opFailure) Error() string { return fmt.Sprintf("batch operation %d: %v", f.index, f.err) }

// batchOp is one prepared changeset operation.
type batchOp struct {
	op        *entityOp
	meta      metadata
	contentID string
}

// batch serves POST /$batch: an entity group transaction, all of whose
// operations commit in one store Update or none do.
func (s *Service) batch(w http.ResponseWriter, r *http.Request) error {
	body, err := readBody(r)
	if err != nil {
		return err
	}
	b, err := batch.Parse(r.Header.Get("Content-Type"), body)
	if err != nil {
		return azerr.Newf(azerr.InvalidInput, "One of the request inputs is not valid. %v", err)
	}
	var resps []batch.Response
	if b.Changeset {
		resps, err = s.runChangeset(r, b.Requests)
	} else {
		resps, err = s.runBatchQuery(r, b.Requests[0])
	}
	if f, ok := err.(*opFailure); ok {
		resps = []batch.Response{s.failureResponse(w, f)}
	} else if err != nil {
		return err
	}
	ct, out := batch.Render(guid.New(), b.Changeset, resps)
	w.Header().Set("Content-Type", ct)
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusAccepted)
	_, err = w.Write(out)
	return err
}

// failAt wraps an error of operation i; non-Azure errors stay internal.
func failAt(i int, err error) error {
	if e, ok := azerr.As(err); ok {
		return &opFailure{index: i, err: e}
	}
	return err
}

// subTarget parses the resource path of an embedded request, dropping the
// account segment of path-style URLs.
func subTarget(r *http.Request, req batch.Request) (target, error) {
	info := request.Of(r)
	path := req.URL.Path
	if info.PathStyle {
		if rest, ok := strings.CutPrefix(path, "/"+info.Account); ok && (rest == "" || rest[0] == '/') {
			path = rest
		}
	}
	return parseTarget(path)
}

// authorizePart authorizes one operation of a batch as the route row it
// would match on its own declares.
func (s *Service) authorizePart(r *http.Request, req batch.Request, t target) error {
	rule, err := s.routes.Lookup(req.Method, t.level, req.URL.Query(), req.Header)
	if err != nil {
		return err
	}
	return route.AuthorizeRule(r, rule, s.authTarget(r, t.table))
}

// prepareChangeset validates every operation and the changeset rules.
func (s *Service) prepareChangeset(r *http.Request, reqs []batch.Request) ([]batchOp, error) {
	ops := make([]batchOp, 0, len(reqs))
	rows := map[string]bool{}
	for i, req := range reqs {
		if i == maxChangesetOps {
			return nil, failAt(i, azerr.Newf(azerr.InvalidInput, "The batch request operation exceeds the maximum %d changes per change set.", maxChangesetOps))
		}
		t, err := subTarget(r, req)
		if err != nil {
			return nil, failAt(i, err)
		}
		m, err := negotiateValues(req.URL.Query().Get("$format"), req.Header.Get("Accept"))
		if err != nil {
			return nil, failAt(i, err)
		}
		op, err := prepareOp(req.Method, t, req.Header, req.Body)
		if err != nil {
			return nil, failAt(i, err)
		}
		if i > 0 && (lowerName(op.table) != lowerName(ops[0].op.table) || op.pk != ops[0].op.pk) {
			return nil, failAt(i, azerr.New(azerr.CommandsInBatchActOnDifferentPartitions))
		}
		if rows[op.rk] {
			return nil, failAt(i, azerr.Newf(azerr.InvalidDuplicateRow, "A command with RowKey '%s' is already present in the batch. An entity can appear only once in a batch.", op.rk))
		}
		rows[op.rk] = true
		if err := s.authorizePart(r, req, t); err != nil {
			return nil, failAt(i, err)
		}
		if err := sasRange(r).check(op.pk, op.rk); err != nil {
			return nil, failAt(i, err)
		}
		ops = append(ops, batchOp{op: op, meta: m, contentID: req.ContentID})
	}
	return ops, nil
}

// runChangeset applies the operations in one transaction.
func (s *Service) runChangeset(r *http.Request, reqs []batch.Request) ([]batch.Response, error) {
	ops, err := s.prepareChangeset(r, reqs)
	if err != nil {
		return nil, err
	}
	if len(ops) == 0 {
		return nil, azerr.Newf(azerr.InvalidInput, "One of the request inputs is not valid. The changeset is empty.")
	}
	account := request.Of(r).Account
	results := make([]*Entity, len(ops))
	err = s.st.Update(r.Context(), func(tx store.Tx) error {
		// Every operation acts on one table and partition: load the
		// table once.
		tbl, err := loadTable(tx, account, ops[0].op.table)
		if err != nil {
			return failAt(0, err)
		}
		now := s.clock.Now()
		for i, bo := range ops {
			e, err := bo.op.apply(tx, account, now)
			if err != nil {
				return failAt(i, err)
			}
			results[i] = e
		}
		// A changeset writes one partition: one version bump covers it.
		return touchPartition(tx, tbl, account, ops[0].op.table, ops[0].op.pk)
	})
	if err != nil {
		return nil, err
	}
	resps := make([]batch.Response, len(ops))
	for i, bo := range ops {
		resps[i] = s.opResponse(r, bo, results[i])
	}
	return resps, nil
}

// opResponse renders the success of one changeset operation.
func (s *Service) opResponse(r *http.Request, bo batchOp, e *Entity) batch.Response {
	resp := batch.Response{Status: http.StatusNoContent, ContentID: bo.contentID, Header: http.Header{}}
	h := resp.Header
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Cache-Control", "no-cache")
	h.Set("DataServiceVersion", "1.0;")
	if e == nil {
		return resp
	}
	h.Set("ETag", formatETag(e.Timestamp))
	if bo.op.kind != opInsert {
		return resp
	}
	base := baseURL(r)
	loc := base + "/" + entityPath(bo.op.table, e.PK, e.RK)
	h.Set("Location", loc)
	h.Set("DataServiceId", loc)
	if bo.op.applied != "" {
		h.Set("Preference-Applied", bo.op.applied)
	}
	if bo.op.noContent {
		return resp
	}
	h.Set("DataServiceVersion", "3.0;")
	h.Set("Content-Type", bo.meta.contentType())
	resp.Status = http.StatusCreated
	resp.Body = entityDocument(bo.meta, e, base, bo.op.table, request.Of(r).Account, nil)
	return resp
}

// failureResponse renders the one part a failed changeset answers with: the
// failing status and an OData error whose message starts with the index.
func (s *Service) failureResponse(w http.ResponseWriter, f *opFailure) batch.Response {
	e := *f.err
	e.Message = fmt.Sprintf("%d:%s", f.index, e.Message)
	h := http.Header{}
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Cache-Control", "no-cache")
	h.Set("DataServiceVersion", "3.0;")
	h.Set("Content-Type", minimalMetadata.contentType())
	body := azerr.Body(&e, w.Header().Get(azerr.RequestIDHeader), s.clock.Now().UTC(), azerr.JSON)
	return batch.Response{Status: e.Status, Header: h, Body: body}
}

// runBatchQuery answers a batch holding a single query.
func (s *Service) runBatchQuery(r *http.Request, req batch.Request) ([]batch.Response, error) {
	t, err := subTarget(r, req)
	if err != nil {
		return nil, failAt(0, err)
	}
	sub, err := http.NewRequestWithContext(r.Context(), http.MethodGet, req.URL.String(), nil)
	if err != nil {
		return nil, failAt(0, azerr.New(azerr.InvalidUri))
	}
	sub.Header = req.Header
	sub.Host = r.Host
	sub.TLS = r.TLS
	rec := &partRecorder{header: http.Header{}}
	var h http.HandlerFunc
	switch t.level {
	case levelEntity:
		h = func(w http.ResponseWriter, sr *http.Request) { rec.err = s.getEntity(w, sr) }
	case levelEntities, levelTableRes:
		h = func(w http.ResponseWriter, sr *http.Request) { rec.err = s.queryEntities(w, sr) }
	default:
		return nil, failAt(0, azerr.New(azerr.MethodNotAllowed))
	}
	if err := s.authorizePart(r, req, t); err != nil {
		return nil, failAt(0, err)
	}
	info := *request.Of(r)
	sub = sub.WithContext(withTarget(request.With(sub.Context(), &info), t))
	h(rec, sub)
	if rec.err != nil {
		return nil, failAt(0, rec.err)
	}
	return []batch.Response{{Status: rec.status, Header: rec.header, Body: rec.body, ContentID: req.ContentID}}, nil
}

// partRecorder captures a handler's response as a batch part.
type partRecorder struct {
	header http.Header
	status int
	body   []byte
	err    error
}

func (p *partRecorder) Header() http.Header { return p.header }

func (p *partRecorder) WriteHeader(status int) { p.status = status }

func (p *partRecorder) Write(b []byte) (int, error) {
	if p.status == 0 {
		p.status = http.StatusOK
	}
	p.body = append(p.body, b...)
	return len(b), nil
}
