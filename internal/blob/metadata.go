package blob

import (
	"net/http"
	"sort"
	"strings"

	"github.com/lazuli-storage/lazuli/internal/azerr"
	"github.com/lazuli-storage/lazuli/internal/record"
)

// metaPrefix starts every metadata header.
const metaPrefix = "x-ms-meta-"

// maxMetadataBytes is the most the names and values of one resource's
// metadata may add up to.
const maxMetadataBytes = 8 << 10

// metadata is a resource's name/value pairs, sorted by name. Names are kept
// in lower case: HTTP header names are case-insensitive and Go's server
// canonicalises them before Lazuli sees them, so the case a client sent
// cannot be recovered (Azurite, on Node, also answers lower case).
type metadata []metaPair

type metaPair struct{ Name, Value string }

// parseMetadata reads the x-ms-meta-* headers of a request. Names must be
// C# identifiers (400 InvalidMetadata), must not be empty (400
// EmptyMetadataKey), and names plus values must not exceed 8 KiB (400
// MetadataTooLarge). Repeated headers of one name are joined with commas.
func parseMetadata(h http.Header) (metadata, error) {
	var m metadata
	total := 0
	for key, values := range h {
		if len(key) < len(metaPrefix) || !strings.EqualFold(key[:len(metaPrefix)], metaPrefix) {
			continue
		}
		name := strings.ToLower(key[len(metaPrefix):])
		if name == "" {
			return nil, azerr.New(azerr.EmptyMetadataKey)
		}
		if !isIdentifier(name) {
			return nil, azerr.New(azerr.InvalidMetadata).With("MetadataName", name)
		}
		value := strings.Join(values, ",")
		total += len(name) + len(value)
		m = append(m, metaPair{name, value})
	}
	if total > maxMetadataBytes {
		return nil, azerr.New(azerr.MetadataTooLarge)
	}
	sort.Slice(m, func(i, j int) bool { return m[i].Name < m[j].Name })
	return m, nil
}

// isIdentifier reports whether s is a valid C# identifier in ASCII: a
// letter or underscore, then letters, digits and underscores.
func isIdentifier(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '_', c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z':
		case c >= '0' && c <= '9' && i > 0:
		default:
			return false
		}
	}
	return s != ""
}

// setHeaders writes the metadata as x-ms-meta-* response headers, keeping
// the stored name as written (no canonicalisation).
func (m metadata) setHeaders(h http.Header) {
	for _, p := range m {
		h[metaPrefix+p.Name] = []string{p.Value}
	}
}

func (m metadata) encode(e *record.Encoder) {
	e.Uvarint(uint64(len(m)))
	for _, p := range m {
		e.Str(p.Name)
		e.Str(p.Value)
	}
}

func decodeMetadata(d *record.Decoder) metadata {
	n := d.Uvarint()
	if n > uint64(d.Len()) {
		d.Fail()
		return nil
	}
	m := make(metadata, 0, n)
	for i := uint64(0); i < n && d.Err() == nil; i++ {
		m = append(m, metaPair{d.Str(), d.Str()})
	}
	return m
}
