package blob

import (
	"fmt"
	"strings"

	"github.com/lazuli-storage/lazuli/internal/service/blobdata"
)

// The tag query language of Find Blobs by Tags (where=) and of the
// x-ms-if-tags condition: comparisons of a tag key (in double quotes) with
// a value (in single quotes), joined by AND; conditions also take OR, <>
// and parentheses, and Find Blobs by Tags also takes @container = 'name'.
// Values compare as byte strings. A comparison on a key the blob does not
// have is false.

// tagOp is a comparison operator.
type tagOp byte

const (
	opEq tagOp = iota + 1
	opNe
	opGt
	opGe
	opLt
	opLe
)

// maxTagQueryLen bounds an expression; the service's own limit is far
// below it, and it keeps recursion shallow.
const maxTagQueryLen = 4096

// maxTagLogicalOps bounds the AND and OR operations of an x-ms-if-tags
// expression: "A TagsPredicate may include at most ten (10) logical
// operations" ("Specifying conditional headers for Blob service
// operations", Tags Predicate Syntax). Each joins two expressions, so an
// expression has one comparison more than it has logical operations.
const maxTagLogicalOps = 10

// maxFindTagKeys bounds the distinct tag keys of a Find Blobs by Tags
// query; @container does not count, and a range on one key is one key
// ("there can be at most 10 unique tags in a query").
const maxFindTagKeys = 10

// containerPseudoKey is the pseudo key of Find Blobs by Tags' container filter.
const containerPseudoKey = "@container"

// tagExpr is a node of a parsed expression: an AND or OR of two
// expressions, or a comparison.
type tagExpr struct {
	and, or     bool
	left, right *tagExpr

	key   string
	op    tagOp
	value string
}

// tagQueryMode selects the dialect.
type tagQueryMode int

const (
	findQuery      tagQueryMode = iota // Find Blobs by Tags: AND only, no <>, @container allowed
	conditionQuery                     // x-ms-if-tags: AND, OR, parentheses, <>
)

// tagQueryError is a malformed expression, worded as Find Blobs by Tags
// words it in its message: "Error parsing query at or near character
// position 12: '@' not permitted in tag name or value", or, for a rule of
// the query as a whole, "Error parsing query: there can be at most 10
// unique tags in a query" (the texts Azurite's filter-blob tests,
// tests/blob/apis/service.test.ts and container.test.ts, expect of Azure).
type tagQueryError struct {
	pos int // 1-based character position; 0 for the query as a whole
	msg string
}

func (e *tagQueryError) Error() string {
	if e.pos == 0 {
		return "Error parsing query: " + e.msg
	}
	return fmt.Sprintf("Error parsing query at or near character position %d: %s", e.pos, e.msg)
}

// queryRuleError is a tagQueryError of the query as a whole.
func queryRuleError(format string, args ...any) error {
	return &tagQueryError{msg: fmt.Sprintf(format, args...)}
}

// The service's words for a key or value outside the tag rules.
const (
	tagKeyLengthText   = "tag must be between 1 and 128 characters in length"
	tagValueLengthText = "tag value must be between 0 and 256 characters in length"
)

// parseTagQuery parses an expression in the given dialect.
func parseTagQuery(s string, mode tagQueryMode) (*tagExpr, error) {
	if len(s) > maxTagQueryLen {
		return nil, queryRuleError("longer than %d characters", maxTagQueryLen)
	}
	p := &tagParser{src: s, mode: mode}
	if err := p.next(); err != nil {
		return nil, err
	}
	e, err := p.parseOr(0)
	if err != nil {
		return nil, err
	}
	if p.tok.kind != tokEOF {
		return nil, p.errorf("unexpected %q", p.tok.text)
	}
	if mode == findQuery {
		return e, checkFindQuery(e)
	}
	if p.comparisons-1 > maxTagLogicalOps {
		return nil, queryRuleError("more than %d logical operations", maxTagLogicalOps)
	}
	return e, nil
}

// checkFindQuery applies Find Blobs by Tags' extra rules: at least one and
// at most maxFindTagKeys tag keys, @container only with =, and no two
// bounds on the same side of one key ("a" > '1' AND "a" >= '2').
func checkFindQuery(e *tagExpr) error {
	type sides struct{ lower, upper, eq bool }
	seen := map[string]*sides{}
	tagComparisons := 0
	for _, c := range e.comparisons() {
		if c.key == containerPseudoKey {
			if c.op != opEq {
				return queryRuleError("@container takes only =")
			}
			continue
		}
		tagComparisons++
		s := seen[c.key]
		if s == nil {
			s = &sides{}
			seen[c.key] = s
		}
		var dup bool
		switch c.op {
		case opEq:
			dup, s.eq = s.eq, true
		case opGt, opGe:
			dup, s.lower = s.lower, true
		case opLt, opLe:
			dup, s.upper = s.upper, true
		}
		if dup {
			return queryRuleError("can't have multiple conditions for a single tag unless they define a range")
		}
	}
	if tagComparisons == 0 {
		return queryRuleError("no tag condition")
	}
	if len(seen) > maxFindTagKeys {
		return queryRuleError("there can be at most %d unique tags in a query", maxFindTagKeys)
	}
	return nil
}

// comparisons lists the comparisons of an expression, left to right.
func (e *tagExpr) comparisons() []*tagExpr {
	if e.and || e.or {
		return append(e.left.comparisons(), e.right.comparisons()...)
	}
	return []*tagExpr{e}
}

// match evaluates the expression against a blob's tags; container is the
// blob's container, for @container.
func (e *tagExpr) match(tags blobdata.TagSet, container string) bool {
	switch {
	case e.and:
		return e.left.match(tags, container) && e.right.match(tags, container)
	case e.or:
		return e.left.match(tags, container) || e.right.match(tags, container)
	}
	var v string
	if e.key == containerPseudoKey {
		v = container
	} else {
		var ok bool
		if v, ok = tags.Get(e.key); !ok {
			return false
		}
	}
	switch e.op {
	case opEq:
		return v == e.value
	case opNe:
		return v != e.value
	case opGt:
		return v > e.value
	case opGe:
		return v >= e.value
	case opLt:
		return v < e.value
	default:
		return v <= e.value
	}
}

// keys reports the tag keys an expression names.
func (e *tagExpr) keys() map[string]bool {
	keys := map[string]bool{}
	for _, c := range e.comparisons() {
		keys[c.key] = true
	}
	return keys
}

type tokenKind int

const (
	tokEOF tokenKind = iota
	tokKey
	tokValue
	tokOp
	tokAnd
	tokOr
	tokLParen
	tokRParen
)

type token struct {
	kind tokenKind
	text string // key or value text, or the operator
	op   tagOp
}

type tagParser struct {
	src         string
	pos         int
	start       int // where the current token starts
	tok         token
	mode        tagQueryMode
	comparisons int
}

// errorf is a malformed expression at the current token.
func (p *tagParser) errorf(format string, args ...any) error {
	return p.errorAt(p.start, format, args...)
}

// errorAt is a malformed expression at byte offset off of the source.
func (p *tagParser) errorAt(off int, format string, args ...any) error {
	return &tagQueryError{pos: off + 1, msg: fmt.Sprintf(format, args...)}
}

// maxDepth bounds parenthesis nesting.
const maxDepth = 32

func (p *tagParser) parseOr(depth int) (*tagExpr, error) {
	left, err := p.parseAnd(depth)
	if err != nil {
		return nil, err
	}
	for p.tok.kind == tokOr {
		if p.mode == findQuery {
			return nil, p.errorf("OR is not supported by Find Blobs by Tags")
		}
		if err := p.next(); err != nil {
			return nil, err
		}
		right, err := p.parseAnd(depth)
		if err != nil {
			return nil, err
		}
		left = &tagExpr{or: true, left: left, right: right}
	}
	return left, nil
}

func (p *tagParser) parseAnd(depth int) (*tagExpr, error) {
	left, err := p.parsePrimary(depth)
	if err != nil {
		return nil, err
	}
	for p.tok.kind == tokAnd {
		if err := p.next(); err != nil {
			return nil, err
		}
		right, err := p.parsePrimary(depth)
		if err != nil {
			return nil, err
		}
		left = &tagExpr{and: true, left: left, right: right}
	}
	return left, nil
}

func (p *tagParser) parsePrimary(depth int) (*tagExpr, error) {
	if p.tok.kind == tokLParen {
		if p.mode == findQuery {
			return nil, p.errorf("parentheses are not supported by Find Blobs by Tags")
		}
		if depth >= maxDepth {
			return nil, p.errorf("parentheses nested too deeply")
		}
		if err := p.next(); err != nil {
			return nil, err
		}
		e, err := p.parseOr(depth + 1)
		if err != nil {
			return nil, err
		}
		if p.tok.kind != tokRParen {
			return nil, p.errorf("missing )")
		}
		return e, p.next()
	}
	return p.parseComparison()
}

func (p *tagParser) parseComparison() (*tagExpr, error) {
	if p.tok.kind != tokKey {
		return nil, p.errorf("expected a tag key")
	}
	e := &tagExpr{key: p.tok.text}
	if e.key == containerPseudoKey && p.mode != findQuery {
		return nil, p.errorf("@container is only supported by Find Blobs by Tags")
	}
	if err := p.next(); err != nil {
		return nil, err
	}
	if p.tok.kind != tokOp {
		return nil, p.errorf("expected a comparison operator")
	}
	e.op = p.tok.op
	if e.op == opNe && p.mode == findQuery {
		return nil, p.errorf("<> is not supported by Find Blobs by Tags")
	}
	if err := p.next(); err != nil {
		return nil, err
	}
	if p.tok.kind != tokValue {
		return nil, p.errorf("expected a value in single quotes")
	}
	e.value = p.tok.text
	p.comparisons++
	return e, p.next()
}

// next reads the next token.
func (p *tagParser) next() error {
	for p.pos < len(p.src) && (p.src[p.pos] == ' ' || p.src[p.pos] == '\t') {
		p.pos++
	}
	p.start = p.pos
	if p.pos >= len(p.src) {
		p.tok = token{kind: tokEOF}
		return nil
	}
	c := p.src[p.pos]
	switch {
	case c == '(':
		p.pos++
		p.tok = token{kind: tokLParen, text: "("}
	case c == ')':
		p.pos++
		p.tok = token{kind: tokRParen, text: ")"}
	case c == '"':
		return p.quoted('"', tokKey)
	case c == '\'':
		return p.quoted('\'', tokValue)
	case c == '=' || c == '<' || c == '>':
		p.operator()
	case c == '@':
		return p.pseudoKey()
	case isWordChar(c):
		return p.word()
	default:
		return p.errorf("unexpected character %q", c)
	}
	return nil
}

func (p *tagParser) quoted(q byte, kind tokenKind) error {
	end := strings.IndexByte(p.src[p.pos+1:], q)
	if end < 0 {
		return p.errorf("unterminated quoted text")
	}
	text := p.src[p.pos+1 : p.pos+1+end]
	if i := invalidTagChar(text); i >= 0 {
		return p.errorAt(p.pos+1+i, "'%c' not permitted in tag name or value", text[i])
	}
	if kind == tokKey && (text == "" || len(text) > maxTagKeyLen) {
		return p.errorf(tagKeyLengthText)
	}
	if kind == tokValue && len(text) > maxTagValueLen {
		return p.errorf(tagValueLengthText)
	}
	p.pos += end + 2
	p.tok = token{kind: kind, text: text}
	return nil
}

// pseudoKey reads an @ name, of which only @container is defined.
func (p *tagParser) pseudoKey() error {
	end := p.pos + 1
	for end < len(p.src) && isWordChar(p.src[end]) {
		end++
	}
	if name := p.src[p.pos:end]; name != containerPseudoKey {
		return p.errorf("unsupported parameter '%s'", name)
	}
	p.pos = end
	p.tok = token{kind: tokKey, text: containerPseudoKey}
	return nil
}

func (p *tagParser) operator() {
	two := p.src[p.pos:min(p.pos+2, len(p.src))]
	ops := []struct {
		text string
		op   tagOp
	}{{"<>", opNe}, {">=", opGe}, {"<=", opLe}, {"=", opEq}, {">", opGt}, {"<", opLt}}
	for _, o := range ops {
		if strings.HasPrefix(two, o.text) {
			p.pos += len(o.text)
			p.tok = token{kind: tokOp, text: o.text, op: o.op}
			return
		}
	}
}

// word reads AND, OR, or an unquoted key of letters, digits and '_'.
func (p *tagParser) word() error {
	start := p.pos
	for p.pos < len(p.src) && isWordChar(p.src[p.pos]) {
		p.pos++
	}
	w := p.src[start:p.pos]
	switch {
	case strings.EqualFold(w, "AND"):
		p.tok = token{kind: tokAnd, text: w}
	case strings.EqualFold(w, "OR"):
		p.tok = token{kind: tokOr, text: w}
	case len(w) > maxTagKeyLen:
		return p.errorf(tagKeyLengthText)
	default:
		p.tok = token{kind: tokKey, text: w}
	}
	return nil
}

func isWordChar(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_'
}
