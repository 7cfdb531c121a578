package file

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/lazuli-storage/lazuli/internal/rule/azerr"
	"github.com/lazuli-storage/lazuli/internal/rule/etag"
)

// Parameters and headers many operations share.

// setETag writes ETag and Last-Modified from one tick, so they agree.
func setETag(h http.Header, t etag.Tick) {
	h.Set("ETag", t.String())
	h.Set("Last-Modified", t.Time().Format(http.TimeFormat))
}

// parseMaxResults reads maxresults: 1 or more, capped at 5000.
func parseMaxResults(r *http.Request) (int, error) {
	raw := r.URL.Query().Get("maxresults")
	if raw == "" {
		return 5000, nil
	}
	n, err := strconv.Atoi(raw)
	if err != nil {
		return 0, azerr.InvalidQuery("maxresults", raw, "")
	}
	if n <= 0 {
		return 0, azerr.OutOfRangeQuery("maxresults", raw, 1, 2147483647)
	}
	return min(n, 5000), nil
}

// boolHeader reads a true/false header; absent is false.
func boolHeader(h http.Header, name string) (bool, error) {
	raw := strings.TrimSpace(h.Get(name))
	switch strings.ToLower(raw) {
	case "":
		return false, nil
	case "true":
		return true, nil
	case "false":
		return false, nil
	}
	return false, azerr.InvalidHeader(name, raw)
}
