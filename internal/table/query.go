package table

import (
	"net/http"

	"github.com/lazuli-storage/lazuli/internal/azerr"
	"github.com/lazuli-storage/lazuli/internal/request"
	"github.com/lazuli-storage/lazuli/internal/store"
	"github.com/lazuli-storage/lazuli/internal/table/odata"
)

// maxScanPerPage bounds the records one query request examines, as the
// service bounds a query's execution time: past it the page ends early with
// a continuation, which is legal even when the page is empty.
const maxScanPerPage = 100_000

// entityQuery is a parsed Query Entities request.
type entityQuery struct {
	filter *odata.Filter
	sel    *selection
	top    int
	// start and end bound the key range to scan.
	start, end []byte
	prefixLen  int
	empty      bool
}

// page is one page of query results.
type page struct {
	entities       []*Entity
	nextPK, nextRK string
	more           bool
}

// planQuery turns the query options, the continuation and the SAS key range
// into a key range to scan.
func planQuery(r *http.Request, account, table string) (*entityQuery, error) {
	q := r.URL.Query()
	f, err := parseFilter(q.Get("$filter"))
	if err != nil {
		return nil, err
	}
	sel, err := parseSelect(q.Get("$select"))
	if err != nil {
		return nil, err
	}
	top, err := parseTop(q.Get("$top"))
	if err != nil {
		return nil, err
	}
	eq := &entityQuery{filter: f, sel: sel, top: top}
	prefix := tablePrefix(account, table)
	eq.prefixLen = len(prefix)
	plan := f.Plan()
	eq.empty = plan.PK.Empty
	eq.start, eq.end = planBounds(prefix, plan)
	if err := eq.applyContinuation(prefix, q.Get("NextPartitionKey"), q.Get("NextRowKey")); err != nil {
		return nil, err
	}
	eq.start, eq.end = sasRange(r).scanBounds(prefix, eq.start, eq.end)
	return eq, nil
}

// planBounds converts the filter's key plan into [start, end).
func planBounds(prefix store.Key, p odata.Plan) (start, end []byte) {
	start, end = prefix, store.PrefixEnd(prefix)
	if p.PK.Exact() {
		part := keyWith(prefix, p.PK.Low)
		start, end = part, store.PrefixEnd(part)
		if p.RK.HasLow {
			start = keyWith(prefix, p.PK.Low, p.RK.Low)
		}
		if p.RK.HasHigh {
			end = store.PrefixEnd(keyWith(prefix, p.PK.Low, p.RK.High))
		}
		return start, end
	}
	if p.PK.HasLow {
		start = keyWith(prefix, p.PK.Low)
	}
	if p.PK.HasHigh {
		end = store.PrefixEnd(keyWith(prefix, p.PK.High))
	}
	return start, end
}

// applyContinuation moves the start to where the previous page stopped.
func (eq *entityQuery) applyContinuation(prefix store.Key, nextPK, nextRK string) error {
	if nextPK == "" && nextRK == "" {
		return nil
	}
	pk, ok := decodeToken(nextPK)
	if !ok {
		return azerr.InvalidQuery("NextPartitionKey", nextPK, "invalid continuation token")
	}
	k := keyWith(prefix, pk)
	if nextRK != "" {
		rk, ok := decodeToken(nextRK)
		if !ok {
			return azerr.InvalidQuery("NextRowKey", nextRK, "invalid continuation token")
		}
		k = keyWith(prefix, pk, rk)
	}
	if string(k) > string(eq.start) {
		eq.start = k
	}
	return nil
}

// run scans one page inside tx.
func (eq *entityQuery) run(tx store.Tx) (*page, error) {
	pg := &page{}
	if eq.empty || string(eq.start) >= string(eq.end) {
		return pg, nil
	}
	scanned := 0
	var derr error
	view := &recordView{prefixLen: eq.prefixLen}
	err := tx.Scan(eq.start, eq.end, store.ScanOptions{}, func(k, v []byte) bool {
		if len(pg.entities) == eq.top || scanned == maxScanPerPage {
			pg.nextPK, pg.nextRK, derr = decodeKey(k)
			pg.more = true
			return false
		}
		scanned++
		view.reset(k, v)
		if !eq.filter.Match(view) {
			return true
		}
		pk, rk, err := decodeKey(k)
		if err != nil {
			derr = err
			return false
		}
		e, err := decodeEntity(pk, rk, v)
		if err != nil {
			derr = err
			return false
		}
		pg.entities = append(pg.entities, e)
		return true
	})
	if err == nil {
		err = derr
	}
	return pg, err
}

func (s *Service) queryEntities(w http.ResponseWriter, r *http.Request) error {
	info, t := request.Of(r), targetOf(r)
	m, err := negotiate(r)
	if err != nil {
		return err
	}
	if err := s.authorizeEntity(r, t.table, "r"); err != nil {
		return err
	}
	eq, err := planQuery(r, info.Account, t.table)
	if err != nil {
		return err
	}
	var pg *page
	err = s.st.View(r.Context(), func(tx store.Tx) error {
		if _, err := loadTable(tx, info.Account, t.table); err != nil {
			return err
		}
		pg, err = eq.run(tx)
		return err
	})
	if err != nil {
		return err
	}
	if pg.more {
		w.Header().Set("x-ms-continuation-NextPartitionKey", encodeToken(pg.nextPK))
		w.Header().Set("x-ms-continuation-NextRowKey", encodeToken(pg.nextRK))
	}
	return writeJSON(w, m, http.StatusOK, pageDocument(m, pg, baseURL(r), t.table, info.Account, eq.sel))
}

// pageDocument renders a query page.
func pageDocument(m metadata, pg *page, base, table, account string, sel *selection) []byte {
	var jw jsonWriter
	jw.b = make([]byte, 0, 256+len(pg.entities)*256)
	jw.open()
	if m != noMetadata {
		jw.str("odata.metadata", base+"/$metadata#"+table)
	}
	jw.key("value")
	jw.b = append(jw.b, '[')
	for i, e := range pg.entities {
		if i > 0 {
			jw.b = append(jw.b, ',')
		}
		jw.open()
		jw.entity(m, e, base, table, account, sel)
		jw.close()
	}
	jw.b = append(jw.b, ']')
	jw.first = false
	jw.close()
	return jw.b
}
