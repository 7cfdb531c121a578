package blob

import (
	"bytes"
	"encoding/xml"
	"net/http"
	"strconv"
	"time"

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
