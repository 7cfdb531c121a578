package table

import (
	"bytes"
	"sort"

	"github.com/lazuli-storage/lazuli/internal/engine/store"
	"github.com/lazuli-storage/lazuli/internal/service/table/odata"
)

// tableRef names one incarnation of a table, as the partition cache keys it.
type tableRef struct {
	account, table string // table lower-cased
	id             uint64 // tableRecord.ID
}

// runVersioned answers one page exactly as run does, but walks from memory
// the tracked partitions that the cache holds at the version tx reads, and
// scans the rest of the range from the store. Since every entity write to
// a tracked partition bumps its version in the write's own transaction, a
// cached partition whose version tx reads is exactly what tx would read
// from the store. It returns what the scans taught the cache, for the
// caller to apply once the transaction has succeeded.
func (eq *entityQuery) runVersioned(tx store.Tx, c *partCache, ref tableRef) (*page, *lessons, error) {
	w := newWalker(eq)
	ls := &lessons{}
	if eq.empty || string(eq.start) >= string(eq.end) {
		return w.pg, ls, nil
	}
	vers, err := partitionVersions(tx, eq.prefix, versionPrefix(ref.account, ref.table), eq.start, eq.end)
	if err != nil {
		return nil, nil, err
	}
	hits, fill := c.lookup(ref.account, ref.table, ref.id, vers)
	lo := eq.start
	for i := 0; !w.done; {
		// Scan the store up to the next cached partition, then walk it.
		j := i
		for j < len(vers) && hits[j] == nil {
			j++
		}
		hi := eq.end
		var hitPrefix store.Key
		if j < len(vers) {
			hitPrefix = keyWith(eq.prefix, vers[j].pk)
			if string(hitPrefix) < string(hi) {
				hi = hitPrefix
			}
		}
		if string(lo) < string(hi) {
			if err := w.scanSegment(tx, ref, lo, hi, vers[i:j], fill[i:j], c, ls); err != nil {
				return nil, nil, err
			}
		}
		if w.done || j == len(vers) {
			break
		}
		w.cached(c, hits[j], hitPrefix)
		if next := store.PrefixEnd(hitPrefix); string(next) > string(lo) {
			lo = next
		}
		i = j + 1
	}
	return w.pg, ls, nil
}

// cached walks the entities of a cached partition that lie in the range;
// partPrefix is the key prefix of the partition's entities.
func (w *walker) cached(c *partCache, part *cachedPart, partPrefix store.Key) {
	rows := part.rows
	lo, hi := 0, len(rows)
	var buf store.Key
	// searchKey finds the first row whose key is at or after k.
	searchKey := func(k []byte) int {
		return sort.Search(len(rows), func(i int) bool {
			buf = append(buf[:0], partPrefix...).Str(rows[i].RK)
			return string(buf) >= string(k)
		})
	}
	// A bound that does not extend the partition's prefix lies before
	// (start) or after (end) all of its entities: the versions listed only
	// partitions that can meet the range.
	if bytes.HasPrefix(w.eq.start, partPrefix) {
		lo = searchKey(w.eq.start)
	}
	if bytes.HasPrefix(w.eq.end, partPrefix) {
		hi = searchKey(w.eq.end)
	}
	view := &rowView{}
	cand, ok := c.candidates(part, w.eq.filter)
	if !ok {
		for i := lo; i < hi && w.visit(view, &rows[i]); i++ {
		}
		return
	}
	w.walkCandidates(view, rows, cand, lo, hi)
}

// visit examines one cached entity; it returns false once the page ended.
func (w *walker) visit(view *rowView, e *Entity) bool {
	if w.full() {
		w.end(e.PK, e.RK)
		return false
	}
	w.scanned++
	view.e = e
	if w.eq.filter.Match(view) {
		w.pg.entities = append(w.pg.entities, e)
	}
	return true
}

// walkCandidates walks rows[lo:hi] examining only the candidate rows: the
// others cannot match, so passing over them only counts them against the
// scan budget, which is what visiting them would do.
func (w *walker) walkCandidates(view *rowView, rows []Entity, cand []int32, lo, hi int) {
	i := sort.Search(len(cand), func(k int) bool { return int(cand[k]) >= lo })
	p := lo // the next row not yet accounted
	for {
		next := hi
		if i < len(cand) && int(cand[i]) < hi {
			next = int(cand[i])
		}
		for p < next {
			if w.full() {
				w.end(rows[p].PK, rows[p].RK)
				return
			}
			k := min(next-p, w.budget-w.scanned)
			w.scanned += k
			p += k
		}
		if next == hi || !w.visit(view, &rows[next]) {
			return
		}
		p, i = next+1, i+1
	}
}

// rowView shows cached entities to the filter evaluator. Entities of a
// partition mostly have the same properties in the same order, so it
// remembers where each property the filter asks for was found in the
// previous entity and looks there first, which makes a lookup one name
// comparison instead of a search.
type rowView struct {
	e     *Entity
	slots [4]struct {
		name string
		pos  int
	}
	n int
}

// Property implements odata.Entity.
func (v *rowView) Property(name string) (odata.Value, bool) {
	switch name {
	case "PartitionKey", "RowKey", "Timestamp":
		return v.e.Property(name)
	}
	props := v.e.Props
	for i := 0; i < v.n; i++ {
		s := &v.slots[i]
		if s.name != name {
			continue
		}
		if s.pos < len(props) && props[s.pos].Name == name {
			return props[s.pos].Value, true
		}
		for j := range props {
			if props[j].Name == name {
				s.pos = j
				return props[j].Value, true
			}
		}
		return odata.Value{}, false
	}
	if v.n < len(v.slots) {
		v.slots[v.n].name = name
		v.n++
	}
	return v.e.Property(name)
}
