package queue

import (
	"bytes"
	"encoding/xml"
	"net/http"
	"time"
	"unicode/utf8"

	"github.com/lazuli-storage/lazuli/internal/azerr"
	"github.com/lazuli-storage/lazuli/internal/guid"
)

// xmlDecl starts every XML response body, as the service writes it.
const xmlDecl = `<?xml version="1.0" encoding="utf-8"?>`

// neverText is how the service renders the expiry of a message that never
// expires.
const neverText = "Fri, 31 Dec 9999 23:59:59 GMT"

// appendEscaped appends s as XML character data. Carriage returns are
// written as references because a parser would otherwise normalise them to
// line feeds and the text would not come back as stored.
func appendEscaped(dst, s []byte) []byte {
	last := 0
	for i, c := range s {
		var esc string
		switch c {
		case '&':
			esc = "&amp;"
		case '<':
			esc = "&lt;"
		case '>':
			esc = "&gt;"
		case '\r':
			esc = "&#xD;"
		default:
			continue
		}
		dst = append(dst, s[last:i]...)
		dst = append(dst, esc...)
		last = i + 1
	}
	return append(dst, s[last:]...)
}

// appendTime appends an instant in RFC 1123 form (the service's message
// times), or the far-future text for a message that never expires.
func appendTime(dst []byte, ns uint64) []byte {
	if ns == neverExpires {
		return append(dst, neverText...)
	}
	return instant(ns).AppendFormat(dst, http.TimeFormat)
}

// listKind selects the fields of a QueueMessage element.
type listKind int

const (
	sentList     listKind = iota // Put Message: no DequeueCount, no text
	dequeuedList                 // Get Messages: everything
	peekedList                   // Peek Messages: no PopReceipt, no TimeNextVisible
)

// appendMessageList renders a QueueMessagesList body.
func appendMessageList(dst []byte, kind listKind, msgs []message) []byte {
	dst = append(dst, xmlDecl...)
	dst = append(dst, "<QueueMessagesList>"...)
	for i := range msgs {
		dst = appendMessage(dst, kind, &msgs[i])
	}
	return append(dst, "</QueueMessagesList>"...)
}

func appendMessage(dst []byte, kind listKind, m *message) []byte {
	dst = append(dst, "<QueueMessage><MessageId>"...)
	dst = append(dst, guid.Format(m.ID)...)
	dst = append(dst, "</MessageId><InsertionTime>"...)
	dst = appendTime(dst, m.Inserted)
	dst = append(dst, "</InsertionTime><ExpirationTime>"...)
	dst = appendTime(dst, m.Expires)
	dst = append(dst, "</ExpirationTime>"...)
	if kind != peekedList {
		dst = append(dst, "<PopReceipt>"...)
		dst = append(dst, receiptOf(m).String()...)
		dst = append(dst, "</PopReceipt><TimeNextVisible>"...)
		dst = appendTime(dst, m.VisibleAt)
		dst = append(dst, "</TimeNextVisible>"...)
	}
	if kind != sentList {
		dst = append(dst, "<DequeueCount>"...)
		dst = appendUint(dst, uint64(m.Dequeues))
		dst = append(dst, "</DequeueCount><MessageText>"...)
		dst = appendEscaped(dst, m.Text)
		dst = append(dst, "</MessageText>"...)
	}
	return append(dst, "</QueueMessage>"...)
}

func appendUint(dst []byte, n uint64) []byte {
	var b [20]byte
	i := len(b)
	for {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
		if n == 0 {
			break
		}
	}
	return append(dst, b[i:]...)
}

// queueMessageXML is the request body of Put and Update Message.
type queueMessageXML struct {
	XMLName     xml.Name `xml:"QueueMessage"`
	MessageText *string  `xml:"MessageText"`
}

// parseMessageBody reads a QueueMessage request body and returns its
// MessageText, and whether the element was present. The common shape (an
// optional declaration, then the two elements around plain ASCII text, as
// every SDK sends base64 or JSON text) is read without the XML decoder;
// anything else goes through it.
func parseMessageBody(body []byte) ([]byte, bool, error) {
	if text, ok := plainMessage(body); ok {
		return text, true, nil
	}
	var doc queueMessageXML
	if err := xml.Unmarshal(body, &doc); err != nil {
		return nil, false, azerr.New(azerr.InvalidXmlDocument)
	}
	if doc.MessageText == nil {
		return nil, false, nil
	}
	return []byte(*doc.MessageText), true, nil
}

// plainMessage recognises <QueueMessage><MessageText>text</MessageText>
// </QueueMessage> whose text needs no decoding: printable ASCII, tabs and
// line feeds, without markup or references.
func plainMessage(body []byte) ([]byte, bool) {
	b := bytes.TrimSpace(body)
	if bytes.HasPrefix(b, []byte("<?")) {
		end := bytes.Index(b, []byte("?>"))
		if end < 0 || !plainDeclaration(b[:end+2]) {
			return nil, false
		}
		b = bytes.TrimLeft(b[end+2:], " \t\r\n")
	}
	b, ok := cutPrefix(b, "<QueueMessage>")
	if !ok {
		return nil, false
	}
	if b, ok = cutPrefix(bytes.TrimLeft(b, " \t\r\n"), "<MessageText>"); !ok {
		return nil, false
	}
	if b, ok = cutSuffix(b, "</QueueMessage>"); !ok {
		return nil, false
	}
	if b, ok = cutSuffix(bytes.TrimRight(b, " \t\r\n"), "</MessageText>"); !ok {
		return nil, false
	}
	for _, c := range b {
		if c >= 0x80 || c == '<' || c == '&' || c == '\r' || (c < 0x20 && c != '\t' && c != '\n') {
			return nil, false
		}
	}
	return b, true
}

// plainDeclaration recognises the XML declarations clients send: version
// 1.0, UTF-8 or no encoding. Anything else is left to the decoder, which
// rejects what it cannot read.
func plainDeclaration(decl []byte) bool {
	rest, ok := cutPrefix(decl, `<?xml version="1.0"`)
	if !ok {
		return false
	}
	switch string(bytes.ToLower(rest)) {
	case `?>`, ` encoding="utf-8"?>`, ` encoding="utf-8" standalone="yes"?>`, ` encoding="utf-8" standalone="no"?>`:
		return true
	}
	return false
}

func cutPrefix(b []byte, p string) ([]byte, bool) {
	if len(b) < len(p) || string(b[:len(p)]) != p {
		return b, false
	}
	return b[len(p):], true
}

func cutSuffix(b []byte, s string) ([]byte, bool) {
	if len(b) < len(s) || string(b[len(b)-len(s):]) != s {
		return b, false
	}
	return b[:len(b)-len(s)], true
}

// checkMessageText enforces the 64 KiB limit on message text, answering as
// the service does: 413 RequestBodyTooLarge with the limit.
func checkMessageText(text []byte) error {
	if len(text) > maxMessageText {
		return azerr.New(azerr.RequestBodyTooLarge).With("MaxLimit", "65536")
	}
	if !utf8.Valid(text) {
		return azerr.New(azerr.InvalidXmlDocument)
	}
	return nil
}

// timeText renders an instant the way Set ACL and errors show it.
func timeText(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.0000000Z") }
