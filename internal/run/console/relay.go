package console

import (
	"net/http"
	"strings"
)

// restHeaderPrefix marks the headers of a relayed call that go to the
// service: the page sends X-Rest-If-Match for If-Match, and so on. What
// the browser adds by itself (Accept, Content-Type, cookies, Origin) stays
// with the relay.
const restHeaderPrefix = "X-Rest-"

// relayMethods are the methods of the services' REST operations.
var relayMethods = map[string]bool{
	http.MethodGet: true, http.MethodHead: true, http.MethodPut: true, http.MethodPost: true,
	http.MethodDelete: true, http.MethodPatch: true, "MERGE": true,
}

// signedHeaders are the request headers the console sets itself, from
// the account's key, the clock and the body.
var signedHeaders = map[string]bool{"Authorization": true, "X-Ms-Date": true, "X-Ms-Version": true, "Date": true, "Content-Length": true}

// relay runs one REST call the page composes, POST
// /api/rest/{method}/{service}/{account}/{path...}?query, with the query,
// the X-Rest- headers and the body as given, signed with the account's
// key. The service answers as it would any client: its status, headers
// (content headers renamed, see renamed) and body (error code and message
// included) reach the page, so every action the page takes meets the
// service's own rules for names, conditions and permissions. The answer
// is an inert attachment, as a download is, so that no stored content
// runs in the console's origin.
func (c *Console) relay(w http.ResponseWriter, r *http.Request) {
	method, svc := r.PathValue("method"), r.PathValue("service")
	h, ok := c.opts.Services[svc]
	if !ok {
		writeError(w, http.StatusNotFound, "the "+svc+" service is not running")
		return
	}
	if !relayMethods[method] {
		writeError(w, http.StatusBadRequest, "no REST operation uses method "+method)
		return
	}
	if r.ContentLength < 0 {
		writeError(w, http.StatusLengthRequired, "a relayed call's body needs a Content-Length, as the service's signature covers it")
		return
	}
	header := http.Header{}
	for name, values := range r.Header {
		if rest, ok := strings.CutPrefix(name, restHeaderPrefix); ok && rest != "" && !signedHeaders[http.CanonicalHeaderKey(rest)] {
			header[http.CanonicalHeaderKey(rest)] = values
		}
	}
	query := r.URL.Query()
	query.Del("token") // the admin listener's own
	req, err := c.request(r.Context(), svc, r.PathValue("account"), method, "/"+r.PathValue("path"), query, header, r.Body, r.ContentLength)
	if err != nil {
		writeError(w, statusOf(err), err.Error())
		return
	}
	h.ServeHTTP(&relayAnswer{ResponseWriter: &attachment{ResponseWriter: w, name: "response"}, head: method == http.MethodHead}, req)
}

// serviceHeaderPrefix renames the service's content headers in a relayed
// answer: X-Service-Content-Type is the blob's Content-Type, and so on.
const serviceHeaderPrefix = "X-Service-"

// renamed are the answer headers the relay passes on under
// serviceHeaderPrefix: the attachment's own would hide the resource's
// Content-Type and Content-Disposition, and the browser would act on a
// Content-Encoding, a Cache-Control or, for HEAD, a Content-Length (the
// resource's size, where the relay's answer has no body).
var renamed = []string{"Content-Type", "Content-Encoding", "Content-Language", "Content-Disposition", "Cache-Control"}

// relayAnswer renames the service's content headers before the attachment
// sets its own.
type relayAnswer struct {
	http.ResponseWriter
	head    bool
	started bool
}

func (a *relayAnswer) WriteHeader(status int) {
	if !a.started {
		a.started = true
		h := a.Header()
		names := renamed
		if a.head {
			names = append(names[:len(names):len(names)], "Content-Length")
		}
		for _, name := range names {
			if v := h.Values(name); len(v) > 0 {
				h[serviceHeaderPrefix+name] = v
				h.Del(name)
			}
		}
	}
	a.ResponseWriter.WriteHeader(status)
}

func (a *relayAnswer) Write(b []byte) (int, error) {
	if !a.started {
		a.WriteHeader(http.StatusOK)
	}
	return a.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the connection.
func (a *relayAnswer) Unwrap() http.ResponseWriter { return a.ResponseWriter }
