package table

import (
	"encoding/base64"
	"net/http"
	"strconv"
	"strings"

	"github.com/lazuli-storage/lazuli/internal/engine/store"
	"github.com/lazuli-storage/lazuli/internal/frame/request"
	"github.com/lazuli-storage/lazuli/internal/rule/azerr"
	"github.com/lazuli-storage/lazuli/internal/service/table/odata"
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
	// start and end bound the key range to scan; prefix is the table's
	// entity key prefix.
	start, end []byte
	prefix     store.Key
	prefixLen  int
	empty      bool
	// budget is the scan budget of a page, maxScanPerPage unless a test
	// wants pages to end early.
	budget int
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
	return newQuery(f, sel, top, account, table, q.Get("NextPartitionKey"), q.Get("NextRowKey"), sasRange(r))
}

// newQuery plans a parsed query: the filter's key bounds, narrowed by the
// continuation tokens and the SAS key range.
func newQuery(f *odata.Filter, sel *selection, top int, account, table, nextPK, nextRK string, sas keyRange) (*entityQuery, error) {
	eq := &entityQuery{filter: f, sel: sel, top: top, budget: maxScanPerPage}
	prefix := tablePrefix(account, table)
	eq.prefix, eq.prefixLen = prefix, len(prefix)
	plan := f.Plan()
	eq.empty = plan.PK.Empty
	eq.start, eq.end = planBounds(prefix, plan)
	if err := eq.applyContinuation(prefix, nextPK, nextRK); err != nil {
		return nil, err
	}
	eq.start, eq.end = sas.scanBounds(prefix, eq.start, eq.end)
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

// run scans one page inside tx, reading every record of the range from the
// store. The service answers through runVersioned, which must give the
// same pages; run is the reference it is tested against.
func (eq *entityQuery) run(tx store.Tx) (*page, error) {
	w := newWalker(eq)
	if eq.empty || string(eq.start) >= string(eq.end) {
		return w.pg, nil
	}
	view := &recordView{prefixLen: eq.prefixLen}
	err := tx.Scan(eq.start, eq.end, store.ScanOptions{}, func(k, v []byte) bool {
		return w.record(view, k, v)
	})
	if err == nil {
		err = w.err
	}
	return w.pg, err
}

// walker fills a page from the records of the range, visited in key order
// whether they come from the store or from the partition cache: both paths
// share its rules for $top, the scan budget and the continuation.
type walker struct {
	eq      *entityQuery
	pg      *page
	scanned int
	budget  int
	done    bool
	err     error
}

func newWalker(eq *entityQuery) *walker {
	w := &walker{eq: eq, pg: &page{}, budget: eq.budget}
	if w.budget <= 0 {
		w.budget = maxScanPerPage
	}
	return w
}

// full reports whether the page is complete before the next record.
func (w *walker) full() bool {
	return len(w.pg.entities) == w.eq.top || w.scanned == w.budget
}

// end ends the walk with a continuation at the record (pk, rk).
func (w *walker) end(pk, rk string) {
	w.pg.nextPK, w.pg.nextRK, w.pg.more, w.done = pk, rk, true, true
}

// record visits one store record; it returns false to end the scan.
func (w *walker) record(view *recordView, k, v []byte) bool {
	if w.full() {
		pk, rk, err := decodeKey(k)
		w.err = err
		w.end(pk, rk)
		return false
	}
	w.scanned++
	view.reset(k, v)
	if !w.eq.filter.Match(view) {
		return true
	}
	pk, rk, err := decodeKey(k)
	if err != nil {
		w.err = err
		return false
	}
	e, err := decodeEntity(pk, rk, v)
	if err != nil {
		w.err = err
		return false
	}
	w.pg.entities = append(w.pg.entities, e)
	return true
}

func (s *Service) queryEntities(w http.ResponseWriter, r *http.Request) error {
	info, t := request.Of(r), targetOf(r)
	m, err := negotiate(r)
	if err != nil {
		return err
	}
	eq, err := planQuery(r, info.Account, t.table)
	if err != nil {
		return err
	}
	var pg *page
	var ls *lessons
	var ref tableRef
	err = s.st.View(r.Context(), func(tx store.Tx) error {
		rec, err := loadTable(tx, info.Account, t.table)
		if err != nil {
			return err
		}
		ref = tableRef{account: info.Account, table: lowerName(t.table), id: rec.ID}
		pg, ls, err = eq.runVersioned(tx, s.parts, ref)
		return err
	})
	if err != nil {
		return err
	}
	s.parts.apply(r.Context(), s.st, ref, ls)
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

// maxPageSize is the most entities or tables one response returns.
const maxPageSize = 1000

// parseFilter parses $filter; syntax errors are 400 InvalidInput.
func parseFilter(s string) (*odata.Filter, error) {
	f, err := odata.Parse(s)
	if err != nil {
		return nil, azerr.Newf(azerr.InvalidInput, "One of the request inputs is not valid. %v", err)
	}
	return f, nil
}

// parseTop reads $top: 1 to 1000, default 1000.
func parseTop(s string) (int, error) {
	if s == "" {
		return maxPageSize, nil
	}
	n, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil || n < 1 || n > maxPageSize {
		return 0, azerr.Newf(azerr.InvalidInput, "One of the request inputs is not valid. $top must be an integer from 1 to %d.", maxPageSize)
	}
	return n, nil
}

// Continuation tokens have the service's shape, 1!<length>!<base64>, so
// clients that inspect them see the familiar form; the payload is the key.
func encodeToken(s string) string {
	b := base64.RawURLEncoding.EncodeToString([]byte(s))
	return "1!" + strconv.Itoa(len(b)) + "!" + b
}

func decodeToken(tok string) (string, bool) {
	rest, ok := strings.CutPrefix(tok, "1!")
	if !ok {
		return "", false
	}
	n, b, ok := strings.Cut(rest, "!")
	if !ok || n != strconv.Itoa(len(b)) {
		return "", false
	}
	raw, err := base64.RawURLEncoding.DecodeString(b)
	if err != nil {
		return "", false
	}
	return string(raw), true
}
