package blob

import (
	"bytes"
	"encoding/xml"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/lazuli-storage/lazuli/internal/lease"
	"github.com/lazuli-storage/lazuli/internal/metadata"
)

// xmlWriter builds a response body by hand: listings are hot and their
// shape is fixed, so this avoids reflection-based marshalling.
type xmlWriter struct{ bytes.Buffer }

func newXMLWriter() *xmlWriter {
	w := &xmlWriter{}
	w.WriteString(xml.Header[:len(xml.Header)-1])
	return w
}

func (w *xmlWriter) open(name string)  { w.WriteString("<" + name + ">") }
func (w *xmlWriter) close(name string) { w.WriteString("</" + name + ">") }

// elem writes <name>escaped value</name>.
func (w *xmlWriter) elem(name, value string) {
	w.open(name)
	w.text(value)
	w.close(name)
}

func (w *xmlWriter) text(value string) { _ = xml.EscapeText(w, []byte(value)) }

// encodedNamesVersion is the first version whose listings may carry
// percent-encoded names.
const encodedNamesVersion = "2019-12-12"

// nameElem writes a <Name>. A name holding a character XML cannot carry
// (a control character other than tab, CR and LF, U+FFFE, U+FFFF) is
// written percent-encoded with Encoded="true" when the client understands
// it, as the service lists such names; otherwise XML would turn it into
// U+FFFD and two blobs could list under one name that reaches neither.
func (w *xmlWriter) nameElem(name string, encode bool) {
	if !encode || xmlCarries(name) {
		w.elem("Name", name)
		return
	}
	w.WriteString(`<Name Encoded="true">`)
	w.text(strings.ReplaceAll(url.QueryEscape(name), "+", "%20"))
	w.WriteString("</Name>")
}

// xmlCarries reports whether every character of s is one XML 1.0 allows.
func xmlCarries(s string) bool {
	for _, r := range s {
		switch {
		case r == '\t' || r == '\n' || r == '\r':
		case r < 0x20, r == 0xFFFE, r == 0xFFFF, r == utf8.RuneError:
			return false
		}
	}
	return true
}

// attr writes name="escaped value" inside an open tag.
func (w *xmlWriter) attr(name, value string) {
	w.WriteString(" " + name + `="`)
	w.text(value)
	w.WriteString(`"`)
}

func (w *xmlWriter) int(name string, n int64) { w.elem(name, strconv.FormatInt(n, 10)) }

// send writes the body as an application/xml response.
func (w *xmlWriter) send(rw http.ResponseWriter, status int) error {
	h := rw.Header()
	h.Set("Content-Type", "application/xml")
	h.Set("Content-Length", strconv.Itoa(w.Len()))
	rw.WriteHeader(status)
	_, err := rw.Write(w.Bytes())
	return err
}

// writeLeaseElements writes LeaseStatus, LeaseState and LeaseDuration.
func writeLeaseElements(x *xmlWriter, l lease.Lease, now time.Time) {
	x.elem("LeaseStatus", l.Status(now))
	x.elem("LeaseState", string(l.State(now)))
	if d := l.DurationType(now); d != "" {
		x.elem("LeaseDuration", d)
	}
}

// writeMetadataElements writes <Metadata> with one element per pair.
func writeMetadataElements(x *xmlWriter, m metadata.Set) {
	x.open("Metadata")
	for _, p := range m {
		x.elem(p.Name, p.Value)
	}
	x.close("Metadata")
}
