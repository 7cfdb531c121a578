package table

import (
	"net/url"
	"strings"

	"github.com/lazuli-storage/lazuli/internal/service/table/odata"
)

// formatETag renders an entity's weak ETag as the service does:
// W/"datetime'<timestamp, URL-encoded, 7 fraction digits>'".
func formatETag(ticks int64) string {
	b := append(make([]byte, 0, 56), `W/"datetime'`...)
	b = appendETagTime(b, ticks)
	return string(append(b, `'"`...))
}

// appendJSONETag appends the ETag of ticks as a JSON string, for entity
// bodies, without building it first.
func appendJSONETag(b []byte, ticks int64) []byte {
	b = append(b, `"W/\"datetime'`...)
	b = appendETagTime(b, ticks)
	return append(b, `'\""`...)
}

// appendETagTime appends the ETag's instant, its colons URL-encoded.
func appendETagTime(b []byte, ticks int64) []byte {
	var buf [48]byte
	for _, c := range odata.AppendDateTime(buf[:0], ticks) {
		if c == ':' {
			b = append(b, "%3A"...)
			continue
		}
		b = append(b, c)
	}
	return b
}

// parseETag reads an entity ETag back to its timestamp ticks. The W/ prefix
// and the URL encoding are optional so hand-written values work.
func parseETag(s string) (int64, bool) {
	s = strings.TrimSpace(s)
	s = strings.TrimPrefix(s, "W/")
	s = strings.TrimPrefix(strings.TrimSuffix(s, `"`), `"`)
	body, ok := strings.CutPrefix(s, "datetime'")
	if !ok || !strings.HasSuffix(body, "'") {
		return 0, false
	}
	body, err := url.PathUnescape(strings.TrimSuffix(body, "'"))
	if err != nil {
		return 0, false
	}
	t, err := odata.ParseDateTime(body)
	if err != nil {
		return 0, false
	}
	return odata.TimeToTicks(t), true
}

// ifMatch is a parsed If-Match header of an entity write.
type ifMatch struct {
	present bool
	any     bool  // "*"
	never   bool  // a weak ETag that names no timestamp: it matches no entity
	ticks   int64 // the timestamp the entity must still have
}

// matches reports whether an entity with timestamp ticks meets the
// condition.
func (m ifMatch) matches(ticks int64) bool {
	return m.any || (!m.never && m.ticks == ticks)
}

// parseIfMatch reads If-Match as the service does (Azure/Azurite issue
// 1229, which records Azure's answers): "*" matches any entity; a weak
// ETag, W/"..." or w/"...", is compared with the entity's, and one whose
// content is not an entity timestamp matches none (412 once the entity is
// found); any other value, a strong ETag included, is 400 InvalidInput.
func parseIfMatch(h string) (ifMatch, error) {
	h = strings.TrimSpace(h)
	switch h {
	case "":
		return ifMatch{}, nil
	case "*":
		return ifMatch{present: true, any: true}, nil
	}
	if !isWeakETag(h) {
		return ifMatch{}, invalidInput("The etag value '" + h + "' specified in one of the request headers is not valid. Please make sure only one etag value is specified and is valid.")
	}
	ticks, ok := parseETag(h[2:])
	return ifMatch{present: true, never: !ok, ticks: ticks}, nil
}

// isWeakETag reports whether h is a weak entity-tag, W/ (either case)
// before a quoted opaque tag (RFC 9110 section 8.8.3).
func isWeakETag(h string) bool {
	return len(h) >= 4 && (h[0] == 'W' || h[0] == 'w') && h[1] == '/' && h[2] == '"' && h[len(h)-1] == '"'
}
