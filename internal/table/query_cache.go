package table

import (
	"bytes"
	"sort"

	"github.com/lazuli-storage/lazuli/internal/store"
	"github.com/lazuli-storage/lazuli/internal/table/odata"
)

// tableRef names one incarnation of a table, as the partition cache keys it.
type tableRef struct {
	account, table string // table lower-cased
	id             uint64 // tableRecord.ID
}

// runVersioned answers one page exactly as run does, partition by
// partition: it reads, in tx, the version of every partition the range
// touches, takes from the cache the partitions it holds at those versions
// and scans the others from the store, consecutive ones in one scan. Since
// every entity write bumps its partition's version in its own transaction,
// a cached partition whose version tx reads is exactly what tx would read
// from the store. It returns what the scans taught the cache, for the
// caller to record once the transaction has succeeded.
func (eq *entityQuery) runVersioned(tx store.Tx, c *partCache, ref tableRef) (*page, []*cachedPart, error) {
	w := newWalker(eq)
	if eq.empty || string(eq.start) >= string(eq.end) {
		return w.pg, nil, nil
	}
	vers, err := partitionVersions(tx, eq.prefix, versionPrefix(ref.account, ref.table), eq.start, eq.end)
	if err != nil {
		return nil, nil, err
	}
	hits, fill := c.lookup(ref.account, ref.table, ref.id, vers)
	var learned []*cachedPart
	for i := 0; i < len(vers) && !w.done; {
		if hits[i] != nil {
			w.cached(c, hits[i], keyWith(eq.prefix, vers[i].pk))
			i++
			continue
		}
		j := i + 1
		for j < len(vers) && hits[j] == nil {
			j++
		}
		l, err := w.scanParts(tx, ref, vers[i:j], fill[i:j], c.maxPart)
		if err != nil {
			return nil, nil, err
		}
		learned = append(learned, l...)
		i = j
	}
	return w.pg, learned, nil
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

// scanParts scans from the store the consecutive partitions parts, none of
// which the cache holds at its version, and returns what the cache learns:
// a ghost for each partition scanned whole, or its decoded entities when a
// ghost at the same version says it is scanned whole again (fill).
func (w *walker) scanParts(tx store.Tx, ref tableRef, parts []partVersion, fill []bool, limit int64) ([]*cachedPart, error) {
	eq := w.eq
	prefixes, ends := make([]store.Key, len(parts)), make([][]byte, len(parts))
	for i, p := range parts {
		prefixes[i] = keyWith(eq.prefix, p.pk)
		ends[i] = store.PrefixEnd(prefixes[i])
	}
	whole := func(i int) bool {
		return string(eq.start) <= string(prefixes[i]) && string(ends[i]) <= string(eq.end)
	}
	builders := make([]*partBuilder, len(parts))
	for i := range parts {
		if fill[i] && whole(i) {
			builders[i] = newPartBuilder(limit)
		}
	}
	lo, hi := eq.start, eq.end
	if first := prefixes[0]; string(first) > string(lo) {
		lo = first
	}
	if last := ends[len(parts)-1]; string(last) < string(hi) {
		hi = last
	}
	cur := 0 // the partition of the current record
	view := &recordView{prefixLen: eq.prefixLen}
	err := tx.Scan(lo, hi, store.ScanOptions{}, func(k, v []byte) bool {
		for cur < len(parts) && !bytes.HasPrefix(k, prefixes[cur]) {
			cur++
		}
		if !w.record(view, k, v) {
			return false
		}
		if cur < len(parts) && builders[cur] != nil {
			if rk, _, ok := keyElement(k[len(prefixes[cur]):]); ok {
				builders[cur].add(rk, v)
			} else {
				builders[cur] = nil
			}
		}
		return true
	})
	if err == nil {
		err = w.err
	}
	if err != nil || cur == len(parts) {
		// cur past the end means a record of a partition without a
		// version, which a versioned table never has: learn nothing.
		return nil, err
	}
	complete := len(parts)
	if w.done {
		complete = cur // the page ended inside partition cur
	}
	learned := make([]*cachedPart, 0, complete)
	for i := 0; i < complete; i++ {
		if !whole(i) {
			continue
		}
		learned = append(learned, learn(ref, parts[i], builders[i]))
	}
	return learned, nil
}

// learn is the cache entry for a partition scanned whole.
func learn(ref tableRef, p partVersion, b *partBuilder) *cachedPart {
	e := &cachedPart{key: partKey{ref.account, ref.table, ref.id, p.pk}, version: p.version,
		state: partGhost, size: ghostBytes + int64(len(p.pk))}
	switch {
	case b == nil:
	case b.over:
		e.state = partTooBig
	default:
		if rows, size, err := b.build(p.pk); err == nil {
			e.state, e.rows, e.size = partEntries, rows, size
		}
	}
	return e
}
