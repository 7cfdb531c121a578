package server

import (
	"net/http"
	"sync/atomic"
	"time"

	"github.com/lazuli-storage/lazuli/internal/rule/azerr"
)

// requestIDKey and errorCodeKey are azerr's header names in the canonical
// form a header map is indexed by: Get and Set canonicalise a lower-case
// name, with an allocation, on every call.
var (
	requestIDKey = http.CanonicalHeaderKey(azerr.RequestIDHeader)
	errorCodeKey = http.CanonicalHeaderKey(azerr.ErrorCodeHeader)
)

// errorCode is the Azure error code an answer carries, "" for none.
func errorCode(h http.Header) string {
	if v := h[errorCodeKey]; len(v) > 0 {
		return v[0]
	}
	return ""
}

// dateHeader is the Date header's value (RFC 9110 5.6.7, IMF-fixdate, to
// the second), formatted once for each second the chain's clock shows
// instead of once per answer. The slice it returns is shared, as net/http
// only reads header values; a handler that sets its own Date replaces it.
type dateHeader struct {
	last atomic.Pointer[formattedDate]
}

type formattedDate struct {
	second int64
	value  []string
}

// of is the Date header's value for t.
func (d *dateHeader) of(t time.Time) []string {
	second := t.Unix()
	if f := d.last.Load(); f != nil && f.second == second {
		return f.value
	}
	f := &formattedDate{second: second, value: []string{t.UTC().Format(http.TimeFormat)}}
	d.last.Store(f)
	return f.value
}
