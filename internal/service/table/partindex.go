package table

import (
	"github.com/lazuli-storage/lazuli/internal/service/table/odata"
)

// Cached partitions can also carry hash indexes of property values, built
// the first time a query's filter has a top-level `Prop eq literal`
// conjunct on that property: the filter then runs only on the entities the
// index names (the candidates) instead of on every entity. The walk still
// accounts every entity it passes over (walkCandidates), so pages, the
// scan budget and continuations are exactly those of a full walk.

// Index limits: small partitions are quicker to walk than to index, and a
// partition keeps a few indexes at most.
const (
	defaultMinIndexRows = 256
	maxIndexesPerPart   = 4
)

// propIndex lists, for each equality key, the rows (ascending) whose
// property has a value with that key.
type propIndex map[odata.EqKey][]int32

// candidates returns the rows of part that may match f, from the index of
// its most selective equality conjunct; ok is false when no index applies
// and every row must be examined.
func (c *partCache) candidates(part *cachedPart, f *odata.Filter) (rows []int32, ok bool) {
	if len(part.rows) < c.minIndexRows {
		return nil, false
	}
	for _, eq := range f.Equalities() {
		switch eq.Prop {
		case "PartitionKey", "RowKey", "Timestamp":
			continue // keys narrow the range instead; Timestamp is never indexed
		}
		key, has := eq.Lit.EqKey()
		if !has {
			continue
		}
		idx := c.index(part, eq.Prop)
		if idx == nil {
			continue
		}
		if r := idx[key]; !ok || len(r) < len(rows) {
			rows, ok = r, true
		}
	}
	return rows, ok
}

// index returns part's index of property name, building it on first use;
// nil when the partition already has its share of indexes.
func (c *partCache) index(part *cachedPart, name string) propIndex {
	part.idxMu.Lock()
	defer part.idxMu.Unlock()
	if idx, ok := part.idx[name]; ok {
		return idx
	}
	if len(part.idx) >= maxIndexesPerPart {
		return nil
	}
	idx, size := buildIndex(part.rows, name)
	if part.idx == nil {
		part.idx = map[string]propIndex{}
	}
	part.idx[name] = idx
	c.grow(part, size)
	return idx
}

// buildIndex indexes property name over rows and estimates its size.
func buildIndex(rows []Entity, name string) (propIndex, int64) {
	idx := propIndex{}
	size := int64(64)
	for i := range rows {
		v, ok := rows[i].Property(name)
		if !ok {
			continue
		}
		key, ok := v.EqKey()
		if !ok {
			continue
		}
		list, seen := idx[key]
		if !seen {
			size += 96 + int64(len(v.Str))
		}
		idx[key] = append(list, int32(i))
		size += 4
	}
	return idx, size
}
