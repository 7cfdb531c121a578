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

	"github.com/lazuli-storage/lazuli/internal/base/record"
	"github.com/lazuli-storage/lazuli/internal/rule/azerr"
)

// ParseMD5Property reads the Content-MD5 property a request sets
// (x-ms-blob-content-md5, x-ms-content-md5); "" is nil. The service stores
// that property as given, whatever its length: it is not checked against
// any content (the SDKs' live tests set 4-, 5- and 12-byte values and read
// them back). Only the transactional Content-MD5 of a body must be a 16-byte
// digest. A value that is not Base64 is 400 InvalidMd5.
func ParseMD5Property(h http.Header, name string) ([]byte, error) {
	raw := h.Get(name)
	if raw == "" {
		return nil, nil
	}
	sum, err := base64.StdEncoding.DecodeString(raw)
	if err != nil {
		return nil, azerr.New(azerr.InvalidMd5).With("HeaderName", name).With("HeaderValue", raw)
	}
	return sum, nil
}

// DefaultType is the Content-Type answered for content stored without one.
const DefaultType = "application/octet-stream"

// Props are the content properties of a blob or file. MD5 is the digest
// the client set (16 bytes when it is a real MD5, see ParseMD5Property), or
// nil.
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

// WriteSetHeaders writes the properties that are set, Content-Type
// included, as a blob or file read answers them: blobs and files are
// stored with DefaultType when created without a type, so an empty one was
// cleared by Set Blob Properties or Set File Properties, and the service
// then answers no Content-Type (the SDKs' recorded
// TestFileGetSetPropertiesDefault), nor one net/http would sniff.
// Content-MD5 is the caller's, because a range read answers it differently.
func (p *Props) WriteSetHeaders(h http.Header) {
	setIf(h, "Content-Type", p.Type)
	if p.Type == "" {
		h["Content-Type"] = nil
	}
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
