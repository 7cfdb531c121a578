package auth

import (
	"net/http"
	"net/url"
	"sort"
	"strings"

	"github.com/lazuli-storage/lazuli/internal/azerr"
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
	if svc == Table {
		return tableStringToSign(r, scheme, account)
	}
	headers := documentedHeaders(r.Header)
	if scheme == schemeSharedKeyLite {
		return liteStringToSign(r, headers, account)
	}
	return fullStringToSign(r, headers, documentedResource(r.URL, account))
}

// fullStringToSign is the Blob, Queue and File Shared Key string-to-sign.
func fullStringToSign(r *http.Request, headers, resource string) string {
	h := r.Header
	date := h.Get("Date")
	if h.Get("X-Ms-Date") != "" {
		date = ""
	}
	return strings.Join([]string{
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
	}, "\n") + "\n" + headers + resource
}

// liteStringToSign is the Blob, Queue and File Shared Key Lite string-to-sign.
func liteStringToSign(r *http.Request, headers, account string) string {
	h := r.Header
	date := h.Get("Date")
	if h.Get("X-Ms-Date") != "" {
		date = ""
	}
	return strings.Join([]string{r.Method, h.Get("Content-MD5"), h.Get("Content-Type"), date}, "\n") +
		"\n" + headers + liteResource(r.URL, account)
}

// tableStringToSign is the Table service string-to-sign. Table signs no
// x-ms-* headers, and its Date line is x-ms-date when present.
func tableStringToSign(r *http.Request, scheme authScheme, account string) string {
	h := r.Header
	date := h.Get("X-Ms-Date")
	if date == "" {
		date = h.Get("Date")
	}
	if scheme == schemeSharedKeyLite {
		return date + "\n" + liteResource(r.URL, account)
	}
	return strings.Join([]string{r.Method, h.Get("Content-MD5"), h.Get("Content-Type"), date, liteResource(r.URL, account)}, "\n")
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

// documentedHeaders is the first form of canonicalHeaders alone, the one a
// correctly signed request almost always uses.
func documentedHeaders(h http.Header) string {
	return renderHeaders(xmsHeaders(h), collatedLess, false)
}

// xmsHeader is one x-ms-* request header as it is signed.
type xmsHeader struct{ name, value string }

// xmsHeaders lists the x-ms-* headers, names in lower case and repeated
// values joined with commas.
func xmsHeaders(h http.Header) []xmsHeader {
	var hs []xmsHeader
	for k, vs := range h {
		name := strings.ToLower(strings.TrimSpace(k))
		if strings.HasPrefix(name, "x-ms-") {
			hs = append(hs, xmsHeader{name, strings.Join(vs, ",")})
		}
	}
	return hs
}

// renderHeaders sorts hs by name with less and writes the block, collapsing
// whitespace in values when asked to.
func renderHeaders(hs []xmsHeader, less func(a, b string) bool, collapse bool) string {
	sort.Slice(hs, func(i, j int) bool { return less(hs[i].name, hs[j].name) })
	var sb strings.Builder
	for _, x := range hs {
		v := x.value
		if collapse {
			v = collapseSpace(v)
		}
		sb.WriteString(x.name)
		sb.WriteByte(':')
		sb.WriteString(v)
		sb.WriteByte('\n')
	}
	return sb.String()
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

// documentedResource is the first form of canonicalResource alone.
func documentedResource(u *url.URL, account string) string {
	base, q, names := resourceParts(u, account)
	return renderResource(base, q, names, documentedQueryLess)
}

// resourceParts returns "/account" and the escaped path, and the query
// with its parameter names. A malformed pair is left out, as the SDKs do.
func resourceParts(u *url.URL, account string) (base string, q url.Values, names []string) {
	base = "/" + account + escapedPath(u)
	q, _ = url.ParseQuery(u.RawQuery)
	names = make([]string, 0, len(q))
	for n := range q {
		names = append(names, n)
	}
	return base, q, names
}

// renderResource writes base and one "name:v1,v2" line per parameter, names
// sorted with less and values sorted.
func renderResource(base string, q url.Values, names []string, less func(a, b string) bool) string {
	sort.Slice(names, func(i, j int) bool { return less(names[i], names[j]) })
	var sb strings.Builder
	sb.WriteString(base)
	for _, n := range names {
		vs := append([]string(nil), q[n]...)
		sort.Strings(vs)
		sb.WriteString("\n" + strings.ToLower(n) + ":" + strings.Join(vs, ","))
	}
	return sb.String()
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

// liteResource is the Shared Key Lite and Table CanonicalizedResource:
// "/account", the escaped path and "?comp=value" when comp is present.
func liteResource(u *url.URL, account string) string {
	res := "/" + account + escapedPath(u)
	if q, _ := url.ParseQuery(u.RawQuery); q.Has("comp") {
		res += "?comp=" + q.Get("comp")
	}
	return res
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
