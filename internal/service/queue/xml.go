package queue

import (
	"bytes"
	"encoding/xml"
	"net/http"
	"unicode/utf8"

	"github.com/lazuli-storage/lazuli/internal/base/guid"
	"github.com/lazuli-storage/lazuli/internal/base/xmlw"
	"github.com/lazuli-storage/lazuli/internal/rule/azerr"
)

// neverText is how the service renders the expiry of a message that never
// expires.
const neverText = "Fri, 31 Dec 9999 23:59:59 GMT"

// newXML starts a Queue response body: the shared writer, with the
// service's declaration. Character data escapes only markup and carriage
// returns (as references: a parser would otherwise normalise them to line
// feeds), so that message text comes back as stored.
func newXML(dst []byte) *xmlw.Writer {
	x := xmlw.Over(dst, xmlw.MessageText)
	_, _ = x.WriteString(xmlw.DeclLower)
	return x
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
	x := newXML(dst)
	x.Open("QueueMessagesList")
	for i := range msgs {
		writeMessage(x, kind, &msgs[i])
	}
	x.Close("QueueMessagesList")
	return x.Bytes()
}

func writeMessage(x *xmlw.Writer, kind listKind, m *message) {
	x.Open("QueueMessage")
	x.Elem("MessageId", guid.Format(m.ID))
	writeTime(x, "InsertionTime", m.Inserted)
	writeTime(x, "ExpirationTime", m.Expires)
	if kind != peekedList {
		x.Elem("PopReceipt", receiptOf(m).String())
		writeTime(x, "TimeNextVisible", m.VisibleAt)
	}
	if kind != sentList {
		x.Int("DequeueCount", int64(m.Dequeues))
		x.Open("MessageText")
		x.TextBytes(m.Text)
		x.Close("MessageText")
	}
	x.Close("QueueMessage")
}

// writeTime writes <name>instant</name>, the instant as appendTime has it.
func writeTime(x *xmlw.Writer, name string, ns uint64) {
	x.Open(name)
	var b [len(neverText)]byte
	_, _ = x.Write(appendTime(b[:0], ns))
	x.Close(name)
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
