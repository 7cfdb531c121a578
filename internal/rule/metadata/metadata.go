// Package metadata is the user metadata of blobs, containers, files,
// directories, shares and queues: the x-ms-meta-* request headers checked
// as the Azure services check them, the response headers, and the stored
// forms (the binary record codec for blob and file, JSON for queue).
package metadata

import (
	"encoding/json"
	"net/http"
	"sort"
	"strings"

	"github.com/lazuli-storage/lazuli/internal/base/record"
	"github.com/lazuli-storage/lazuli/internal/rule/azerr"
)

// Prefix starts every metadata header.
const Prefix = "x-ms-meta-"

// MaxSize is the most the names and values of one resource's metadata may
// add up to, in bytes.
const MaxSize = 8 << 10

// Pair is one metadata entry.
type Pair struct{ Name, Value string }

// Set is a resource's metadata, sorted by name without regard to case.
// Names keep the case the client sent them in, as Azure's do ("Metadata
// names preserve the case with which they were created, but are
// case-insensitive when set or read": Naming and Referencing Containers,
// Blobs, and Metadata). Go's server canonicalises header names; the
// listener gives a request's metadata names back as sent, written with
// Prefix in lower case (frame/server, headnames.go). A name that did not
// come back that way (Go's canonical X-Ms-Meta-Name) has lost its case and
// is kept in lower case, as Azurite, on Node, keeps every name.
type Set []Pair

// Parse reads the x-ms-meta-* headers of a request. Names must not be empty
// (400 EmptyMetadataKey) and must be C# identifiers (400 InvalidMetadata,
// naming the offender in MetadataName); names plus values must not exceed
// MaxSize (400 MetadataTooLarge). Repeated headers of one name are joined
// with commas. A request without metadata gives a nil Set.
func Parse(h http.Header) (Set, error) {
	var m Set
	total := 0
	for key, values := range h {
		if !hasPrefix(key) {
			continue
		}
		name := sentName(key)
		if name == "" {
			return nil, azerr.New(azerr.EmptyMetadataKey)
		}
		if !isIdentifier(name) {
			return nil, azerr.New(azerr.InvalidMetadata).With("MetadataName", name)
		}
		value := strings.Join(values, ",")
		total += len(name) + len(value)
		m = append(m, Pair{name, value})
	}
	if total > MaxSize {
		return nil, azerr.New(azerr.MetadataTooLarge)
	}
	m.Sort()
	return m, nil
}

// FromResponse collects the x-ms-meta-* headers of another service's
// answer (a copy source) as they are: that service has checked them
// already, so nothing is refused, and a header with an empty name is
// skipped.
func FromResponse(h http.Header) Set {
	var m Set
	for key, values := range h {
		if len(key) > len(Prefix) && hasPrefix(key) {
			m = append(m, Pair{strings.ToLower(key[len(Prefix):]), strings.Join(values, ",")})
		}
	}
	m.Sort()
	return m
}

// sentName is the metadata name of header key: as written when the key
// starts with Prefix itself (a name whose case is known), else in lower
// case.
func sentName(key string) string {
	if strings.HasPrefix(key, Prefix) {
		return key[len(Prefix):]
	}
	return strings.ToLower(key[len(Prefix):])
}

func hasPrefix(key string) bool {
	return len(key) >= len(Prefix) && strings.EqualFold(key[:len(Prefix)], Prefix)
}

// Sort puts m in name order, without regard to case (Set's order).
func (m Set) Sort() {
	sort.Slice(m, func(i, j int) bool {
		a, b := strings.ToLower(m[i].Name), strings.ToLower(m[j].Name)
		return a < b || a == b && m[i].Name < m[j].Name
	})
}

// isIdentifier reports whether s is a C# identifier in the ASCII range the
// services accept: a letter or underscore, then letters, digits and
// underscores.
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

// WriteHeaders sets the metadata as x-ms-meta-* response headers, names as
// stored (not canonicalised).
func (m Set) WriteHeaders(h http.Header) {
	for _, p := range m {
		h[Prefix+p.Name] = []string{p.Value}
	}
}

// Equal reports whether two sets hold the same pairs, names compared
// without case as Azure compares them.
func (m Set) Equal(o Set) bool {
	if len(m) != len(o) {
		return false
	}
	for i := range m {
		if !strings.EqualFold(m[i].Name, o[i].Name) || m[i].Value != o[i].Value {
			return false
		}
	}
	return true
}

// Encode writes the set in the binary record codec: a count, then each
// name and value.
func (m Set) Encode(e *record.Encoder) {
	e.Uvarint(uint64(len(m)))
	for _, p := range m {
		e.Str(p.Name)
		e.Str(p.Value)
	}
}

// Decode reads what Encode wrote. A malformed set fails d.
func Decode(d *record.Decoder) Set {
	n := d.Count()
	m := make(Set, 0, n)
	for i := 0; i < n && d.Err() == nil; i++ {
		m = append(m, Pair{d.Str(), d.Str()})
	}
	return m
}

// MarshalJSON writes the set as an array of [name, value] arrays, the shape
// queue records have always stored.
func (m Set) MarshalJSON() ([]byte, error) {
	if m == nil {
		return []byte("null"), nil
	}
	pairs := make([][2]string, len(m))
	for i, p := range m {
		pairs[i] = [2]string{p.Name, p.Value}
	}
	return json.Marshal(pairs)
}

// UnmarshalJSON reads what MarshalJSON wrote.
func (m *Set) UnmarshalJSON(b []byte) error {
	var pairs [][2]string
	if err := json.Unmarshal(b, &pairs); err != nil {
		return err
	}
	if pairs == nil {
		*m = nil
		return nil
	}
	*m = make(Set, len(pairs))
	for i, p := range pairs {
		(*m)[i] = Pair{p[0], p[1]}
	}
	return nil
}
