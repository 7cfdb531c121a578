package queue

import (
	"net/http"
	"sort"
	"strings"

	"github.com/lazuli-storage/lazuli/internal/azerr"
)

// Limits of names and metadata (Naming Queues and Metadata).
const (
	minNameLen      = 3
	maxNameLen      = 63
	maxMetadataSize = 8 << 10 // names and values, in bytes
	metaPrefix      = "x-ms-meta-"
)

// checkName enforces the queue naming rules: 3 to 63 characters, lower-case
// letters, digits and single hyphens, starting and ending with a letter or
// digit.
func checkName(name string) error {
	if len(name) < minNameLen || len(name) > maxNameLen {
		return azerr.Newf(azerr.InvalidResourceName,
			"The specifed resource name length is not within the permissible limits (3 to 63 characters).")
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9':
		case c == '-' && i > 0 && i < len(name)-1 && name[i-1] != '-':
		default:
			return azerr.New(azerr.InvalidResourceName)
		}
	}
	return nil
}

// metadata is a queue's metadata as name/value pairs sorted by name. Names are
// kept in lower case: HTTP header names are case-insensitive and Go's server
// does not keep the case the client sent.
type metadata [][2]string

// parseMetadata collects the x-ms-meta-* headers of a request and checks
// them as the service does: names must be C# identifiers, and names and
// values together at most 8 KiB.
func parseMetadata(h http.Header) (metadata, error) {
	var md metadata
	size := 0
	for k, vs := range h {
		lower := strings.ToLower(k)
		if !strings.HasPrefix(lower, metaPrefix) {
			continue
		}
		name := lower[len(metaPrefix):]
		if name == "" {
			return nil, azerr.New(azerr.EmptyMetadataKey)
		}
		if !isIdentifier(name) {
			return nil, azerr.New(azerr.InvalidMetadata).With("MetadataName", name)
		}
		value := strings.Join(vs, ",")
		size += len(name) + len(value)
		md = append(md, [2]string{name, value})
	}
	if size > maxMetadataSize {
		return nil, azerr.New(azerr.MetadataTooLarge)
	}
	sort.Slice(md, func(i, j int) bool { return md[i][0] < md[j][0] })
	return md, nil
}

// isIdentifier reports whether s is a C# identifier in the ASCII range the
// service accepts: a letter or underscore, then letters, digits, underscores.
func isIdentifier(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		letter := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_'
		if !letter && (i == 0 || c < '0' || c > '9') {
			return false
		}
	}
	return s != ""
}

// equal reports whether two sorted metadata sets are identical.
func (md metadata) equal(other metadata) bool {
	if len(md) != len(other) {
		return false
	}
	for i := range md {
		if md[i] != other[i] {
			return false
		}
	}
	return true
}

// writeHeaders sets the x-ms-meta-* response headers.
func (md metadata) writeHeaders(h http.Header) {
	for _, kv := range md {
		h[metaPrefix+kv[0]] = []string{kv[1]}
	}
}
