package xmlw

import (
	"net/url"
	"strings"
	"unicode/utf8"
)

// EncodedElem writes <name>text</name>, or, when text holds a character
// XML cannot carry (a control character other than tab, CR and LF,
// U+FFFE, U+FFFF, or invalid UTF-8), <name Encoded="true"> with text
// percent-encoded, as the Blob and File services list such names
// (spaces as %20, since clients decode with a query unescape). Written
// plainly, XML would turn such a character into U+FFFD and two names
// could list as one that reaches neither.
func (w *Writer) EncodedElem(name, text string) {
	if Carries(text) {
		w.Elem(name, text)
		return
	}
	w.Open(name, "Encoded", "true")
	w.Text(strings.ReplaceAll(url.QueryEscape(text), "+", "%20"))
	w.Close(name)
}

// Carries reports whether XML 1.0 can carry every character of s.
func Carries(s string) bool {
	for _, r := range s {
		switch {
		case r == '\t' || r == '\n' || r == '\r':
		case r < 0x20, r == 0xFFFE, r == 0xFFFF, r == utf8.RuneError:
			return false
		}
	}
	return true
}
