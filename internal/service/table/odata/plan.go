package odata

// Range is a string interval on a key, from top-level conjunctions of the
// filter. The zero Range is unbounded.
type Range struct {
	Low, High         string
	HasLow, HasHigh   bool
	LowIncl, HighIncl bool
	// Empty is set when the conjunctions contradict each other, so no key
	// can match.
	Empty bool
}

// Exact reports whether the range is a single value (Low == High, both
// inclusive).
func (r Range) Exact() bool {
	return r.HasLow && r.HasHigh && r.LowIncl && r.HighIncl && r.Low == r.High
}

// Contains reports whether s is inside the range.
func (r Range) Contains(s string) bool {
	if r.Empty {
		return false
	}
	if r.HasLow && (s < r.Low || (s == r.Low && !r.LowIncl)) {
		return false
	}
	if r.HasHigh && (s > r.High || (s == r.High && !r.HighIncl)) {
		return false
	}
	return true
}

// restrict narrows the range by one comparison with a string literal.
func (r *Range) restrict(op CmpOp, s string) {
	switch op {
	case OpEq:
		r.raiseLow(s, true)
		r.lowerHigh(s, true)
	case OpGt:
		r.raiseLow(s, false)
	case OpGe:
		r.raiseLow(s, true)
	case OpLt:
		r.lowerHigh(s, false)
	case OpLe:
		r.lowerHigh(s, true)
	}
	if r.HasLow && r.HasHigh && (r.Low > r.High || (r.Low == r.High && !(r.LowIncl && r.HighIncl))) {
		r.Empty = true
	}
}

func (r *Range) raiseLow(s string, incl bool) {
	if !r.HasLow || s > r.Low || (s == r.Low && !incl) {
		r.Low, r.LowIncl, r.HasLow = s, incl, true
	}
}

func (r *Range) lowerHigh(s string, incl bool) {
	if !r.HasHigh || s < r.High || (s == r.High && !incl) {
		r.High, r.HighIncl, r.HasHigh = s, incl, true
	}
}

// Plan is the key range a query must scan: every entity the filter can
// match has its PartitionKey in PK and, when PK is exact, its RowKey in RK.
// The filter is still evaluated on each entity; the plan only narrows the
// scan.
type Plan struct {
	PK, RK Range
}

// Plan extracts the key bounds of the filter from its top-level `and`
// conjunctions; comparisons under `or` or `not` do not narrow it.
func (f *Filter) Plan() Plan {
	var p Plan
	if f == nil || f.root == nil {
		return p
	}
	var rk Range
	var walk func(n *node)
	walk = func(n *node) {
		switch n.kind {
		case nodeAnd:
			walk(n.left)
			walk(n.right)
		case nodeConst:
			if !n.truth {
				p.PK.Empty = true
			}
		case nodeCmp:
			if n.lit.Kind != KindString {
				if n.prop == "PartitionKey" || n.prop == "RowKey" {
					// Keys are strings: another type never matches.
					p.PK.Empty = true
				}
				return
			}
			switch n.prop {
			case "PartitionKey":
				p.PK.restrict(n.op, n.lit.Str)
			case "RowKey":
				rk.restrict(n.op, n.lit.Str)
			}
		}
	}
	walk(f.root)
	if rk.Empty {
		p.PK.Empty = true
	}
	if p.PK.Exact() {
		p.RK = rk
	}
	return p
}

// Equality is a top-level conjunct `Prop eq Lit` of a filter: every entity
// the filter matches has Prop equal to Lit (as the evaluator compares).
type Equality struct {
	Prop string
	Lit  Value
}

// Equalities lists the filter's top-level `and` conjuncts that compare a
// property for equality with a literal, for callers that keep an index of
// property values: the entities holding an equal value are a superset of
// the matches, on which the filter is still evaluated.
func (f *Filter) Equalities() []Equality {
	if f == nil || f.root == nil {
		return nil
	}
	var out []Equality
	var walk func(n *node)
	walk = func(n *node) {
		switch n.kind {
		case nodeAnd:
			walk(n.left)
			walk(n.right)
		case nodeCmp:
			if n.op == OpEq {
				out = append(out, Equality{Prop: n.prop, Lit: n.lit})
			}
		}
	}
	walk(f.root)
	return out
}
