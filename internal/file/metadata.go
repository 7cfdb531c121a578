package file

import (
	"net/http"
	"sort"
	"strings"

	"github.com/lazuli-storage/lazuli/internal/azerr"
	"github.com/lazuli-storage/lazuli/internal/record"
)

// metaPrefix starts every metadata header.
const metaPrefix = "x-ms-meta-"

// maxMetadataBytes bounds the names and values of one resource's metadata.
const maxMetadataBytes = 8 << 10

// metadata is a share's, directory's or file's name/value pairs, sorted by
// name. Names are stored in lower case: metadata names are
// case-insensitive, and Go's server canonicalises header names before this
// code sees them, so the client's case is gone anyway.
type metadata []metaPair

type metaPair struct{ Name, Value string }

// parseMetadata reads the x-ms-meta-* headers. Names must be C#
// identifiers (400 InvalidMetadata) and non-empty (400 EmptyMetadataKey);
// names and values together must fit in 8 KiB (400 MetadataTooLarge).
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
	sortMetadata(m)
	return m, nil
}

func sortMetadata(m metadata) {
	sort.Slice(m, func(i, j int) bool { return m[i].Name < m[j].Name })
}

// isIdentifier reports whether s is an ASCII C# identifier.
func isIdentifier(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		letter := c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
		if !letter && !(i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return s != ""
}

// setHeaders writes the metadata as x-ms-meta-* response headers, names as
// stored (not canonicalised).
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
	n := d.Count()
	m := make(metadata, 0, n)
	for i := 0; i < n && d.Err() == nil; i++ {
		m = append(m, metaPair{d.Str(), d.Str()})
	}
	return m
}
