package quickquery

import (
	"fmt"
	"strconv"
	"strings"
)

// expr is a node of a parsed expression.
type expr interface{}

type (
	literal  struct{ v value }
	fieldRef struct {
		path    []pathStep // first step is the field; more reach into JSON
		ordinal int        // _N of CSV data, 0 otherwise
	}
	unary struct {
		op string
		x  expr
	}
	binary struct {
		op   string
		l, r expr
	}
	isTest struct {
		x       expr
		missing bool // IS MISSING, otherwise IS NULL
		not     bool
	}
	between struct {
		x, lo, hi expr
		not       bool
	}
	inList struct {
		x    expr
		list []expr
		not  bool
	}
	likeTest struct {
		x, pattern, escape expr
		not                bool
	}
	castExpr struct {
		x  expr
		to kind
	}
	call struct {
		name string
		args []expr
	}
	aggregate struct {
		fn string // COUNT, AVG, MIN, MAX, SUM
		x  expr   // nil for COUNT(*)
	}
)

// pathStep is one step of a field path: a member name or an array index
// (index >= 0), or every element of an array (wildcard, in FROM only).
type pathStep struct {
	name     string
	quoted   bool // a quoted name matches case-sensitively
	index    int
	wildcard bool
}

func nameStep(name string, quoted bool) pathStep {
	return pathStep{name: name, quoted: quoted, index: -1}
}

// projection is one expression of the SELECT list.
type projection struct {
	e    expr
	name string // output name (JSON output): the field's name, or _N
}

// Query is a parsed SELECT statement.
type Query struct {
	star        bool
	projections []projection
	aggregated  bool
	from        []pathStep // after BlobStorage
	where       expr
	limit       int64 // -1: none
	splitSize   int64 // sys.split(n): > 0
}

// maxProjections is the service's limit on listed columns.
const maxProjections = 49

// Parse parses a query of the quick query SQL dialect (the "Query
// acceleration SQL language reference" page).
func Parse(src string) (*Query, error) {
	toks, err := lex(src)
	if err != nil {
		return nil, err
	}
	p := &parser{toks: toks}
	q, err := p.statement()
	if err != nil {
		return nil, err
	}
	return q, nil
}

type parser struct {
	toks []token
	i    int
}

func (p *parser) peek() token { return p.toks[p.i] }
func (p *parser) next() token {
	t := p.toks[p.i]
	if t.kind != tokEOF {
		p.i++
	}
	return t
}

func (p *parser) fail(format string, args ...any) error {
	return &SyntaxError{p.peek().pos, fmt.Sprintf(format, args...)}
}

// keyword reports whether the next token is the keyword kw (any case) and
// consumes it if so.
func (p *parser) keyword(kw string) bool {
	t := p.peek()
	if t.kind == tokIdent && strings.EqualFold(t.text, kw) {
		p.i++
		return true
	}
	return false
}

func (p *parser) symbol(s string) bool {
	t := p.peek()
	if t.kind == tokSymbol && t.text == s {
		p.i++
		return true
	}
	return false
}

func (p *parser) expectKeyword(kw string) error {
	if !p.keyword(kw) {
		return p.fail("expected %s", kw)
	}
	return nil
}

func (p *parser) expectSymbol(s string) error {
	if !p.symbol(s) {
		return p.fail("expected %q", s)
	}
	return nil
}

func (p *parser) statement() (*Query, error) {
	q := &Query{limit: -1}
	if err := p.expectKeyword("SELECT"); err != nil {
		return nil, err
	}
	if err := p.selectList(q); err != nil {
		return nil, err
	}
	if err := p.expectKeyword("FROM"); err != nil {
		return nil, err
	}
	if err := p.table(q); err != nil {
		return nil, err
	}
	if p.keyword("WHERE") {
		w, err := p.expr()
		if err != nil {
			return nil, err
		}
		if containsAggregate(w) {
			return nil, p.fail("an aggregate cannot appear in WHERE")
		}
		q.where = w
	}
	if p.keyword("LIMIT") {
		t := p.next()
		n, err := strconv.ParseInt(t.text, 10, 64)
		if t.kind != tokNumber || err != nil || n < 0 {
			return nil, &SyntaxError{t.pos, "LIMIT takes a whole number"}
		}
		q.limit = n
	}
	// A statement may end in a semicolon: Azure answers "... WHERE _1 > 250;"
	// (azure-sdk-for-net BlobQuickQueryTests' QueryAsync_ArrowConfiguration
	// recording, replayed in replay_test.go).
	p.symbol(";")
	if p.peek().kind != tokEOF {
		return nil, p.fail("unexpected %q", p.peek().text)
	}
	return q, nil
}

func (p *parser) selectList(q *Query) error {
	if p.symbol("*") {
		q.star = true
		return nil
	}
	if p.splitCall(q) {
		return nil
	}
	for {
		e, err := p.expr()
		if err != nil {
			return err
		}
		q.projections = append(q.projections, projection{e: e, name: outputName(e, len(q.projections)+1)})
		if !p.symbol(",") {
			break
		}
	}
	if len(q.projections) > maxProjections {
		return p.fail("at most %d expressions may be selected; use SELECT *", maxProjections)
	}
	aggregates := 0
	for _, pr := range q.projections {
		if _, ok := pr.e.(*aggregate); ok {
			aggregates++
		} else if containsAggregate(pr.e) {
			return p.fail("an aggregate must be a whole selected expression")
		}
	}
	if aggregates > 0 && aggregates != len(q.projections) {
		return p.fail("a SELECT holds either projections or aggregates, not both")
	}
	q.aggregated = aggregates > 0
	return nil
}

// splitCall parses sys.split(n), the CSV splitting form.
func (p *parser) splitCall(q *Query) bool {
	if p.i+3 >= len(p.toks) || !strings.EqualFold(p.toks[p.i].text, "sys") || p.toks[p.i+1].text != "." ||
		!strings.EqualFold(p.toks[p.i+2].text, "split") || p.toks[p.i+3].text != "(" {
		return false
	}
	start := p.i
	p.i += 4
	t := p.next()
	n, err := strconv.ParseInt(t.text, 10, 64)
	if t.kind != tokNumber || err != nil || n <= 0 || !p.symbol(")") {
		p.i = start
		return false
	}
	q.splitSize = n
	return true
}

// outputName is the name a projection gets in JSON output: a field keeps
// its own name; any other expression is named by its position, _N.
func outputName(e expr, position int) string {
	if f, ok := e.(*fieldRef); ok {
		if f.ordinal > 0 {
			return "_" + strconv.Itoa(f.ordinal)
		}
		for i := len(f.path) - 1; i >= 0; i-- {
			if f.path[i].index < 0 {
				return f.path[i].name
			}
		}
	}
	return "_" + strconv.Itoa(position)
}

// table parses BlobStorage, BlobStorage[*] and BlobStorage[*].path.
func (p *parser) table(q *Query) error {
	if !p.keyword("BlobStorage") {
		return p.fail("the table must be BlobStorage")
	}
	if !p.symbol("[") {
		return nil
	}
	if !p.symbol("*") || !p.symbol("]") {
		return p.fail("expected [*] after BlobStorage")
	}
	for p.symbol(".") || p.peek().text == "[" {
		if p.symbol("[") {
			if p.symbol("*") {
				q.from = append(q.from, pathStep{index: -1, wildcard: true})
			} else {
				n, err := p.index()
				if err != nil {
					return err
				}
				q.from = append(q.from, pathStep{index: n})
			}
			if err := p.expectSymbol("]"); err != nil {
				return err
			}
			continue
		}
		t := p.next()
		if t.kind != tokIdent && t.kind != tokQuotedIdent {
			return &SyntaxError{t.pos, "expected a member name in the table path"}
		}
		q.from = append(q.from, nameStep(t.text, t.kind == tokQuotedIdent))
	}
	return nil
}

func (p *parser) index() (int, error) {
	t := p.next()
	n, err := strconv.Atoi(t.text)
	if t.kind != tokNumber || err != nil || n < 0 {
		return 0, &SyntaxError{t.pos, "expected an array index"}
	}
	return n, nil
}

func (p *parser) expr() (expr, error) { return p.or() }

func (p *parser) or() (expr, error) {
	l, err := p.and()
	for err == nil && p.keyword("OR") {
		var r expr
		if r, err = p.and(); err == nil {
			l = &binary{"OR", l, r}
		}
	}
	return l, err
}

func (p *parser) and() (expr, error) {
	l, err := p.not()
	for err == nil && p.keyword("AND") {
		var r expr
		if r, err = p.not(); err == nil {
			l = &binary{"AND", l, r}
		}
	}
	return l, err
}

func (p *parser) not() (expr, error) {
	if p.keyword("NOT") {
		x, err := p.not()
		return &unary{"NOT", x}, err
	}
	return p.comparison()
}

func (p *parser) comparison() (expr, error) {
	l, err := p.additive()
	if err != nil {
		return nil, err
	}
	for _, op := range []string{"=", "!=", "<>", "<=", ">=", "<", ">"} {
		if p.symbol(op) {
			r, err := p.additive()
			if op == "<>" {
				op = "!="
			}
			return &binary{op, l, r}, err
		}
	}
	if p.keyword("IS") {
		t := &isTest{x: l, not: p.keyword("NOT")}
		switch {
		case p.keyword("NULL"):
		case p.keyword("MISSING"):
			t.missing = true
		default:
			return nil, p.fail("expected NULL or MISSING after IS")
		}
		return t, nil
	}
	not := p.keyword("NOT")
	switch {
	case p.keyword("BETWEEN"):
		lo, err := p.additive()
		if err != nil {
			return nil, err
		}
		if err := p.expectKeyword("AND"); err != nil {
			return nil, err
		}
		hi, err := p.additive()
		return &between{l, lo, hi, not}, err
	case p.keyword("IN"):
		list, err := p.argList()
		return &inList{l, list, not}, err
	case p.keyword("LIKE"):
		pattern, err := p.additive()
		if err != nil {
			return nil, err
		}
		t := &likeTest{x: l, pattern: pattern, not: not}
		if p.keyword("ESCAPE") {
			t.escape, err = p.additive()
		}
		return t, err
	case not:
		return nil, p.fail("expected BETWEEN, IN or LIKE after NOT")
	}
	return l, nil
}

func (p *parser) additive() (expr, error) {
	l, err := p.multiplicative()
	for err == nil {
		t := p.peek()
		if t.kind != tokSymbol || (t.text != "+" && t.text != "-" && t.text != "||") {
			break
		}
		p.i++
		var r expr
		if r, err = p.multiplicative(); err == nil {
			l = &binary{t.text, l, r}
		}
	}
	return l, err
}

func (p *parser) multiplicative() (expr, error) {
	l, err := p.unaryMinus()
	for err == nil {
		t := p.peek()
		if t.kind != tokSymbol || (t.text != "*" && t.text != "/" && t.text != "%") {
			break
		}
		p.i++
		var r expr
		if r, err = p.unaryMinus(); err == nil {
			l = &binary{t.text, l, r}
		}
	}
	return l, err
}

func (p *parser) unaryMinus() (expr, error) {
	if p.symbol("-") {
		x, err := p.unaryMinus()
		return &unary{"-", x}, err
	}
	p.symbol("+")
	return p.primary()
}

// argList parses "(e, e, ...)".
func (p *parser) argList() ([]expr, error) {
	if err := p.expectSymbol("("); err != nil {
		return nil, err
	}
	var list []expr
	if p.symbol(")") {
		return list, nil
	}
	for {
		e, err := p.expr()
		if err != nil {
			return nil, err
		}
		list = append(list, e)
		if p.symbol(")") {
			return list, nil
		}
		if err := p.expectSymbol(","); err != nil {
			return nil, err
		}
	}
}

func (p *parser) primary() (expr, error) {
	t := p.peek()
	switch t.kind {
	case tokNumber:
		p.i++
		return numberLiteral(t)
	case tokString:
		p.i++
		return &literal{stringValue(t.text)}, nil
	case tokQuotedIdent:
		return p.fieldPath()
	case tokSymbol:
		if p.symbol("(") {
			e, err := p.expr()
			if err != nil {
				return nil, err
			}
			return e, p.expectSymbol(")")
		}
		return nil, p.fail("unexpected %q", t.text)
	case tokEOF:
		return nil, p.fail("unexpected end of the expression")
	}
	upper := strings.ToUpper(t.text)
	switch upper {
	case "TRUE", "FALSE":
		p.i++
		return &literal{boolValue(upper == "TRUE")}, nil
	case "NULL":
		p.i++
		return &literal{null}, nil
	}
	if p.toks[p.i+1].text == "(" && p.toks[p.i+1].kind == tokSymbol {
		return p.function(upper)
	}
	return p.fieldPath()
}

func numberLiteral(t token) (expr, error) {
	if i, err := strconv.ParseInt(t.text, 10, 64); err == nil {
		return &literal{intValue(i)}, nil
	}
	f, err := strconv.ParseFloat(t.text, 64)
	if err != nil {
		return nil, &SyntaxError{t.pos, "bad number " + t.text}
	}
	return &literal{floatValue(f)}, nil
}

// fieldPath parses a field reference: name, "Quoted Name" or _N, then
// .member and [index] steps into JSON values.
func (p *parser) fieldPath() (expr, error) {
	t := p.next()
	f := &fieldRef{path: []pathStep{nameStep(t.text, t.kind == tokQuotedIdent)}}
	if t.kind == tokIdent && len(t.text) > 1 && t.text[0] == '_' {
		if n, err := strconv.Atoi(t.text[1:]); err == nil && n > 0 {
			f.ordinal = n
		}
	}
	for {
		switch {
		case p.symbol("."):
			m := p.next()
			if m.kind != tokIdent && m.kind != tokQuotedIdent {
				return nil, &SyntaxError{m.pos, "expected a member name after '.'"}
			}
			f.path = append(f.path, nameStep(m.text, m.kind == tokQuotedIdent))
		case p.symbol("["):
			n, err := p.index()
			if err != nil {
				return nil, err
			}
			if err := p.expectSymbol("]"); err != nil {
				return nil, err
			}
			f.path = append(f.path, pathStep{index: n})
		default:
			return f, nil
		}
	}
}

func containsAggregate(e expr) bool {
	found := false
	walk(e, func(x expr) {
		if _, ok := x.(*aggregate); ok {
			found = true
		}
	})
	return found
}

// walk calls fn on e and every expression below it.
func walk(e expr, fn func(expr)) {
	if e == nil {
		return
	}
	fn(e)
	switch x := e.(type) {
	case *unary:
		walk(x.x, fn)
	case *binary:
		walk(x.l, fn)
		walk(x.r, fn)
	case *isTest:
		walk(x.x, fn)
	case *between:
		walk(x.x, fn)
		walk(x.lo, fn)
		walk(x.hi, fn)
	case *inList:
		walk(x.x, fn)
		for _, y := range x.list {
			walk(y, fn)
		}
	case *likeTest:
		walk(x.x, fn)
		walk(x.pattern, fn)
		walk(x.escape, fn)
	case *castExpr:
		walk(x.x, fn)
	case *call:
		for _, y := range x.args {
			walk(y, fn)
		}
	case *aggregate:
		walk(x.x, fn)
	}
}
