package odata

// Entity gives the evaluator the value of a property by name.
type Entity interface {
	// Property returns the value of name and whether the entity has it.
	Property(name string) (Value, bool)
}

// Match reports whether e satisfies the filter. A nil or empty filter
// matches everything.
func (f *Filter) Match(e Entity) bool {
	if f == nil || f.root == nil {
		return true
	}
	return eval(f.root, e)
}

func eval(n *node, e Entity) bool {
	switch n.kind {
	case nodeAnd:
		return eval(n.left, e) && eval(n.right, e)
	case nodeOr:
		return eval(n.left, e) || eval(n.right, e)
	case nodeNot:
		return !eval(n.left, e)
	case nodeConst:
		return n.truth
	case nodeBool:
		v, ok := e.Property(n.prop)
		return ok && v.Kind == KindBool && v.Int == 1
	case nodeCmp:
		v, ok := e.Property(n.prop)
		if !ok {
			return false
		}
		c, ok := compare(v, n.lit)
		return ok && holds(n.op, c)
	}
	return false
}

// holds applies op to a three-way comparison result.
func holds(op CmpOp, c int) bool {
	switch op {
	case OpEq:
		return c == 0
	case OpNe:
		return c != 0
	case OpGt:
		return c > 0
	case OpGe:
		return c >= 0
	case OpLt:
		return c < 0
	case OpLe:
		return c <= 0
	}
	return false
}
