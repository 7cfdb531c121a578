package queue

import (
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/lazuli-storage/lazuli/internal/rule/azerr"
)

// Limits of the message operations (Put, Get, Peek and Update Message).
const (
	maxVisibility      = 7 * 24 * 60 * 60 // seconds
	maxVisibilityOld   = 2 * 60 * 60      // Get Messages before 2011-08-18
	defaultGetVisible  = 30               // seconds
	defaultTTL         = 7 * 24 * 60 * 60 // seconds
	maxTTL             = 1<<31 - 1        // seconds: the service's Int32 bound
	maxTTLOld          = 7 * 24 * 60 * 60 // before 2017-07-29
	maxMessages        = 32
	maxMessageText     = 64 << 10 // bytes of message text
	maxMessageBody     = 131584   // bytes of request body, as the service reports it
	infiniteTTLVersion = "2017-07-29"
	longVisibility     = "2011-08-18"
)

// intParam reads an optional integer query parameter. It reports whether it
// was present; a present value that is not an integer is 400
// InvalidQueryParameterValue.
func intParam(q url.Values, name string) (int64, bool, error) {
	vs, ok := q[name]
	if !ok || len(vs) == 0 {
		return 0, false, nil
	}
	n, err := strconv.ParseInt(vs[0], 10, 64)
	if err != nil {
		return 0, true, azerr.InvalidQuery(name, vs[0], "")
	}
	return n, true, nil
}

// rangeParam reads an optional integer parameter that must lie in
// [min, max]; def is its value when absent.
func rangeParam(q url.Values, name string, def, min, max int64) (int64, error) {
	n, ok, err := intParam(q, name)
	if err != nil || !ok {
		return def, err
	}
	if n < min || n > max {
		return 0, azerr.OutOfRangeQuery(name, q.Get(name), min, max)
	}
	return n, nil
}

// putParams are the query parameters of Put Message.
type putParams struct {
	Visibility time.Duration
	TTL        time.Duration // < 0: never expires
}

// parsePutParams reads visibilitytimeout (0 to 7 days, default 0, less than
// the TTL) and messagettl (default 7 days; from 2017-07-29 any positive number
// of seconds or -1 for never, before that at most 7 days).
func parsePutParams(q url.Values, version string) (putParams, error) {
	var p putParams
	maxT := int64(maxTTL)
	if version < infiniteTTLVersion {
		maxT = maxTTLOld
	}
	ttl, ok, err := intParam(q, "messagettl")
	if err != nil {
		return p, err
	}
	switch {
	case !ok:
		ttl = defaultTTL
	case ttl == -1 && version >= infiniteTTLVersion:
	case ttl < 1 || ttl > maxT:
		return p, azerr.OutOfRangeQuery("messagettl", q.Get("messagettl"), 1, maxT)
	}
	vis, err := rangeParam(q, "visibilitytimeout", 0, 0, maxVisibility)
	if err != nil {
		return p, err
	}
	if ttl != -1 && vis >= ttl {
		return p, azerr.InvalidQuery("visibilitytimeout", q.Get("visibilitytimeout"),
			"The visibility timeout must be less than the message time-to-live.")
	}
	p.Visibility = time.Duration(vis) * time.Second
	p.TTL = time.Duration(ttl) * time.Second
	return p, nil
}

// getParams are the query parameters of Get and Peek Messages.
type getParams struct {
	Peek       bool
	Count      int
	Visibility time.Duration
}

// parseGetParams reads peekonly, numofmessages (1 to 32, default 1) and, for
// Get, visibilitytimeout (1 s to 7 days, 2 hours before 2011-08-18; default
// 30 s).
func parseGetParams(q url.Values, version string) (getParams, error) {
	var p getParams
	if v, ok := q["peekonly"]; ok && len(v) > 0 {
		switch strings.ToLower(v[0]) {
		case "true":
			p.Peek = true
		case "false":
		default:
			return p, azerr.InvalidQuery("peekonly", v[0], "")
		}
	}
	n, err := rangeParam(q, "numofmessages", 1, 1, maxMessages)
	if err != nil {
		return p, err
	}
	p.Count = int(n)
	if p.Peek {
		return p, nil
	}
	maxV := int64(maxVisibility)
	if version < longVisibility {
		maxV = maxVisibilityOld
	}
	vis, err := rangeParam(q, "visibilitytimeout", defaultGetVisible, 1, maxV)
	if err != nil {
		return p, err
	}
	p.Visibility = time.Duration(vis) * time.Second
	return p, nil
}

// parseUpdateVisibility reads the visibilitytimeout Update Message requires
// (0 to 7 days).
func parseUpdateVisibility(q url.Values) (time.Duration, error) {
	if _, ok := q["visibilitytimeout"]; !ok {
		return 0, azerr.New(azerr.MissingRequiredQueryParameter).With("QueryParameterName", "visibilitytimeout")
	}
	vis, err := rangeParam(q, "visibilitytimeout", 0, 0, maxVisibility)
	return time.Duration(vis) * time.Second, err
}

// maxResults reads List Queues' maxresults: at least 1; above 5000 the
// service returns 5000.
func maxResults(q url.Values) (int, error) {
	n, err := rangeParam(q, "maxresults", 5000, 1, 1<<31-1)
	if err != nil {
		return 0, err
	}
	return int(min(n, 5000)), nil
}
