package quickquery

import (
	"time"
	"unicode/utf8"
)

// record is one input row: a CSV record or a JSON value.
type record interface {
	// field resolves a field reference: by name (the path's first step,
	// then members and indexes into JSON) or, in CSV, by ordinal.
	field(f *fieldRef) value
	// all is the record's fields in order, for SELECT *.
	all() (names []string, values []value)
}

// evaluator evaluates expressions over records. now is UTCNOW's answer.
type evaluator struct {
	now time.Time
}

func (ev *evaluator) eval(e expr, r record) (value, error) {
	switch x := e.(type) {
	case *literal:
		return x.v, nil
	case *fieldRef:
		return r.field(x), nil
	case *unary:
		return ev.unary(x, r)
	case *binary:
		return ev.binary(x, r)
	case *isTest:
		v, err := ev.eval(x.x, r)
		if err != nil {
			return null, err
		}
		is := v.k == kindMissing || (!x.missing && v.k == kindNull)
		return boolValue(is != x.not), nil
	case *between:
		return ev.between(x, r)
	case *inList:
		return ev.in(x, r)
	case *likeTest:
		return ev.like(x, r)
	case *castExpr:
		v, err := ev.eval(x.x, r)
		if err != nil {
			return null, err
		}
		return castTo(v, x.to)
	case *call:
		args := make([]value, len(x.args))
		for i, a := range x.args {
			v, err := ev.eval(a, r)
			if err != nil {
				return null, err
			}
			args[i] = v
		}
		return ev.callFunction(x, args)
	}
	return null, errInvalidArgument // an aggregate outside the SELECT list never parses
}

// truth is a three-valued boolean: NULL and MISSING are unknown.
func truth(v value) (b, known bool, err error) {
	if v.isNullOrMissing() {
		return false, false, nil
	}
	b, err = v.asBool()
	return b, true, err
}

func unknownOr(b, known bool) value {
	if !known {
		return null
	}
	return boolValue(b)
}

func (ev *evaluator) unary(x *unary, r record) (value, error) {
	v, err := ev.eval(x.x, r)
	if err != nil || v.isNullOrMissing() {
		return null, err
	}
	if x.op == "NOT" {
		b, known, err := truth(v)
		return unknownOr(!b, known), err
	}
	n, err := v.asNumber()
	if err != nil {
		return null, err
	}
	if n.k == kindInt {
		return intValue(-n.i), nil
	}
	return floatValue(-n.f), nil
}

func (ev *evaluator) binary(x *binary, r record) (value, error) {
	l, err := ev.eval(x.l, r)
	if err != nil {
		return null, err
	}
	if x.op == "AND" || x.op == "OR" {
		return ev.logical(x, l, r)
	}
	rv, err := ev.eval(x.r, r)
	if err != nil {
		return null, err
	}
	switch x.op {
	case "=", "!=", "<", "<=", ">", ">=":
		cmp, ok, err := compareValues(l, rv)
		if err != nil || !ok {
			return null, err
		}
		return boolValue(comparisonHolds(x.op, cmp)), nil
	case "||":
		if l.isNullOrMissing() || rv.isNullOrMissing() {
			return null, nil
		}
		a, err1 := l.asString()
		b, err2 := rv.asString()
		if err1 != nil || err2 != nil {
			return null, errTypeConversion
		}
		return stringValue(a + b), nil
	}
	return arithmetic(x.op, l, rv)
}

func comparisonHolds(op string, cmp int) bool {
	switch op {
	case "=":
		return cmp == 0
	case "!=":
		return cmp != 0
	case "<":
		return cmp < 0
	case "<=":
		return cmp <= 0
	case ">":
		return cmp > 0
	}
	return cmp >= 0
}

// logical evaluates AND and OR with SQL's three-valued logic, looking at
// the right side only when the left does not decide.
func (ev *evaluator) logical(x *binary, l value, r record) (value, error) {
	a, aKnown, err := truth(l)
	if err != nil {
		return null, err
	}
	if aKnown && a == (x.op == "OR") {
		return boolValue(a), nil
	}
	rv, err := ev.eval(x.r, r)
	if err != nil {
		return null, err
	}
	b, bKnown, err := truth(rv)
	if err != nil {
		return null, err
	}
	if bKnown && b == (x.op == "OR") {
		return boolValue(b), nil
	}
	return unknownOr(b, aKnown && bKnown), nil
}

// arithmetic applies + - * / % to numbers (strings read as numbers); a
// number added to or taken from a timestamp counts days.
func arithmetic(op string, l, r value) (value, error) {
	if l.isNullOrMissing() || r.isNullOrMissing() {
		return null, nil
	}
	if l.k == kindTime && (op == "+" || op == "-") {
		days, err := r.asFloat()
		if err != nil {
			return null, err
		}
		if op == "-" {
			days = -days
		}
		return timeValue(l.t.Add(time.Duration(days * float64(24*time.Hour)))), nil
	}
	a, err1 := l.asNumber()
	b, err2 := r.asNumber()
	if err1 != nil || err2 != nil {
		return null, errTypeConversion
	}
	if a.k == kindInt && b.k == kindInt {
		return intArithmetic(op, a.i, b.i)
	}
	x, _ := a.asFloat()
	y, _ := b.asFloat()
	switch op {
	case "+":
		return floatValue(x + y), nil
	case "-":
		return floatValue(x - y), nil
	case "*":
		return floatValue(x * y), nil
	}
	if y == 0 {
		return null, errDivideByZero
	}
	if op == "/" {
		return floatValue(x / y), nil
	}
	return floatValue(x - y*float64(int64(x/y))), nil
}

func intArithmetic(op string, x, y int64) (value, error) {
	switch op {
	case "+":
		return intValue(x + y), nil
	case "-":
		return intValue(x - y), nil
	case "*":
		return intValue(x * y), nil
	}
	if y == 0 {
		return null, errDivideByZero
	}
	if op == "/" {
		return intValue(x / y), nil
	}
	return intValue(x % y), nil
}

func (ev *evaluator) between(x *between, r record) (value, error) {
	v, err := ev.eval(x.x, r)
	if err != nil {
		return null, err
	}
	lo, err := ev.eval(x.lo, r)
	if err != nil {
		return null, err
	}
	hi, err := ev.eval(x.hi, r)
	if err != nil {
		return null, err
	}
	c1, ok1, err := compareValues(v, lo)
	if err != nil {
		return null, err
	}
	c2, ok2, err := compareValues(v, hi)
	if err != nil || !ok1 || !ok2 {
		return null, err
	}
	return boolValue((c1 >= 0 && c2 <= 0) != x.not), nil
}

func (ev *evaluator) in(x *inList, r record) (value, error) {
	v, err := ev.eval(x.x, r)
	if err != nil || v.isNullOrMissing() {
		return null, err
	}
	unknown := false
	for _, e := range x.list {
		item, err := ev.eval(e, r)
		if err != nil {
			return null, err
		}
		cmp, ok, err := compareValues(v, item)
		if err != nil {
			return null, err
		}
		if !ok {
			unknown = true
		} else if cmp == 0 {
			return boolValue(!x.not), nil
		}
	}
	if unknown {
		return null, nil
	}
	return boolValue(x.not), nil
}

func (ev *evaluator) like(x *likeTest, r record) (value, error) {
	v, err := ev.eval(x.x, r)
	if err != nil {
		return null, err
	}
	p, err := ev.eval(x.pattern, r)
	if err != nil || v.isNullOrMissing() || p.isNullOrMissing() {
		return null, err
	}
	s, err1 := v.asString()
	pattern, err2 := p.asString()
	if err1 != nil || err2 != nil {
		return null, errTypeConversion
	}
	escape := rune(-1)
	if x.escape != nil {
		e, err := ev.eval(x.escape, r)
		if err != nil {
			return null, err
		}
		es, _ := e.asString()
		if utf8.RuneCountInString(es) != 1 {
			return null, errInvalidArgument
		}
		escape, _ = utf8.DecodeRuneInString(es)
	}
	return boolValue(likeMatch([]rune(s), []rune(pattern), escape) != x.not), nil
}

// likeMatch matches s against a LIKE pattern: % any run of characters, _
// one character, the escape character making the next one literal. It
// runs in O(len(s) × len(p)) whatever the pattern, so that no query can make
// it backtrack exponentially.
func likeMatch(s, p []rune, escape rune) bool {
	type elem struct {
		r         rune
		one, many bool
	}
	var pat []elem
	for i := 0; i < len(p); i++ {
		switch {
		case p[i] == escape && i+1 < len(p):
			i++
			pat = append(pat, elem{r: p[i]})
		case p[i] == '%':
			pat = append(pat, elem{many: true})
		case p[i] == '_':
			pat = append(pat, elem{one: true})
		default:
			pat = append(pat, elem{r: p[i]})
		}
	}
	// match[j]: the first i runes of s match the first j elements.
	match := make([]bool, len(pat)+1)
	match[0] = true
	for j, e := range pat {
		match[j+1] = match[j] && e.many
	}
	for _, c := range s {
		prev := match[0]
		match[0] = false
		for j, e := range pat {
			cur := match[j+1]
			switch {
			case e.many:
				match[j+1] = match[j] || cur
			case e.one || e.r == c:
				match[j+1] = prev
			default:
				match[j+1] = false
			}
			prev = cur
		}
	}
	return match[len(pat)]
}
