package dfs

import (
	"net/http"
	"time"
)

// httpTime renders an instant as an HTTP date.
func httpTime(t time.Time) string { return t.UTC().Format(http.TimeFormat) }
