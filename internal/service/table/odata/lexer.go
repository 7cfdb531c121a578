package odata

import (
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// tokenKind classifies a lexeme.
type tokenKind uint8

const (
	tokEOF tokenKind = iota
	tokLParen
	tokRParen
	tokIdent   // a property name or keyword
	tokLiteral // any typed literal, value in token.val
)

type token struct {
	kind tokenKind
	text string // identifier text, or the literal as written
	val  Value
	pos  int
}

// SyntaxError is a malformed filter; the service answers 400 InvalidInput.
type SyntaxError struct {
	Pos int
	Msg string
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("filter syntax error at %d: %s", e.Pos, e.Msg)
}

func errAt(pos int, format string, args ...any) error {
	return &SyntaxError{Pos: pos, Msg: fmt.Sprintf(format, args...)}
}

// lexer turns a filter string into tokens, one at a time.
type lexer struct {
	src string
	pos int
}

func isIdentStart(c byte) bool {
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
}

func isIdentPart(c byte) bool { return isIdentStart(c) || (c >= '0' && c <= '9') }

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func (l *lexer) next() (token, error) {
	for l.pos < len(l.src) && (l.src[l.pos] == ' ' || l.src[l.pos] == '\t' || l.src[l.pos] == '\r' || l.src[l.pos] == '\n') {
		l.pos++
	}
	start := l.pos
	if l.pos >= len(l.src) {
		return token{kind: tokEOF, pos: start}, nil
	}
	c := l.src[l.pos]
	switch {
	case c == '(':
		l.pos++
		return token{kind: tokLParen, pos: start}, nil
	case c == ')':
		l.pos++
		return token{kind: tokRParen, pos: start}, nil
	case c == '\'':
		s, err := l.quoted()
		if err != nil {
			return token{}, err
		}
		return token{kind: tokLiteral, val: String(s), text: l.src[start:l.pos], pos: start}, nil
	case isDigit(c) || c == '-' || c == '+' || c == '.':
		return l.number()
	case isIdentStart(c):
		for l.pos < len(l.src) && isIdentPart(l.src[l.pos]) {
			l.pos++
		}
		word := l.src[start:l.pos]
		if l.pos < len(l.src) && l.src[l.pos] == '\'' {
			return l.typedLiteral(word, start)
		}
		return token{kind: tokIdent, text: word, pos: start}, nil
	}
	return token{}, errAt(start, "unexpected character %q", c)
}

// quoted reads a single-quoted string with ” as the escaped quote.
func (l *lexer) quoted() (string, error) {
	start := l.pos
	l.pos++ // opening quote
	var sb strings.Builder
	for l.pos < len(l.src) {
		c := l.src[l.pos]
		if c != '\'' {
			sb.WriteByte(c)
			l.pos++
			continue
		}
		if l.pos+1 < len(l.src) && l.src[l.pos+1] == '\'' {
			sb.WriteByte('\'')
			l.pos += 2
			continue
		}
		l.pos++
		return sb.String(), nil
	}
	return "", errAt(start, "unterminated string literal")
}

// typedLiteral reads prefix'...' forms: datetime, guid, X and binary.
func (l *lexer) typedLiteral(prefix string, start int) (token, error) {
	body, err := l.quoted()
	if err != nil {
		return token{}, err
	}
	var v Value
	switch strings.ToLower(prefix) {
	case "datetime":
		t, perr := ParseDateTime(body)
		if perr != nil {
			return token{}, errAt(start, "invalid datetime literal %q", body)
		}
		v = DateTime(t)
	case "guid":
		g, ok := CanonicalGuid(body)
		if !ok {
			return token{}, errAt(start, "invalid guid literal %q", body)
		}
		v = Guid(g)
	case "x", "binary":
		b, herr := hex.DecodeString(body)
		if herr != nil {
			// Some clients send binary'<base64>'.
			b, herr = base64.StdEncoding.DecodeString(body)
		}
		if herr != nil {
			return token{}, errAt(start, "invalid binary literal %q", body)
		}
		v = Binary(b)
	default:
		return token{}, errAt(start, "unknown literal type %q", prefix)
	}
	return token{kind: tokLiteral, val: v, text: l.src[start:l.pos], pos: start}, nil
}

// number reads an integer (Int32, or Int64 with an L suffix) or a double.
func (l *lexer) number() (token, error) {
	start := l.pos
	if c := l.src[l.pos]; c == '-' || c == '+' {
		l.pos++
	}
	isFloat := false
	for l.pos < len(l.src) {
		c := l.src[l.pos]
		switch {
		case isDigit(c):
		case c == '.':
			isFloat = true
		case (c == 'e' || c == 'E') && l.pos > start:
			isFloat = true
			if l.pos+1 < len(l.src) && (l.src[l.pos+1] == '-' || l.src[l.pos+1] == '+') {
				l.pos++
			}
		default:
			goto done
		}
		l.pos++
	}
done:
	text := l.src[start:l.pos]
	suffix := byte(0)
	if l.pos < len(l.src) && strings.IndexByte("LlDdMmFf", l.src[l.pos]) >= 0 {
		suffix = l.src[l.pos] | 0x20
		l.pos++
	}
	if l.pos < len(l.src) && isIdentPart(l.src[l.pos]) {
		return token{}, errAt(start, "malformed number %q", l.src[start:l.pos+1])
	}
	v, err := numberValue(text, isFloat, suffix)
	if err != nil {
		return token{}, errAt(start, "%v", err)
	}
	return token{kind: tokLiteral, val: v, text: l.src[start:l.pos], pos: start}, nil
}

func numberValue(text string, isFloat bool, suffix byte) (Value, error) {
	switch {
	case suffix == 'l':
		if isFloat {
			return Value{}, fmt.Errorf("malformed Int64 literal %q", text)
		}
		n, err := strconv.ParseInt(text, 10, 64)
		if err != nil {
			return Value{}, fmt.Errorf("Int64 literal %q out of range", text)
		}
		return Int64(n), nil
	case isFloat || suffix != 0:
		f, err := strconv.ParseFloat(text, 64)
		if err != nil || math.IsInf(f, 0) {
			return Value{}, fmt.Errorf("malformed Double literal %q", text)
		}
		return Double(f), nil
	}
	n, err := strconv.ParseInt(text, 10, 32)
	if err != nil {
		// An integer too large for Int32 is read as a Double, as the
		// service's parser widens it.
		f, ferr := strconv.ParseFloat(text, 64)
		if ferr != nil {
			return Value{}, fmt.Errorf("malformed number %q", text)
		}
		return Double(f), nil
	}
	return Int32(int32(n)), nil
}

// ParseDateTime reads an Edm.DateTime text: ISO 8601 with up to 7 fraction
// digits and a Z or offset (a missing zone means UTC).
func ParseDateTime(s string) (time.Time, error) {
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05.999999999", "2006-01-02T15:04Z07:00", "2006-01-02T15:04", "2006-01-02"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC(), nil
		}
	}
	return time.Time{}, fmt.Errorf("invalid Edm.DateTime %q", s)
}

// FormatDateTime renders t as the service does: UTC with 7 fraction digits.
func FormatDateTime(t time.Time) string {
	return t.UTC().Format("2006-01-02T15:04:05.0000000Z")
}

// CanonicalGuid validates a GUID (optionally braced) and returns its
// lower-case hyphenated form.
func CanonicalGuid(s string) (string, bool) {
	s = strings.TrimSuffix(strings.TrimPrefix(s, "{"), "}")
	if len(s) != 36 {
		return "", false
	}
	for i := 0; i < 36; i++ {
		c := s[i]
		if i == 8 || i == 13 || i == 18 || i == 23 {
			if c != '-' {
				return "", false
			}
			continue
		}
		if !isHex(c) {
			return "", false
		}
	}
	return strings.ToLower(s), true
}

func isHex(c byte) bool {
	return isDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}
