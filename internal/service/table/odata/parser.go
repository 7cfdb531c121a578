package odata

import "strings"

// MaxComparisons is the service's limit of discrete comparisons in one
// $filter.
const MaxComparisons = 15

// CmpOp is a comparison operator.
type CmpOp uint8

// Comparison operators.
const (
	OpEq CmpOp = iota
	OpNe
	OpGt
	OpGe
	OpLt
	OpLe
)

var cmpOps = map[string]CmpOp{"eq": OpEq, "ne": OpNe, "gt": OpGt, "ge": OpGe, "lt": OpLt, "le": OpLe}

// flip mirrors op for swapped operands: 5 lt X is X gt 5.
func (op CmpOp) flip() CmpOp {
	switch op {
	case OpGt:
		return OpLt
	case OpGe:
		return OpLe
	case OpLt:
		return OpGt
	case OpLe:
		return OpGe
	}
	return op
}

type nodeKind uint8

const (
	nodeAnd nodeKind = iota
	nodeOr
	nodeNot
	nodeCmp   // Prop op Lit (literal sides normalised to the right)
	nodeConst // a constant truth value (literal-only comparison or bare true/false)
	nodeBool  // a bare property: true when it is a Boolean true
)

// node is one expression tree node.
type node struct {
	kind        nodeKind
	left, right *node // And, Or; Not uses left
	prop        string
	op          CmpOp
	lit         Value
	truth       bool
}

// Filter is a parsed $filter.
type Filter struct {
	root *node
	// Props are the property names the filter reads, for record decoders
	// that decode only what is needed.
	Props []string
}

// Parse parses a $filter expression. An empty filter matches everything.
func Parse(src string) (*Filter, error) {
	p := &parser{lx: lexer{src: src}}
	if err := p.advance(); err != nil {
		return nil, err
	}
	f := &Filter{}
	if p.tok.kind == tokEOF {
		return f, nil
	}
	root, err := p.parseOr()
	if err != nil {
		return nil, err
	}
	if p.tok.kind != tokEOF {
		return nil, errAt(p.tok.pos, "unexpected %q after expression", p.tokText())
	}
	if p.comparisons > MaxComparisons {
		return nil, errAt(0, "more than %d discrete comparisons", MaxComparisons)
	}
	f.root = root
	f.Props = p.props
	return f, nil
}

type parser struct {
	lx          lexer
	tok         token
	comparisons int
	props       []string
	depth       int
}

// maxDepth bounds nesting so a hostile filter cannot exhaust the stack.
const maxDepth = 100

func (p *parser) advance() error {
	t, err := p.lx.next()
	if err != nil {
		return err
	}
	p.tok = t
	return nil
}

func (p *parser) tokText() string {
	switch p.tok.kind {
	case tokLParen:
		return "("
	case tokRParen:
		return ")"
	}
	return p.tok.text
}

// keyword reports whether the current token is the (case-insensitive)
// keyword w.
func (p *parser) keyword(w string) bool {
	return p.tok.kind == tokIdent && strings.EqualFold(p.tok.text, w)
}

func (p *parser) parseOr() (*node, error) {
	left, err := p.parseAnd()
	if err != nil {
		return nil, err
	}
	for p.keyword("or") {
		if err := p.advance(); err != nil {
			return nil, err
		}
		right, err := p.parseAnd()
		if err != nil {
			return nil, err
		}
		left = &node{kind: nodeOr, left: left, right: right}
	}
	return left, nil
}

func (p *parser) parseAnd() (*node, error) {
	left, err := p.parseUnary()
	if err != nil {
		return nil, err
	}
	for p.keyword("and") {
		if err := p.advance(); err != nil {
			return nil, err
		}
		right, err := p.parseUnary()
		if err != nil {
			return nil, err
		}
		left = &node{kind: nodeAnd, left: left, right: right}
	}
	return left, nil
}

// parseUnary applies not to the comparison (or group) that follows, so
// `not X eq 1` reads as `not (X eq 1)`.
func (p *parser) parseUnary() (*node, error) {
	if !p.keyword("not") {
		return p.parseComparison()
	}
	if err := p.advance(); err != nil {
		return nil, err
	}
	p.depth++
	if p.depth > maxDepth {
		return nil, errAt(p.tok.pos, "expression nested too deeply")
	}
	inner, err := p.parseUnary()
	p.depth--
	if err != nil {
		return nil, err
	}
	return &node{kind: nodeNot, left: inner}, nil
}

// operand is one side of a comparison before it is typed.
type operand struct {
	group  *node // a parenthesised expression
	prop   string
	lit    Value
	isProp bool
	isLit  bool
	pos    int
}

func (p *parser) parseComparison() (*node, error) {
	left, err := p.parseOperand()
	if err != nil {
		return nil, err
	}
	op, isCmp := cmpOps[strings.ToLower(p.tok.text)]
	if p.tok.kind != tokIdent || !isCmp {
		return p.standalone(left)
	}
	opPos := p.tok.pos
	if err := p.advance(); err != nil {
		return nil, err
	}
	right, err := p.parseOperand()
	if err != nil {
		return nil, err
	}
	if left.group != nil || right.group != nil {
		return nil, errAt(opPos, "a comparison needs a property or literal on each side")
	}
	p.comparisons++
	return p.comparison(left, op, right, opPos)
}

// standalone turns an operand that is not compared into a boolean node.
func (p *parser) standalone(o operand) (*node, error) {
	switch {
	case o.group != nil:
		return o.group, nil
	case o.isProp:
		p.comparisons++
		p.addProp(o.prop)
		return &node{kind: nodeBool, prop: o.prop}, nil
	case o.lit.Kind == KindBool:
		return &node{kind: nodeConst, truth: o.lit.Int == 1}, nil
	}
	return nil, errAt(o.pos, "expected a comparison operator")
}

func (p *parser) comparison(left operand, op CmpOp, right operand, pos int) (*node, error) {
	switch {
	case left.isProp && right.isLit:
		p.addProp(left.prop)
		return &node{kind: nodeCmp, prop: left.prop, op: op, lit: right.lit}, nil
	case left.isLit && right.isProp:
		p.addProp(right.prop)
		return &node{kind: nodeCmp, prop: right.prop, op: op.flip(), lit: left.lit}, nil
	case left.isLit && right.isLit:
		c, ok := compare(left.lit, right.lit)
		return &node{kind: nodeConst, truth: ok && holds(op, c)}, nil
	}
	return nil, errAt(pos, "comparing two properties is not supported")
}

func (p *parser) addProp(name string) {
	for _, have := range p.props {
		if have == name {
			return
		}
	}
	p.props = append(p.props, name)
}

func (p *parser) parseOperand() (operand, error) {
	t := p.tok
	switch t.kind {
	case tokLParen:
		return p.parseGroup()
	case tokLiteral:
		if err := p.advance(); err != nil {
			return operand{}, err
		}
		return operand{lit: t.val, isLit: true, pos: t.pos}, nil
	case tokIdent:
		if err := p.advance(); err != nil {
			return operand{}, err
		}
		switch strings.ToLower(t.text) {
		case "true":
			return operand{lit: Bool(true), isLit: true, pos: t.pos}, nil
		case "false":
			return operand{lit: Bool(false), isLit: true, pos: t.pos}, nil
		case "and", "or", "not", "eq", "ne", "gt", "ge", "lt", "le", "null":
			return operand{}, errAt(t.pos, "unexpected keyword %q", t.text)
		}
		return operand{prop: t.text, isProp: true, pos: t.pos}, nil
	case tokEOF:
		return operand{}, errAt(t.pos, "unexpected end of filter")
	}
	return operand{}, errAt(t.pos, "unexpected %q", p.tokText())
}

func (p *parser) parseGroup() (operand, error) {
	pos := p.tok.pos
	p.depth++
	if p.depth > maxDepth {
		return operand{}, errAt(pos, "expression nested too deeply")
	}
	if err := p.advance(); err != nil {
		return operand{}, err
	}
	inner, err := p.parseOr()
	if err != nil {
		return operand{}, err
	}
	if p.tok.kind != tokRParen {
		return operand{}, errAt(p.tok.pos, "missing closing parenthesis")
	}
	p.depth--
	if err := p.advance(); err != nil {
		return operand{}, err
	}
	return operand{group: inner, pos: pos}, nil
}
