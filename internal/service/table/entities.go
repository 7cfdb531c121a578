package table

import (
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/lazuli-storage/lazuli/internal/engine/store"
	"github.com/lazuli-storage/lazuli/internal/frame/request"
	"github.com/lazuli-storage/lazuli/internal/rule/azerr"
	"github.com/lazuli-storage/lazuli/internal/rule/etag"
	"github.com/lazuli-storage/lazuli/internal/service/table/odata"
)

// opKind is an entity write.
type opKind int

const (
	opInsert  opKind = iota
	opReplace        // Update Entity, or Insert Or Replace without If-Match
	opMerge          // Merge Entity, or Insert Or Merge without If-Match
	opDelete
)

// entityOp is one validated entity write, from a request or a batch part.
type entityOp struct {
	kind      opKind
	table     string
	pk, rk    string
	match     ifMatch
	props     []Property
	noContent bool   // Prefer: return-no-content (insert)
	applied   string // Preference-Applied value
}

// prepareOp validates a write request: method, addressed resource, headers
// and body.
func prepareOp(method string, t target, h http.Header, body []byte) (*entityOp, error) {
	op := &entityOp{table: t.table, pk: t.pk, rk: t.rk}
	switch {
	case method == http.MethodPost && (t.level == levelTableRes || t.level == levelEntities):
		op.kind = opInsert
	case t.level != levelEntity:
		return nil, azerr.New(azerr.MethodNotAllowed)
	case method == http.MethodPut:
		op.kind = opReplace
	case method == "MERGE" || method == http.MethodPatch:
		op.kind = opMerge
	case method == http.MethodDelete:
		op.kind = opDelete
	default:
		return nil, azerr.New(azerr.MethodNotAllowed)
	}
	if err := op.readConditions(h); err != nil {
		return nil, err
	}
	if op.kind == opDelete {
		return op, nil
	}
	if err := checkContentTypeHeader(h.Get("Content-Type")); err != nil {
		return nil, err
	}
	p, err := parsePayload(body)
	if err != nil {
		return nil, err
	}
	if err := op.takePayload(p); err != nil {
		return nil, err
	}
	op.noContent, op.applied = preferNoContentHeader(h.Get("Prefer"))
	return op, nil
}

// readConditions applies the If-Match / If-None-Match rules of writes.
func (op *entityOp) readConditions(h http.Header) error {
	if h.Get("If-None-Match") != "" {
		switch op.kind {
		case opReplace:
			return invalidInput("If-None-Match HTTP header cannot be specified for PUT operations.")
		case opDelete:
			return invalidInput("If-None-Match HTTP header cannot be specified for DELETE operations.")
		}
		return invalidInput("If-None-Match HTTP header cannot be specified for this operation.")
	}
	if op.kind == opInsert {
		return nil
	}
	m, err := parseIfMatch(h.Get("If-Match"))
	if err != nil {
		return err
	}
	if op.kind == opDelete && !m.present {
		return azerr.MissingHeader("If-Match")
	}
	op.match = m
	return nil
}

// takePayload checks the body's keys against the URL and keeps its
// properties.
func (op *entityOp) takePayload(p *payload) error {
	if op.kind == opInsert {
		if p.PK == nil || p.RK == nil {
			return azerr.New(azerr.PropertiesNeedValue)
		}
		op.pk, op.rk = *p.PK, *p.RK
	} else if (p.PK != nil && *p.PK != op.pk) || (p.RK != nil && *p.RK != op.rk) {
		return invalidInput("The PartitionKey and RowKey of the body must match those of the request URI.")
	}
	if err := checkKey("PartitionKey", op.pk); err != nil {
		return err
	}
	if err := checkKey("RowKey", op.rk); err != nil {
		return err
	}
	op.props = p.Props
	return nil
}

// apply runs the write inside tx, on the table the caller loaded in tx, and
// returns the entity as stored (nil after a delete). The caller then calls
// touchPartition once in the same Update, after its last apply.
func (op *entityOp) apply(tx store.Tx, account string, now time.Time) (*Entity, error) {
	key := entityKey(account, op.table, op.pk, op.rk)
	var cur *Entity
	if v, err := tx.Get(key); err == nil {
		if cur, err = decodeEntity(op.pk, op.rk, v); err != nil {
			return nil, err
		}
	} else if !errors.Is(err, store.ErrNotFound) {
		return nil, err
	}
	if err := op.check(cur); err != nil {
		return nil, err
	}
	if op.kind == opDelete {
		return nil, tx.Delete(key)
	}
	e := op.result(cur)
	var prev etag.Tick
	if cur != nil {
		prev = etag.Tick(cur.Timestamp)
	}
	e.Timestamp = int64(etag.Next(now, prev))
	if err := checkEntity(e); err != nil {
		return nil, err
	}
	return e, tx.Put(key, encodeEntity(e))
}

// check applies existence and If-Match to the current entity.
func (op *entityOp) check(cur *Entity) error {
	if op.kind == opInsert {
		if cur != nil {
			return azerr.New(azerr.EntityAlreadyExists)
		}
		return nil
	}
	if !op.match.present {
		return nil // upsert
	}
	if cur == nil {
		return azerr.New(azerr.ResourceNotFound)
	}
	if !op.match.matches(cur.Timestamp) {
		return azerr.New(azerr.UpdateConditionNotSatisfied)
	}
	return nil
}

// result builds the entity a replace, merge or insert leaves.
func (op *entityOp) result(cur *Entity) *Entity {
	e := &Entity{PK: op.pk, RK: op.rk}
	if op.kind == opMerge && cur != nil {
		e.Props = append(e.Props, cur.Props...)
	}
	for _, p := range op.props {
		if p.Value.Kind == odata.KindNull {
			// Merge ignores a null; Insert and Replace store no property
			// for it, which removes it.
			continue
		}
		e.Props = setProperty(e.Props, p)
	}
	return e
}

// setProperty replaces a property of that name or appends it.
func setProperty(props []Property, p Property) []Property {
	for i := range props {
		if props[i].Name == p.Name {
			props[i] = p
			return props
		}
	}
	return append(props, p)
}

// preferNoContentHeader reads a Prefer header value.
func preferNoContentHeader(v string) (noContent bool, applied string) {
	for _, p := range strings.Split(v, ",") {
		switch strings.TrimSpace(strings.ToLower(p)) {
		case "return-no-content":
			return true, "return-no-content"
		case "return-content":
			return false, "return-content"
		}
	}
	return false, ""
}

// write runs one entity write request end to end.
func (s *Service) write(w http.ResponseWriter, r *http.Request, method string) error {
	info, t := request.Of(r), targetOf(r)
	if r.Method != http.MethodPost && r.Header.Get("X-HTTP-Method") != "" {
		return azerr.New(azerr.XMethodNotUsingPost)
	}
	m, err := negotiate(r)
	if err != nil {
		return err
	}
	var body []byte
	if method != http.MethodDelete {
		if body, err = readBody(r); err != nil {
			return err
		}
	}
	op, err := prepareOp(method, t, r.Header, body)
	if err != nil {
		return err
	}
	if err := sasRange(r).check(op.pk, op.rk); err != nil {
		return err
	}
	var e *Entity
	err = s.st.Update(r.Context(), func(tx store.Tx) error {
		tbl, err := loadTable(tx, info.Account, op.table)
		if err != nil {
			return err
		}
		if e, err = op.apply(tx, info.Account, s.clock.Now()); err != nil {
			return err
		}
		return touchPartition(tx, tbl, info.Account, op.table, op.pk)
	})
	if err != nil {
		return err
	}
	if e == nil {
		w.WriteHeader(http.StatusNoContent)
		return nil
	}
	w.Header().Set("ETag", formatETag(e.Timestamp))
	if op.kind != opInsert {
		w.WriteHeader(http.StatusNoContent)
		return nil
	}
	return s.writeInserted(w, r, m, op, e)
}

// writeInserted renders Insert Entity's response: 201 with the entity, or
// 204 when the client preferred no content.
func (s *Service) writeInserted(w http.ResponseWriter, r *http.Request, m metadata, op *entityOp, e *Entity) error {
	base := baseURL(r)
	h := w.Header()
	loc := base + "/" + entityPath(op.table, e.PK, e.RK)
	h.Set("Location", loc)
	h.Set("DataServiceId", loc)
	if op.applied != "" {
		h.Set("Preference-Applied", op.applied)
	}
	if op.noContent {
		w.WriteHeader(http.StatusNoContent)
		return nil
	}
	body := entityDocument(m, e, base, op.table, request.Of(r).Account, nil)
	return writeJSON(w, m, http.StatusCreated, body)
}

// entityDocument renders a single-entity response body.
func entityDocument(m metadata, e *Entity, base, table, account string, sel *selection) []byte {
	var jw jsonWriter
	jw.open()
	if m != noMetadata {
		jw.str("odata.metadata", base+"/$metadata#"+table+"/@Element")
	}
	jw.entity(m, e, base, table, account, sel)
	jw.close()
	return jw.b
}

func (s *Service) insertEntity(w http.ResponseWriter, r *http.Request) error {
	return s.write(w, r, http.MethodPost)
}

func (s *Service) updateEntity(w http.ResponseWriter, r *http.Request) error {
	return s.write(w, r, http.MethodPut)
}

func (s *Service) mergeEntity(w http.ResponseWriter, r *http.Request) error {
	return s.write(w, r, "MERGE")
}

func (s *Service) deleteEntity(w http.ResponseWriter, r *http.Request) error {
	return s.write(w, r, http.MethodDelete)
}

// tunnelEntity serves POST with X-HTTP-Method, the verb tunnel of clients
// that cannot send MERGE.
func (s *Service) tunnelEntity(w http.ResponseWriter, r *http.Request) error {
	values := r.Header.Values("X-HTTP-Method")
	if len(values) == 0 {
		// A plain POST cannot address an entity: inserts go to the table.
		return azerr.New(azerr.MethodNotAllowed)
	}
	if len(values) != 1 {
		return azerr.Newf(azerr.InvalidInput, "One of the request inputs is not valid. The X-HTTP-Method header must appear exactly once.")
	}
	switch verb := strings.ToUpper(strings.TrimSpace(values[0])); verb {
	case "MERGE", http.MethodPut, http.MethodDelete, http.MethodPatch:
		return s.write(w, r, verb)
	}
	return azerr.Newf(azerr.InvalidInput, "One of the request inputs is not valid. Unsupported X-HTTP-Method value %q.", values[0])
}

func (s *Service) getEntity(w http.ResponseWriter, r *http.Request) error {
	info, t := request.Of(r), targetOf(r)
	m, err := negotiate(r)
	if err != nil {
		return err
	}
	sel, err := parseSelect(r.URL.Query().Get("$select"))
	if err != nil {
		return err
	}
	if err := sasRange(r).check(t.pk, t.rk); err != nil {
		return err
	}
	var e *Entity
	err = s.st.View(r.Context(), func(tx store.Tx) error {
		if _, err := loadTable(tx, info.Account, t.table); err != nil {
			return err
		}
		v, err := tx.Get(entityKey(info.Account, t.table, t.pk, t.rk))
		if errors.Is(err, store.ErrNotFound) {
			return azerr.New(azerr.ResourceNotFound)
		}
		if err != nil {
			return err
		}
		e, err = decodeEntity(t.pk, t.rk, v)
		return err
	})
	if err != nil {
		return err
	}
	w.Header().Set("ETag", formatETag(e.Timestamp))
	return writeJSON(w, m, http.StatusOK, entityDocument(m, e, baseURL(r), t.table, info.Account, sel))
}
