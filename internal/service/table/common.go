package table

import (
	"encoding/base64"
	"mime"
	"net/http"
	"strconv"
	"strings"

	"github.com/lazuli-storage/lazuli/internal/frame/request"
	"github.com/lazuli-storage/lazuli/internal/rule/azerr"
	"github.com/lazuli-storage/lazuli/internal/service/table/odata"
)

// maxPageSize is the most entities or tables one response returns.
const maxPageSize = 1000

// baseURL is the service root as the client addressed it, for odata.id,
// odata.metadata and Location values.
func baseURL(r *http.Request) string {
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	base := scheme + "://" + r.Host
	if info := request.Of(r); info.PathStyle {
		base += "/" + info.Account
	}
	return base
}

// writeJSON sends a JSON body with the headers the service puts on OData
// responses.
func writeJSON(w http.ResponseWriter, m metadata, status int, body []byte) error {
	h := w.Header()
	h.Set("Content-Type", m.contentType())
	h.Set("Content-Length", strconv.Itoa(len(body)))
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Cache-Control", "no-cache")
	h.Set("DataServiceVersion", "3.0;")
	w.WriteHeader(status)
	_, err := w.Write(body)
	return err
}

// checkContentType refuses Atom/XML request bodies.
func checkContentType(r *http.Request) error {
	return checkContentTypeHeader(r.Header.Get("Content-Type"))
}

func checkContentTypeHeader(ct string) error {
	if ct == "" {
		return nil
	}
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil {
		return azerr.InvalidHeader("Content-Type", ct)
	}
	switch mt {
	case "application/json":
		return nil
	case "application/atom+xml", "application/xml", "text/xml":
		return azerr.New(azerr.AtomFormatNotSupported)
	}
	return azerr.Newf(azerr.JsonFormatNotSupported, "The content type %s is not supported; send application/json.", mt)
}

// parseFilter parses $filter; syntax errors are 400 InvalidInput.
func parseFilter(s string) (*odata.Filter, error) {
	f, err := odata.Parse(s)
	if err != nil {
		return nil, azerr.Newf(azerr.InvalidInput, "One of the request inputs is not valid. %v", err)
	}
	return f, nil
}

// parseTop reads $top: 1 to 1000, default 1000.
func parseTop(s string) (int, error) {
	if s == "" {
		return maxPageSize, nil
	}
	n, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil || n < 1 || n > maxPageSize {
		return 0, azerr.Newf(azerr.InvalidInput, "One of the request inputs is not valid. $top must be an integer from 1 to %d.", maxPageSize)
	}
	return n, nil
}

// Continuation tokens have the service's shape, 1!<length>!<base64>, so
// clients that inspect them see the familiar form; the payload is the key.
func encodeToken(s string) string {
	b := base64.RawURLEncoding.EncodeToString([]byte(s))
	return "1!" + strconv.Itoa(len(b)) + "!" + b
}

func decodeToken(tok string) (string, bool) {
	rest, ok := strings.CutPrefix(tok, "1!")
	if !ok {
		return "", false
	}
	n, b, ok := strings.Cut(rest, "!")
	if !ok || n != strconv.Itoa(len(b)) {
		return "", false
	}
	raw, err := base64.RawURLEncoding.DecodeString(b)
	if err != nil {
		return "", false
	}
	return string(raw), true
}
