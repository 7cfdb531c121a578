package server

import (
	"net/http"
	"strings"
	"time"

	"github.com/lazuli-storage/lazuli/internal/frame/analytics"
	"github.com/lazuli-storage/lazuli/internal/frame/request"
	"github.com/lazuli-storage/lazuli/internal/rule/auth"
)

// Storage Analytics logging of the Blob, Queue and Table services: after
// each answered request, the account's Logging setting for the service
// decides whether it becomes a log entry (package analytics). The File
// service has no such logging on Azure. The log files' own writes do not
// pass through this chain (the Blob service serves them to itself), so,
// as on Azure, Storage Analytics does not log its own requests.

func (c *chain) recordAnalytics(r *http.Request, w *statusWriter, info *request.Info, in int64) {
	svc := c.svc.Name()
	if c.opts.Analytics == nil || !analytics.Logs(string(svc)) || info.Account == "" || info.Op == "" ||
		r.Method == http.MethodOptions {
		return
	}
	status := w.status
	if status == 0 {
		status = http.StatusOK
	}
	authType, requester := authTypeOf(r, info)
	if authType == analytics.AuthAnonymous && status >= 400 {
		// Failed anonymous requests are not logged.
		return
	}
	props, err := c.props.Get(r.Context(), info.Account, string(svc))
	if err != nil || props.Logging == nil {
		return
	}
	category := analytics.CategoryOf(r.Method)
	if !loggingSelects(props.Logging.Read, props.Logging.Write, props.Logging.Delete, category) {
		return
	}
	took := time.Since(w.began)
	h := w.Header()
	lastModified, _ := http.ParseTime(h.Get("Last-Modified"))
	c.opts.Analytics.Record(analytics.Entry{
		Start: info.Start, Operation: info.Op, Status: analytics.Outcome(authType, status), HTTPStatus: status,
		EndToEnd: took, Server: took, AuthType: authType, Requester: requester, Owner: info.Account,
		Service: string(svc), URL: loggedURL(r), ObjectKey: "/" + info.Account + info.Path,
		RequestID: info.ID, RemoteAddr: r.RemoteAddr, Version: info.Version,
		RequestHeader: headerSize(r.Method+" "+r.URL.RequestURI()+" "+r.Proto, r.Header), RequestBody: in,
		ResponseHeader: headerSize("HTTP/1.1 200 OK", h), ResponseBody: w.bytes, ContentLength: r.ContentLength,
		RequestMD5: firstOf(r.Header, "Content-Md5", "X-Ms-Content-Md5"), ServerMD5: h.Get("Content-Md5"),
		ETag: h.Get("Etag"), LastModified: lastModified, Conditions: conditionsUsed(r.Header),
		UserAgent: r.UserAgent(), Referrer: r.Referer(), ClientRequestID: r.Header.Get("X-Ms-Client-Request-Id"),
	}, category)
}

func loggingSelects(read, write, del bool, c analytics.Category) bool {
	switch c {
	case analytics.Read:
		return read
	case analytics.Delete:
		return del
	}
	return write
}

// authTypeOf is the authentication-type field, and the requester account
// of a Shared Key caller. A request refused before it authenticated is
// typed by what it carried.
func authTypeOf(r *http.Request, info *request.Info) (authType, requester string) {
	if id := info.Identity; id != nil {
		switch id.Kind {
		case auth.SharedKey:
			return analytics.AuthKey, id.Account
		case auth.Bearer:
			return analytics.AuthKey, ""
		case auth.AccountSAS, auth.ServiceSAS, auth.DelegationSAS:
			return analytics.AuthSAS, ""
		}
		return analytics.AuthAnonymous, ""
	}
	switch {
	case r.Header.Get("Authorization") != "":
		return analytics.AuthKey, ""
	case r.URL.Query().Get("sig") != "":
		return analytics.AuthSAS, ""
	}
	return analytics.AuthAnonymous, ""
}

// loggedURL is the request's URL with a SAS signature masked, so that a
// log reader cannot reuse it.
func loggedURL(r *http.Request) string {
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	u := *r.URL
	if q := u.Query(); q.Get("sig") != "" {
		q.Set("sig", "XXXXX")
		u.RawQuery = q.Encode()
	}
	return scheme + "://" + r.Host + u.RequestURI()
}

// headerSize approximates a header block's size on the wire.
func headerSize(firstLine string, h http.Header) int64 {
	n := len(firstLine) + 2
	for name, values := range h {
		for _, v := range values {
			n += len(name) + 2 + len(v) + 2
		}
	}
	return int64(n + 2)
}

func firstOf(h http.Header, names ...string) string {
	for _, name := range names {
		if v := h.Get(name); v != "" {
			return v
		}
	}
	return ""
}

// conditionsUsed lists the conditional headers sent, Name=value each.
func conditionsUsed(h http.Header) string {
	var parts []string
	for _, name := range []string{"If-Match", "If-None-Match", "If-Modified-Since", "If-Unmodified-Since", "X-Ms-If-Tags"} {
		if v := h.Get(name); v != "" {
			parts = append(parts, name+"="+v)
		}
	}
	return strings.Join(parts, ";")
}
