package auth

import (
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strings"

	"github.com/lazuli-storage/lazuli/internal/rule/azerr"
)

// authScheme is the scheme of a Shared Key Authorization header.
type authScheme int

const (
	schemeSharedKey authScheme = iota
	schemeSharedKeyLite
)

// authHeader is a parsed "SharedKey account:signature" header.
type authHeader struct {
	scheme    authScheme
	account   string
	signature string // base64, as sent
}

// parseAuthorization parses the Authorization header value. Anything that is
// not "SharedKey" or "SharedKeyLite", a space, and "account:signature" with
// both parts non-empty is malformed (400 InvalidAuthenticationInfo).
func parseAuthorization(v string) (authHeader, error) {
	var h authHeader
	name, cred, ok := strings.Cut(strings.TrimSpace(v), " ")
	if !ok {
		return h, invalidAuthInfo("the Authorization header must be '<scheme> <account>:<signature>'")
	}
	switch name {
	case "SharedKey":
		h.scheme = schemeSharedKey
	case "SharedKeyLite":
		h.scheme = schemeSharedKeyLite
	default:
		return h, invalidAuthInfo("the Authorization scheme '" + name + "' is not supported; use SharedKey, SharedKeyLite or a shared access signature")
	}
	account, sig, ok := strings.Cut(strings.TrimSpace(cred), ":")
	if !ok || account == "" || sig == "" || strings.ContainsAny(account, " \t") || strings.ContainsAny(sig, " \t:") {
		return h, invalidAuthInfo("the Authorization header credential must be '<account>:<signature>'")
	}
	h.account, h.signature = account, sig
	return h, nil
}

func invalidAuthInfo(detail string) *azerr.Error {
	return azerr.New(azerr.InvalidAuthenticationInfo).With("AuthenticationErrorDetail", detail)
}

// sharedKeyStringsToSign returns the strings a correctly signed request may
// have signed: first the one the documentation defines, then the variants
// that Azure SDKs produce where they deviate from it (see canonicalHeaders
// and canonicalResource). Duplicates are removed.
func sharedKeyStringsToSign(r *http.Request, svc Service, scheme authScheme, account string) []string {
	if svc == Table {
		return []string{tableStringToSign(r, scheme, account)}
	}
	var out []string
	for _, headers := range canonicalHeaders(r.Header) {
		if scheme == schemeSharedKeyLite {
			out = append(out, liteStringToSign(r, headers, account))
			continue
		}
		for _, resource := range canonicalResource(r.URL, account) {
			out = append(out, fullStringToSign(r, headers, resource))
		}
	}
	return dedupe(out)
}

// primaryStringToSign is the first of sharedKeyStringsToSign: the form the
// documentation defines and the SDKs sign. Verification tries it alone
// first, so a correctly signed request costs one HMAC per key; the variants
// are built only when it does not match.
func primaryStringToSign(r *http.Request, svc Service, scheme authScheme, account string) string {
	return string(appendPrimaryStringToSign(nil, r, svc, scheme, account))
}

// appendPrimaryStringToSign appends primaryStringToSign to b: verification
// hashes the bytes without making a string of them.
func appendPrimaryStringToSign(b []byte, r *http.Request, svc Service, scheme authScheme, account string) []byte {
	if svc == Table {
		return appendTableStringToSign(b, r, scheme, account)
	}
	var buf [8]xmsHeader // room for the x-ms-* headers of most requests, on the stack
	hs := appendXMSHeaders(buf[:0], r.Header)
	sortHeaders(hs, collatedLess)
	if scheme == schemeSharedKeyLite {
		b = appendLiteLines(b, r)
		b = appendHeaders(b, hs, false)
		return appendLiteResource(b, r.URL, account)
	}
	b = appendFullLines(b, r)
	b = appendHeaders(b, hs, false)
	return appendDocumentedResource(b, r.URL, account)
}

// fullStringToSign is the Blob, Queue and File Shared Key string-to-sign.
func fullStringToSign(r *http.Request, headers, resource string) string {
	b := appendFullLines(nil, r)
	b = append(b, headers...)
	return string(append(b, resource...))
}

// appendFullLines appends the standard-header lines that open the Blob,
// Queue and File Shared Key string-to-sign, each ended by a newline.
func appendFullLines(b []byte, r *http.Request) []byte {
	h := r.Header
	date := h.Get("Date")
	if h.Get("X-Ms-Date") != "" {
		date = ""
	}
	return appendLines(b,
		r.Method,
		h.Get("Content-Encoding"),
		h.Get("Content-Language"),
		contentLength(r),
		h.Get("Content-MD5"),
		h.Get("Content-Type"),
		date,
		h.Get("If-Modified-Since"),
		h.Get("If-Match"),
		h.Get("If-None-Match"),
		h.Get("If-Unmodified-Since"),
		h.Get("Range"),
	)
}

// liteStringToSign is the Blob, Queue and File Shared Key Lite string-to-sign.
func liteStringToSign(r *http.Request, headers, account string) string {
	b := appendLiteLines(nil, r)
	b = append(b, headers...)
	return string(appendLiteResource(b, r.URL, account))
}

// appendLiteLines appends the lines that open the Blob, Queue and File
// Shared Key Lite string-to-sign.
func appendLiteLines(b []byte, r *http.Request) []byte {
	h := r.Header
	date := h.Get("Date")
	if h.Get("X-Ms-Date") != "" {
		date = ""
	}
	return appendLines(b, r.Method, h.Get("Content-MD5"), h.Get("Content-Type"), date)
}

// appendLines appends each line followed by a newline.
func appendLines(b []byte, lines ...string) []byte {
	for _, line := range lines {
		b = append(b, line...)
		b = append(b, '\n')
	}
	return b
}

// tableStringToSign is the Table service string-to-sign. Table signs no
// x-ms-* headers, and its Date line is x-ms-date when present.
func tableStringToSign(r *http.Request, scheme authScheme, account string) string {
	return string(appendTableStringToSign(nil, r, scheme, account))
}

func appendTableStringToSign(b []byte, r *http.Request, scheme authScheme, account string) []byte {
	h := r.Header
	date := h.Get("X-Ms-Date")
	if date == "" {
		date = h.Get("Date")
	}
	if scheme == schemeSharedKeyLite {
		b = appendLines(b, date)
	} else {
		b = appendLines(b, r.Method, h.Get("Content-MD5"), h.Get("Content-Type"), date)
	}
	return appendLiteResource(b, r.URL, account)
}

// contentLength is the Content-Length line: from version 2015-02-21 a zero
// length is signed as the empty string.
func contentLength(r *http.Request) string {
	cl := r.Header.Get("Content-Length")
	if cl == "0" {
		if v := r.Header.Get("X-Ms-Version"); v == "" || v >= "2015-02-21" {
			return ""
		}
	}
	return cl
}

// canonicalHeaders returns the CanonicalizedHeaders block ("name:value\n"
// per x-ms-* header). The first form sorts names with Azure's collation and
// signs values as sent, as azblob and azfile do; the variants sort in byte
// order (azqueue and older SDKs) and collapse runs of whitespace inside
// values as the documentation describes.
func canonicalHeaders(h http.Header) []string {
	hs := xmsHeaders(h)
	out := []string{renderHeaders(hs, collatedLess, false), renderHeaders(hs, ordinalLess, false)}
	for _, x := range hs {
		if collapseSpace(x.value) != x.value {
			out = append(out, renderHeaders(hs, collatedLess, true), renderHeaders(hs, ordinalLess, true))
			break
		}
	}
	return dedupe(out)
}

// xmsHeader is one x-ms-* request header as it is signed.
type xmsHeader struct{ name, value string }

// xmsHeaders lists the x-ms-* headers, names in lower case and repeated
// values joined with commas.
func xmsHeaders(h http.Header) []xmsHeader { return appendXMSHeaders(nil, h) }

func appendXMSHeaders(hs []xmsHeader, h http.Header) []xmsHeader {
	for k, vs := range h {
		name := strings.TrimSpace(k)
		if hasXMSPrefix(name) {
			hs = append(hs, xmsHeader{lowerHeaderName(name), strings.Join(vs, ",")})
		}
	}
	return hs
}

// hasXMSPrefix reports whether name starts with "x-ms-" in any case. No
// other character lowercases to one of these, so this is the prefix of
// strings.ToLower(name), tested before paying for the lowercasing.
func hasXMSPrefix(name string) bool {
	return len(name) >= 5 && name[0]|0x20 == 'x' && name[1] == '-' &&
		name[2]|0x20 == 'm' && name[3]|0x20 == 's' && name[4] == '-'
}

// lowerHeaderName is strings.ToLower(name), without allocating for the
// x-ms-* headers nearly every request carries, spelled as net/http
// canonicalises them.
func lowerHeaderName(name string) string {
	switch name {
	case "X-Ms-Date":
		return "x-ms-date"
	case "X-Ms-Version":
		return "x-ms-version"
	case "X-Ms-Client-Request-Id":
		return "x-ms-client-request-id"
	}
	return strings.ToLower(name)
}

// renderHeaders sorts hs by name with less and writes the block, collapsing
// whitespace in values when asked to.
func renderHeaders(hs []xmsHeader, less func(a, b string) bool, collapse bool) string {
	sortHeaders(hs, less)
	return string(appendHeaders(nil, hs, collapse))
}

func sortHeaders(hs []xmsHeader, less func(a, b string) bool) {
	slices.SortFunc(hs, func(a, b xmsHeader) int { return compareBy(less, a.name, b.name) })
}

// appendHeaders appends one "name:value" line per header, in hs's order.
func appendHeaders(b []byte, hs []xmsHeader, collapse bool) []byte {
	for _, x := range hs {
		v := x.value
		if collapse {
			v = collapseSpace(v)
		}
		b = append(b, x.name...)
		b = append(b, ':')
		b = append(b, v...)
		b = append(b, '\n')
	}
	return b
}

// compareBy turns a less function into the three-way comparison
// slices.SortFunc takes.
func compareBy(less func(a, b string) bool, a, b string) int {
	switch {
	case less(a, b):
		return -1
	case less(b, a):
		return 1
	}
	return 0
}

func collatedLess(a, b string) bool { return collateHeaderNames(a, b) < 0 }
func ordinalLess(a, b string) bool  { return a < b }

// collapseSpace replaces each run of spaces and tabs with one space and trims
// the ends, leaving quoted strings alone.
func collapseSpace(v string) string {
	var sb strings.Builder
	inQuote, pending := false, false
	for i := 0; i < len(v); i++ {
		c := v[i]
		if !inQuote && (c == ' ' || c == '\t') {
			pending = true
			continue
		}
		if pending && sb.Len() > 0 {
			sb.WriteByte(' ')
		}
		pending = false
		if c == '"' {
			inQuote = !inQuote
		}
		sb.WriteByte(c)
	}
	return sb.String()
}

// canonicalResource returns the Shared Key CanonicalizedResource: "/account"
// and the escaped path, then "\nname:value" per query parameter, names
// lowercased and sorted, values decoded, repeated values sorted and
// comma-joined. The documentation sorts the lowercased names; the Go SDKs
// sort the names as sent and lowercase afterwards, which differs only when a
// name has uppercase letters, so that order is the variant.
func canonicalResource(u *url.URL, account string) []string {
	base, q, names := resourceParts(u, account)
	if len(names) == 0 {
		return []string{base}
	}
	return dedupe([]string{renderResource(base, q, names, documentedQueryLess), renderResource(base, q, names, ordinalLess)})
}

// appendDocumentedResource appends the first form of canonicalResource.
func appendDocumentedResource(b []byte, u *url.URL, account string) []byte {
	b = appendResourceBase(b, u, account)
	if u.RawQuery == "" {
		return b
	}
	q, names := queryNames(u)
	return appendQueryLines(b, q, names, documentedQueryLess)
}

// resourceParts returns "/account" and the escaped path, and the query
// with its parameter names.
func resourceParts(u *url.URL, account string) (base string, q url.Values, names []string) {
	q, names = queryNames(u)
	return string(appendResourceBase(nil, u, account)), q, names
}

// appendResourceBase appends "/account" and the escaped path.
func appendResourceBase(b []byte, u *url.URL, account string) []byte {
	b = append(b, '/')
	b = append(b, account...)
	return append(b, escapedPath(u)...)
}

// queryNames parses the query and lists its parameter names. A malformed
// pair is left out, as the SDKs do.
func queryNames(u *url.URL) (url.Values, []string) {
	q, _ := url.ParseQuery(u.RawQuery)
	names := make([]string, 0, len(q))
	for n := range q {
		names = append(names, n)
	}
	return q, names
}

// renderResource writes base and one "name:v1,v2" line per parameter, names
// sorted with less and values sorted.
func renderResource(base string, q url.Values, names []string, less func(a, b string) bool) string {
	return string(appendQueryLines([]byte(base), q, names, less))
}

func appendQueryLines(b []byte, q url.Values, names []string, less func(a, b string) bool) []byte {
	slices.SortFunc(names, func(x, y string) int { return compareBy(less, x, y) })
	for _, n := range names {
		vs := q[n]
		if len(vs) > 1 {
			vs = slices.Clone(vs)
			sort.Strings(vs)
		}
		b = append(b, '\n')
		b = append(b, strings.ToLower(n)...)
		b = append(b, ':')
		for i, v := range vs {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, v...)
		}
	}
	return b
}

// documentedQueryLess orders parameter names case-insensitively, the
// documented form; byte order breaks ties.
func documentedQueryLess(a, b string) bool {
	la, lb := strings.ToLower(a), strings.ToLower(b)
	if la != lb {
		return la < lb
	}
	return a < b
}

// appendLiteResource appends the Shared Key Lite and Table
// CanonicalizedResource: "/account", the escaped path and "?comp=value"
// when comp is present.
func appendLiteResource(b []byte, u *url.URL, account string) []byte {
	b = appendResourceBase(b, u, account)
	if u.RawQuery == "" {
		return b
	}
	if q, _ := url.ParseQuery(u.RawQuery); q.Has("comp") {
		b = append(b, "?comp="...)
		b = append(b, q.Get("comp")...)
	}
	return b
}

// escapedPath is the path as it appeared in the request line ("/" for an
// empty path): the resource part of a signature is signed encoded exactly as
// in the URI.
func escapedPath(u *url.URL) string {
	if p := u.EscapedPath(); p != "" {
		return p
	}
	return "/"
}

func dedupe(ss []string) []string {
	out := ss[:0]
	for _, s := range ss {
		dup := false
		for _, o := range out {
			if o == s {
				dup = true
				break
			}
		}
		if !dup {
			out = append(out, s)
		}
	}
	return out
}
