package admin

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"mime"
	"net"
	"net/http"
	"strings"
)

// The guard keeps web pages away from the admin listener. Loopback callers
// are admitted without a token, so any page the machine's browser opens
// could otherwise drive the listener (a form or no-cors fetch to /reset)
// or, through a name rebound to 127.0.0.1, read it as its own origin.

// CSRFHeader carries the console page's token with every request it makes
// that changes something; GET /csrf gives the token to pages of this
// origin only.
const CSRFHeader = "X-Lazuli-Csrf"

// newCSRFToken is the process's token: 32 random bytes.
func newCSRFToken() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b) // crypto/rand.Read never fails (Go 1.24+)
	return base64.RawURLEncoding.EncodeToString(b)
}

// csrf answers the console page's token and the header that carries it.
func (h *Handler) csrf(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, map[string]string{"header": CSRFHeader, "token": h.csrfToken})
}

// secureHeaders go on every answer: no type sniffing, no framing (the page
// cannot be clickjacked), no embedding by other origins' pages (Fetch,
// Cross-Origin-Resource-Policy), no Referer carrying ?token= away, and a
// page that runs only its own scripts.
func secureHeaders(h http.Header) {
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Content-Security-Policy", "default-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'")
	h.Set("Cross-Origin-Resource-Policy", "same-origin")
	h.Set("Referrer-Policy", "no-referrer")
}

// ownHost reports whether the Host header names this listener: localhost
// or an address of this machine (loopback, unspecified as in the URL a
// listener on 0.0.0.0 prints, the address the connection came to, any
// interface's) on the port the connection came to, or a name given with
// --adminHosts, on any port. A DNS-rebound name is none of these: it is
// the attacker's, pointed at 127.0.0.1 once their page has loaded.
func (h *Handler) ownHost(r *http.Request) bool {
	name, port := splitHost(r.Host)
	if name == "" {
		return false
	}
	if h.hosts[strings.ToLower(name)] {
		return true
	}
	local, _ := r.Context().Value(http.LocalAddrContextKey).(*net.TCPAddr)
	if local != nil && port != localPort(local) {
		return false
	}
	if strings.EqualFold(name, "localhost") {
		return true
	}
	ip := net.ParseIP(name)
	switch {
	case ip == nil:
		return false
	case ip.IsLoopback(), ip.IsUnspecified(), local != nil && ip.Equal(local.IP):
		return true
	}
	return machineHas(ip)
}

// splitHost splits a Host header into name and port, "80" when it gives
// none (the admin listener speaks plain HTTP).
func splitHost(hostport string) (name, port string) {
	if name, port, err := net.SplitHostPort(hostport); err == nil {
		return name, port
	}
	return strings.TrimSuffix(strings.TrimPrefix(hostport, "["), "]"), "80"
}

func localPort(a *net.TCPAddr) string {
	_, port, _ := net.SplitHostPort(a.String())
	return port
}

// machineHas reports whether ip is an address of one of this machine's
// interfaces, which a listener on 0.0.0.0 or :: answers on.
func machineHas(ip net.IP) bool {
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		return false
	}
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok && n.IP.Equal(ip) {
			return true
		}
	}
	return false
}

// crossSite says why a browser request must be refused, "" when it may be
// served. Browsers mark their requests: Origin on every one that is not a
// GET or HEAD (Fetch, "append a request Origin header"), and Sec-Fetch-Site
// (Fetch Metadata) on all of them. A request with neither comes from a tool
// (curl, a script, Go's or Node's HTTP client) and is served as before.
//
//   - Another site's request (Sec-Fetch-Site cross-site or same-site, or an
//     Origin not this listener's) is refused on every route but the page
//     and its assets, which may be navigated to.
//   - A browser request that changes something must also prove it comes
//     from the console page: the token of GET /csrf in X-Lazuli-Csrf, or a
//     content type no form or no-cors fetch can send (application/json),
//     as either makes another origin's browser ask first (CORS preflight),
//     which this listener never grants.
func (h *Handler) crossSite(r *http.Request) string {
	reading := r.Method == http.MethodGet || r.Method == http.MethodHead
	if reading && navigable(r.URL.Path) {
		return ""
	}
	site, origin := r.Header.Get("Sec-Fetch-Site"), r.Header.Get("Origin")
	if site == "cross-site" || site == "same-site" {
		return "the admin listener does not serve requests from other sites' pages (Sec-Fetch-Site: " + site + ")"
	}
	if origin != "" && !sameOrigin(origin, r.Host) {
		return "the admin listener does not serve requests from other origins' pages (Origin: " + origin + ")"
	}
	if reading || (origin == "" && site == "") {
		return ""
	}
	if h.csrfMatches(r.Header.Get(CSRFHeader)) || !simpleContentType(r.Header.Get("Content-Type")) {
		return ""
	}
	return "a browser request that changes something needs the console's " + CSRFHeader + " header (GET /csrf) or a content type no form sends, such as application/json"
}

// navigable: the console page and its assets, which hold no data.
func navigable(path string) bool {
	return path == "/" || strings.HasPrefix(path, "/console/")
}

// sameOrigin reports whether origin is this listener's own, as the browser
// names it: the Host the request was sent to, over HTTP (or HTTPS, behind
// a proxy that ends TLS).
func sameOrigin(origin, host string) bool {
	return strings.EqualFold(origin, "http://"+host) || strings.EqualFold(origin, "https://"+host)
}

// simpleContentType reports whether a page may send this content type to
// another origin without asking first: none, or one a form can send
// (Fetch, "CORS-safelisted request-header", Content-Type).
func simpleContentType(ct string) bool {
	if ct == "" {
		return true
	}
	mediaType, _, err := mime.ParseMediaType(ct)
	if err != nil {
		return true
	}
	switch mediaType {
	case "application/x-www-form-urlencoded", "multipart/form-data", "text/plain":
		return true
	}
	return false
}

func (h *Handler) csrfMatches(given string) bool {
	return given != "" && subtle.ConstantTimeCompare([]byte(given), []byte(h.csrfToken)) == 1
}
