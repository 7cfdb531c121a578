package file

import (
	"bytes"
	"encoding/xml"
	"net/http"
	"strconv"

	"github.com/lazuli-storage/lazuli/internal/request"
)

// xmlWriter builds a response document directly into a buffer: listings
// write thousands of elements and a struct-and-reflection encoder would
// allocate per field.
type xmlWriter struct{ buf bytes.Buffer }

func newXML() *xmlWriter {
	w := &xmlWriter{}
	w.buf.WriteString(xml.Header)
	return w
}

// open starts an element; attrs are name/value pairs.
func (w *xmlWriter) open(name string, attrs ...string) {
	w.buf.WriteByte('<')
	w.buf.WriteString(name)
	for i := 0; i+1 < len(attrs); i += 2 {
		w.buf.WriteByte(' ')
		w.buf.WriteString(attrs[i])
		w.buf.WriteString(`="`)
		_ = xml.EscapeText(&w.buf, []byte(attrs[i+1]))
		w.buf.WriteByte('"')
	}
	w.buf.WriteByte('>')
}

func (w *xmlWriter) close(name string) {
	w.buf.WriteString("</")
	w.buf.WriteString(name)
	w.buf.WriteByte('>')
}

// elem writes <name>text</name>.
func (w *xmlWriter) elem(name, text string) {
	w.open(name)
	_ = xml.EscapeText(&w.buf, []byte(text))
	w.close(name)
}

// empty writes <name />.
func (w *xmlWriter) empty(name string) {
	w.buf.WriteByte('<')
	w.buf.WriteString(name)
	w.buf.WriteString(" />")
}

// send writes the document as the response body.
func (w *xmlWriter) send(rw http.ResponseWriter, status int) {
	h := rw.Header()
	h.Set("Content-Type", "application/xml")
	h.Set("Content-Length", strconv.Itoa(w.buf.Len()))
	rw.WriteHeader(status)
	_, _ = rw.Write(w.buf.Bytes())
}

// serviceEndpoint is the ServiceEndpoint attribute of listings: the URL of
// the account's file endpoint as the client addressed it.
func serviceEndpoint(r *http.Request) string {
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	info := request.Of(r)
	u := scheme + "://" + r.Host + "/"
	if info.PathStyle {
		u += info.Account + "/"
	}
	return u
}
