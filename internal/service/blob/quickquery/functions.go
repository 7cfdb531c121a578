package quickquery

import (
	"strings"
	"unicode/utf8"
)

// arity bounds the arguments of the functions that take a plain list.
var arity = map[string][2]int{
	"CHAR_LENGTH": {1, 1}, "CHARACTER_LENGTH": {1, 1}, "LOWER": {1, 1}, "UPPER": {1, 1},
	"NULLIF": {2, 2}, "COALESCE": {1, 1 << 10}, "TO_STRING": {2, 2}, "TO_TIMESTAMP": {1, 1},
	"UTCNOW": {0, 0}, "DATE_ADD": {3, 3}, "DATE_DIFF": {3, 3},
}

var aggregates = map[string]string{"COUNT": "COUNT", "AVG": "AVG", "AVERAGE": "AVG", "MIN": "MIN", "MAX": "MAX", "SUM": "SUM"}

// function parses a call of the function name, whose "(" is next.
func (p *parser) function(name string) (expr, error) {
	p.i++ // the name
	switch name {
	case "CAST":
		return p.cast()
	case "TRIM":
		return p.trim()
	case "SUBSTRING":
		return p.substring()
	case "EXTRACT":
		return p.extract()
	}
	if fn, ok := aggregates[name]; ok {
		return p.aggregate(fn)
	}
	bounds, ok := arity[name]
	if !ok {
		return nil, p.fail("unknown function %s", name)
	}
	if name == "DATE_ADD" || name == "DATE_DIFF" {
		return p.dateFunction(name)
	}
	args, err := p.argList()
	if err != nil {
		return nil, err
	}
	if len(args) < bounds[0] || len(args) > bounds[1] {
		return nil, p.fail("wrong number of arguments to %s", name)
	}
	return &call{name, args}, nil
}

func (p *parser) cast() (expr, error) {
	if err := p.expectSymbol("("); err != nil {
		return nil, err
	}
	x, err := p.expr()
	if err != nil {
		return nil, err
	}
	if err := p.expectKeyword("AS"); err != nil {
		return nil, err
	}
	t := p.next()
	to, ok := typeNames[strings.ToUpper(t.text)]
	if t.kind != tokIdent || !ok {
		return nil, &SyntaxError{t.pos, "unknown type " + t.text}
	}
	return &castExpr{x, to}, p.expectSymbol(")")
}

var typeNames = map[string]kind{
	"INT": kindInt, "INTEGER": kindInt, "FLOAT": kindFloat, "DOUBLE": kindFloat, "DECIMAL": kindFloat, "NUMERIC": kindFloat,
	"STRING": kindString, "VARCHAR": kindString, "CHAR": kindString, "TIMESTAMP": kindTime, "BOOL": kindBool, "BOOLEAN": kindBool,
}

func (p *parser) aggregate(fn string) (expr, error) {
	if err := p.expectSymbol("("); err != nil {
		return nil, err
	}
	if fn == "COUNT" && p.symbol("*") {
		return &aggregate{fn: fn}, p.expectSymbol(")")
	}
	x, err := p.expr()
	if err != nil {
		return nil, err
	}
	if containsAggregate(x) {
		return nil, p.fail("aggregates cannot be nested")
	}
	return &aggregate{fn: fn, x: x}, p.expectSymbol(")")
}

// trim parses TRIM([[BOTH|LEADING|TRAILING] [chars] FROM] s) into a call
// with the mode, the characters (nil: a space) and the string.
func (p *parser) trim() (expr, error) {
	if err := p.expectSymbol("("); err != nil {
		return nil, err
	}
	mode := "BOTH"
	explicitMode := false
	for _, m := range []string{"BOTH", "LEADING", "TRAILING"} {
		if p.keyword(m) {
			mode, explicitMode = m, true
			break
		}
	}
	var chars expr = &literal{stringValue(" ")}
	var s expr
	var err error
	if explicitMode && p.keyword("FROM") {
		s, err = p.expr()
	} else {
		if s, err = p.expr(); err != nil {
			return nil, err
		}
		if p.keyword("FROM") {
			chars = s
			s, err = p.expr()
		} else if explicitMode {
			return nil, p.fail("expected FROM in TRIM")
		}
	}
	if err != nil {
		return nil, err
	}
	return &call{"TRIM", []expr{&literal{stringValue(mode)}, chars, s}}, p.expectSymbol(")")
}

// substring parses SUBSTRING(s, start[, length]) and SUBSTRING(s FROM
// start [FOR length]).
func (p *parser) substring() (expr, error) {
	if err := p.expectSymbol("("); err != nil {
		return nil, err
	}
	s, err := p.expr()
	if err != nil {
		return nil, err
	}
	args := []expr{s}
	standard := p.keyword("FROM") // SUBSTRING(s FROM start FOR n)
	if !standard {
		if err := p.expectSymbol(","); err != nil {
			return nil, err
		}
	}
	start, err := p.expr()
	if err != nil {
		return nil, err
	}
	args = append(args, start)
	if (!standard && p.symbol(",")) || (standard && p.keyword("FOR")) {
		n, err := p.expr()
		if err != nil {
			return nil, err
		}
		args = append(args, n)
	}
	return &call{"SUBSTRING", args}, p.expectSymbol(")")
}

// dateParts are the parts DATE_ADD, DATE_DIFF and EXTRACT take.
var dateParts = map[string]bool{"YEAR": true, "MONTH": true, "DAY": true, "HOUR": true, "MINUTE": true, "SECOND": true}

// datePart parses a date part, written as a keyword or a string.
func (p *parser) datePart(extract bool) (expr, error) {
	t := p.next()
	part := strings.ToUpper(t.text)
	ok := (t.kind == tokIdent || t.kind == tokString) && (dateParts[part] ||
		extract && (part == "TIMEZONE_HOUR" || part == "TIMEZONE_MINUTE"))
	if !ok {
		return nil, &SyntaxError{t.pos, "unknown date part " + t.text}
	}
	return &literal{stringValue(part)}, nil
}

func (p *parser) extract() (expr, error) {
	if err := p.expectSymbol("("); err != nil {
		return nil, err
	}
	part, err := p.datePart(true)
	if err != nil {
		return nil, err
	}
	if err := p.expectKeyword("FROM"); err != nil {
		return nil, err
	}
	ts, err := p.expr()
	if err != nil {
		return nil, err
	}
	return &call{"EXTRACT", []expr{part, ts}}, p.expectSymbol(")")
}

func (p *parser) dateFunction(name string) (expr, error) {
	if err := p.expectSymbol("("); err != nil {
		return nil, err
	}
	part, err := p.datePart(false)
	if err != nil {
		return nil, err
	}
	args := []expr{part}
	for i := 0; i < 2; i++ {
		if err := p.expectSymbol(","); err != nil {
			return nil, err
		}
		e, err := p.expr()
		if err != nil {
			return nil, err
		}
		args = append(args, e)
	}
	return &call{name, args}, p.expectSymbol(")")
}

// callFunction evaluates a function over its evaluated arguments.
func (ev *evaluator) callFunction(c *call, args []value) (value, error) {
	switch c.name {
	case "NULLIF":
		if eq, ok, err := compareValues(args[0], args[1]); err == nil && ok && eq == 0 {
			return null, nil
		}
		return args[0], nil
	case "COALESCE":
		for _, a := range args {
			if !a.isNullOrMissing() {
				return a, nil
			}
		}
		return null, nil
	case "UTCNOW":
		return timeValue(ev.now), nil
	}
	for _, a := range args {
		if a.isNullOrMissing() {
			return null, nil
		}
	}
	switch c.name {
	case "CHAR_LENGTH", "CHARACTER_LENGTH":
		s, err := args[0].asString()
		return intValue(int64(utf8.RuneCountInString(s))), err
	case "LOWER", "UPPER":
		s, err := args[0].asString()
		if c.name == "LOWER" {
			return stringValue(strings.ToLower(s)), err
		}
		return stringValue(strings.ToUpper(s)), err
	case "SUBSTRING":
		return substringOf(args)
	case "TRIM":
		return trimOf(args)
	}
	return ev.timeFunction(c.name, args)
}

// substringOf takes a zero-based start, as the service's own example does
// (SUBSTRING('123456789', 1, 5) is '23456'), counted in characters.
func substringOf(args []value) (value, error) {
	s, err := args[0].asString()
	if err != nil {
		return null, err
	}
	start, err := args[1].asInt()
	if err != nil {
		return null, err
	}
	runes := []rune(s)
	if start < 0 {
		start = 0
	}
	if start > int64(len(runes)) {
		return stringValue(""), nil
	}
	end := int64(len(runes))
	if len(args) > 2 {
		n, err := args[2].asInt()
		if err != nil {
			return null, err
		}
		if n < 0 {
			return null, errInvalidArgument
		}
		end = min(end, start+n)
	}
	return stringValue(string(runes[start:end])), nil
}

// trimOf removes any of the characters (a space by default) from the
// string's start, end or both.
func trimOf(args []value) (value, error) {
	mode, _ := args[0].asString()
	cut, err := args[1].asString()
	if err != nil {
		return null, err
	}
	s, err := args[2].asString()
	if err != nil {
		return null, err
	}
	switch mode {
	case "LEADING":
		return stringValue(strings.TrimLeft(s, cut)), nil
	case "TRAILING":
		return stringValue(strings.TrimRight(s, cut)), nil
	}
	return stringValue(strings.Trim(s, cut)), nil
}
