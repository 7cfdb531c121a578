package quickquery

import (
	"fmt"
	"strings"
	"unicode"
)

// tokenKind classifies a token of the query language.
type tokenKind int

const (
	tokEOF tokenKind = iota
	tokIdent
	tokQuotedIdent // "Name": case-sensitive, may hold spaces
	tokString      // 'text'
	tokNumber
	tokSymbol // operators and punctuation
)

type token struct {
	kind tokenKind
	text string
	pos  int // byte offset in the expression, for error messages
}

// SyntaxError is a query the language does not accept. Pos is the byte
// offset where the parser stopped.
type SyntaxError struct {
	Pos int
	Msg string
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("syntax error at position %d: %s", e.Pos, e.Msg)
}

// lex splits the expression into tokens.
func lex(src string) ([]token, error) {
	var out []token
	i := 0
	for i < len(src) {
		c := src[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
		case c == '\'':
			s, n, err := lexQuoted(src, i, '\'')
			if err != nil {
				return nil, err
			}
			out = append(out, token{tokString, s, i})
			i += n
		case c == '"':
			s, n, err := lexQuoted(src, i, '"')
			if err != nil {
				return nil, err
			}
			out = append(out, token{tokQuotedIdent, s, i})
			i += n
		case c >= '0' && c <= '9' || c == '.' && i+1 < len(src) && src[i+1] >= '0' && src[i+1] <= '9':
			n := lexNumber(src[i:])
			out = append(out, token{tokNumber, src[i : i+n], i})
			i += n
		case c == '_' || c < 0x80 && unicode.IsLetter(rune(c)):
			j := i + 1
			for j < len(src) && (src[j] == '_' || src[j] < 0x80 && (unicode.IsLetter(rune(src[j])) || unicode.IsDigit(rune(src[j])))) {
				j++
			}
			out = append(out, token{tokIdent, src[i:j], i})
			i = j
		default:
			sym := lexSymbol(src[i:])
			if sym == "" {
				return nil, &SyntaxError{i, fmt.Sprintf("unexpected character %q", src[i])}
			}
			out = append(out, token{tokSymbol, sym, i})
			i += len(sym)
		}
	}
	return append(out, token{tokEOF, "", len(src)}), nil
}

// lexQuoted reads a quoted string or identifier starting at src[start];
// a doubled quote stands for one.
func lexQuoted(src string, start int, quote byte) (string, int, error) {
	var b strings.Builder
	i := start + 1
	for i < len(src) {
		if src[i] == quote {
			if i+1 < len(src) && src[i+1] == quote {
				b.WriteByte(quote)
				i += 2
				continue
			}
			return b.String(), i + 1 - start, nil
		}
		b.WriteByte(src[i])
		i++
	}
	return "", 0, &SyntaxError{start, "unterminated quoted text"}
}

// lexNumber returns the length of the number at the start of s: digits,
// an optional fraction and an optional exponent.
func lexNumber(s string) int {
	i := 0
	digits := func() {
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
	}
	digits()
	if i < len(s) && s[i] == '.' {
		i++
		digits()
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		j := i + 1
		if j < len(s) && (s[j] == '+' || s[j] == '-') {
			j++
		}
		if j < len(s) && s[j] >= '0' && s[j] <= '9' {
			i = j
			digits()
		}
	}
	return i
}

var symbols = []string{"<=", ">=", "<>", "!=", "||", "=", "<", ">", "+", "-", "*", "/", "%", "(", ")", ",", ".", "[", "]", ";"}

func lexSymbol(s string) string {
	for _, sym := range symbols {
		if strings.HasPrefix(s, sym) {
			return sym
		}
	}
	return ""
}
