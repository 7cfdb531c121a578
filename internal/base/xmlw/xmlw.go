// Package xmlw is the one writer of XML response bodies: Blob, File and
// Queue documents and the XML error bodies of azerr. It appends to a byte
// slice by hand, without reflection, because listings are hot and their
// shape is fixed.
//
// Each body keeps the exact bytes its service writes: the declaration
// (Decl, DeclLower, DeclLine) and the escaping of character data
// (Escaping) are chosen per document.
package xmlw

import (
	"encoding/xml"
	"net/http"
	"strconv"
	"unicode/utf8"
)

// Declarations, as the services write them.
const (
	// Decl starts Blob documents.
	Decl = `<?xml version="1.0" encoding="UTF-8"?>`
	// DeclLower starts Queue documents and XML error bodies.
	DeclLower = `<?xml version="1.0" encoding="utf-8"?>`
	// DeclLine starts File and Table documents: Decl and a line feed.
	DeclLine = Decl + "\n"
)

// Escaping is how character data and attribute values are escaped.
type Escaping int

const (
	// Standard is encoding/xml's EscapeText: markup and quotes as
	// references, tab, line feed and carriage return as character
	// references, and characters XML cannot carry as U+FFFD.
	Standard Escaping = iota
	// MessageText escapes only markup and the carriage return (as a
	// reference, which a parser would otherwise normalise to a line
	// feed): queue message text comes back byte for byte as stored.
	MessageText
	// KeepNewlines escapes markup and quotes as named entities and keeps
	// line breaks literal, as the service's error messages carry their
	// "\nRequestId:" lines.
	KeepNewlines
)

// Writer builds one document.
type Writer struct {
	buf []byte
	esc Escaping
}

// New starts a document with its declaration.
func New(decl string, esc Escaping) *Writer {
	w := &Writer{buf: make([]byte, 0, 512), esc: esc}
	w.buf = append(w.buf, decl...)
	return w
}

// Over continues dst: the writer appends to it (for callers that build a
// body in a buffer they own).
func Over(dst []byte, esc Escaping) *Writer { return &Writer{buf: dst, esc: esc} }

// Open writes a start tag; attrs are name/value pairs, the values escaped.
func (w *Writer) Open(name string, attrs ...string) {
	w.buf = append(w.buf, '<')
	w.buf = append(w.buf, name...)
	for i := 0; i+1 < len(attrs); i += 2 {
		w.Attr(attrs[i], attrs[i+1])
	}
	w.buf = append(w.buf, '>')
}

// OpenStart writes a start tag left open for Attr calls; End closes it.
func (w *Writer) OpenStart(name string) {
	w.buf = append(w.buf, '<')
	w.buf = append(w.buf, name...)
}

// Attr writes ` name="value"` inside a start tag opened by OpenStart.
func (w *Writer) Attr(name, value string) {
	w.buf = append(w.buf, ' ')
	w.buf = append(w.buf, name...)
	w.buf = append(w.buf, `="`...)
	w.Text(value)
	w.buf = append(w.buf, '"')
}

// End ends a start tag begun with OpenStart.
func (w *Writer) End() { w.buf = append(w.buf, '>') }

// Close writes an end tag.
func (w *Writer) Close(name string) {
	w.buf = append(w.buf, "</"...)
	w.buf = append(w.buf, name...)
	w.buf = append(w.buf, '>')
}

// Elem writes <name>text</name>.
func (w *Writer) Elem(name, text string) {
	w.Open(name)
	w.Text(text)
	w.Close(name)
}

// Int writes <name>n</name>.
func (w *Writer) Int(name string, n int64) {
	w.Open(name)
	w.buf = strconv.AppendInt(w.buf, n, 10)
	w.Close(name)
}

// Empty writes <name />.
func (w *Writer) Empty(name string) {
	w.buf = append(w.buf, '<')
	w.buf = append(w.buf, name...)
	w.buf = append(w.buf, " />"...)
}

// Text writes escaped character data.
func (w *Writer) Text(s string) { w.buf = Append(w.buf, s, w.esc) }

// WriteString writes s as it is: markup the caller vouches for.
func (w *Writer) WriteString(s string) (int, error) {
	w.buf = append(w.buf, s...)
	return len(s), nil
}

// Write writes p as it is: markup the caller vouches for.
func (w *Writer) Write(p []byte) (int, error) {
	w.buf = append(w.buf, p...)
	return len(p), nil
}

// Len is the length of the document so far.
func (w *Writer) Len() int { return len(w.buf) }

// Bytes is the document so far; it aliases the writer's buffer.
func (w *Writer) Bytes() []byte { return w.buf }

// Send answers with the document as an application/xml body.
func (w *Writer) Send(rw http.ResponseWriter, status int) error {
	h := rw.Header()
	h.Set("Content-Type", "application/xml")
	h.Set("Content-Length", strconv.Itoa(len(w.buf)))
	rw.WriteHeader(status)
	_, err := rw.Write(w.buf)
	return err
}

// TextBytes writes escaped character data held in a byte slice.
func (w *Writer) TextBytes(p []byte) { w.buf = Append(w.buf, p, w.esc) }

// Append appends s to dst escaped as esc says.
func Append[T ~string | ~[]byte](dst []byte, s T, esc Escaping) []byte {
	switch esc {
	case MessageText:
		return appendReplacing(dst, s, messageEntity)
	case KeepNewlines:
		return appendReplacing(dst, s, namedEntity)
	}
	return appendStandard(dst, s)
}

func messageEntity(c byte) string {
	switch c {
	case '&':
		return "&amp;"
	case '<':
		return "&lt;"
	case '>':
		return "&gt;"
	case '\r':
		return "&#xD;"
	}
	return ""
}

func namedEntity(c byte) string {
	switch c {
	case '&':
		return "&amp;"
	case '<':
		return "&lt;"
	case '>':
		return "&gt;"
	case '"':
		return "&quot;"
	case '\'':
		return "&apos;"
	}
	return ""
}

// appendReplacing appends s with each byte entity names replaced; the
// bytes it replaces are ASCII, so multi-byte characters pass unchanged.
func appendReplacing[T ~string | ~[]byte](dst []byte, s T, entity func(byte) string) []byte {
	last := 0
	for i := 0; i < len(s); i++ {
		if e := entity(s[i]); e != "" {
			dst = append(dst, s[last:i]...)
			dst = append(dst, e...)
			last = i + 1
		}
	}
	return append(dst, s[last:]...)
}

// appendStandard is xml.EscapeText without its io.Writer round trip for
// the common text that needs no escaping.
func appendStandard[T ~string | ~[]byte](dst []byte, s T) []byte {
	if !needsStandardEscape(s) {
		return append(dst, s...)
	}
	b := bufferOver{dst}
	_ = xml.EscapeText(&b, []byte(s))
	return b.buf
}

func needsStandardEscape[T ~string | ~[]byte](s T) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 || c == '&' || c == '<' || c == '>' || c == '"' || c == '\'' || c >= utf8.RuneSelf {
			return true
		}
	}
	return false
}

// bufferOver lets xml.EscapeText append to a slice.
type bufferOver struct{ buf []byte }

func (b *bufferOver) Write(p []byte) (int, error) {
	b.buf = append(b.buf, p...)
	return len(p), nil
}
