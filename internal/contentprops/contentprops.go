// Package contentprops is the standard HTTP content properties blobs and
// files store (Content-Type, Content-Encoding, Content-Language,
// Content-Disposition, Cache-Control and Content-MD5): their record
// encoding, how a copy source's response carries them, and how a read
// answers them.
//
// The request headers that set them differ by service (x-ms-blob-content-*
// for blobs, x-ms-content-* for files), so parsing those stays with each
// service.
package contentprops

import (
	"bytes"
	"encoding/base64"
	"net/http"

	"github.com/lazuli-storage/lazuli/internal/record"
)

// DefaultType is the Content-Type answered for content stored without one.
const DefaultType = "application/octet-stream"

// Props are the content properties of a blob or file. MD5 is the 16-byte
// digest the client set, or nil.
type Props struct {
	Type, Encoding, Language, Disposition, CacheControl string
	MD5                                                 []byte
}

// Empty reports whether no property is set, so a record can leave them out.
func (p *Props) Empty() bool {
	return p.Type == "" && p.Encoding == "" && p.Language == "" && p.Disposition == "" &&
		p.CacheControl == "" && len(p.MD5) == 0
}

// Encode writes the properties in the binary record codec.
func (p *Props) Encode(e *record.Encoder) {
	e.Str(p.Type)
	e.Str(p.Encoding)
	e.Str(p.Language)
	e.Str(p.Disposition)
	e.Str(p.CacheControl)
	e.Raw(p.MD5)
}

// Decode reads what Encode wrote. The MD5 is copied: the decoder's bytes
// belong to the store.
func Decode(d *record.Decoder) Props {
	p := Props{Type: d.Str(), Encoding: d.Str(), Language: d.Str(), Disposition: d.Str(), CacheControl: d.Str()}
	if md5 := d.Raw(); len(md5) > 0 {
		p.MD5 = bytes.Clone(md5)
	}
	return p
}

// FromResponse reads the content properties of a copy source's answer. A
// Content-MD5 that is not a base64 16-byte digest is ignored.
func FromResponse(h http.Header) Props {
	p := Props{Type: h.Get("Content-Type"), Encoding: h.Get("Content-Encoding"),
		Language: h.Get("Content-Language"), Disposition: h.Get("Content-Disposition"),
		CacheControl: h.Get("Cache-Control")}
	if sum, err := base64.StdEncoding.DecodeString(h.Get("Content-MD5")); err == nil && len(sum) == 16 {
		p.MD5 = sum
	}
	return p
}

// WriteHeaders writes the properties as a read answers them: Content-Type
// always (DefaultType when unset), the others when set. Content-MD5 is the
// caller's, because a range read answers it differently.
func (p *Props) WriteHeaders(h http.Header) {
	ct := p.Type
	if ct == "" {
		ct = DefaultType
	}
	h.Set("Content-Type", ct)
	setIf(h, "Content-Encoding", p.Encoding)
	setIf(h, "Content-Language", p.Language)
	setIf(h, "Content-Disposition", p.Disposition)
	setIf(h, "Cache-Control", p.CacheControl)
}

func setIf(h http.Header, name, value string) {
	if value != "" {
		h.Set(name, value)
	}
}
