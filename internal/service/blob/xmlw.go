package blob

import (
	"time"

	"github.com/lazuli-storage/lazuli/internal/base/xmlw"

	"github.com/lazuli-storage/lazuli/internal/rule/lease"
	"github.com/lazuli-storage/lazuli/internal/rule/metadata"
)

// xmlWriter builds a response body: the shared writer, with the Blob
// service's declaration and escaping.
type xmlWriter = xmlw.Writer

func newXMLWriter() *xmlWriter { return xmlw.New(xmlw.Decl, xmlw.Standard) }

// newSizedXMLWriter starts a body expected to take about size bytes, so
// that a large one is not grown by copying as it is written.
func newSizedXMLWriter(size int) *xmlWriter {
	return xmlw.Over(append(make([]byte, 0, size), xmlw.Decl...), xmlw.Standard)
}

// encodedNamesVersion is the first version whose listings may carry
// percent-encoded names.
const encodedNamesVersion = "2019-12-12"

// writeName writes a <Name>, percent-encoded with Encoded="true" when XML
// cannot carry it and the client understands that (xmlw.EncodedElem).
func writeName(x *xmlWriter, name string, encode bool) {
	if !encode {
		x.Elem("Name", name)
		return
	}
	x.EncodedElem("Name", name)
}

// writeLeaseElements writes LeaseStatus, LeaseState and LeaseDuration.
func writeLeaseElements(x *xmlWriter, l lease.Lease, now time.Time) {
	x.Elem("LeaseStatus", l.Status(now))
	x.Elem("LeaseState", string(l.State(now)))
	if d := l.DurationType(now); d != "" {
		x.Elem("LeaseDuration", d)
	}
}

// writeMetadataElements writes <Metadata> with one element per pair.
func writeMetadataElements(x *xmlWriter, m metadata.Set) {
	x.Open("Metadata")
	for _, p := range m {
		x.Elem(p.Name, p.Value)
	}
	x.Close("Metadata")
}
