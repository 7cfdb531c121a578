package blob

import (
	"github.com/lazuli-storage/lazuli/internal/base/xmlw"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/lazuli-storage/lazuli/internal/rule/lease"
	"github.com/lazuli-storage/lazuli/internal/rule/metadata"
)

// xmlWriter builds a response body: the shared writer, with the Blob
// service's declaration and escaping.
type xmlWriter = xmlw.Writer

func newXMLWriter() *xmlWriter { return xmlw.New(xmlw.Decl, xmlw.Standard) }

// encodedNamesVersion is the first version whose listings may carry
// percent-encoded names.
const encodedNamesVersion = "2019-12-12"

// writeName writes a <Name>. A name holding a character XML cannot carry
// (a control character other than tab, CR and LF, U+FFFE, U+FFFF) is
// written percent-encoded with Encoded="true" when the client understands
// it, as the service lists such names; otherwise XML would turn it into
// U+FFFD and two blobs could list under one name that reaches neither.
func writeName(x *xmlWriter, name string, encode bool) {
	if !encode || xmlCarries(name) {
		x.Elem("Name", name)
		return
	}
	x.Open("Name", "Encoded", "true")
	x.Text(strings.ReplaceAll(url.QueryEscape(name), "+", "%20"))
	x.Close("Name")
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
