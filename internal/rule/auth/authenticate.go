package auth

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"sync"
	"time"

	"github.com/lazuli-storage/lazuli/internal/base/clock"
	"github.com/lazuli-storage/lazuli/internal/rule/azerr"
)

// maxRequestAge is how old a Shared Key request's date may be: Azure rejects
// older requests to limit replay.
const maxRequestAge = 15 * time.Minute

// Authenticator checks request credentials against the configured accounts.
type Authenticator struct {
	Accounts *Accounts
	Clock    clock.Clock
	// RequestClock, when set, is what a request's own Date is judged
	// against. The server sets it to the wall clock while Clock drives SAS
	// windows: tests move Clock by hours to expire messages and leases, but
	// SDKs stamp requests with real time.
	RequestClock clock.Clock
	Logger       *slog.Logger
	// Debug logs the server's string-to-sign when a signature does not match,
	// the quickest way to find a client's canonicalisation mistake.
	Debug bool
	// OAuth, when set, accepts Bearer tokens (--oauth basic).
	OAuth *OAuth
}

// Authenticate checks r's credentials for account on service svc: a Shared
// Key or Shared Key Lite Authorization header, or a SAS (the query parameter
// sig). A request with neither is Anonymous. Failures are Azure errors: 400
// InvalidAuthenticationInfo for a malformed Authorization header, 403
// AuthenticationFailed with an AuthenticationErrorDetail element for a wrong
// signature, an unknown account or a request date older than 15 minutes.
//
// For a SAS only what can be checked without knowing the operation is
// checked here (its form and signature); its permissions, time window, IP
// range and protocol are checked by Identity.Authorize.
func (a *Authenticator) Authenticate(r *http.Request, svc Service, account string) (*Identity, error) {
	id := &Identity{
		Kind:    Anonymous,
		Account: account,
		service: svc,
		at:      a.now(),
		remote:  remoteIP(r),
		https:   r.TLS != nil,
	}
	if values := r.Header.Values("Authorization"); len(values) > 0 {
		if len(values) > 1 {
			return nil, invalidAuthInfo("the request has more than one Authorization header")
		}
		if token, ok := strings.CutPrefix(values[0], "Bearer "); ok {
			return a.authenticateBearer(r, svc, account, token, id)
		}
		return a.authenticateSharedKey(r, svc, account, values[0], id)
	}
	q := r.URL.Query()
	if q.Has("sig") {
		return a.authenticateSAS(r, svc, account, q, id)
	}
	return id, nil
}

func (a *Authenticator) now() time.Time {
	if a.Clock == nil {
		return time.Now().UTC()
	}
	return a.Clock.Now()
}

// remoteIP is the client address of r, unmapped so an IPv4 client on an IPv6
// socket compares equal to an IPv4 sip range.
// requestNow is the time a request's Date is judged against.
func (a *Authenticator) requestNow() time.Time {
	if a.RequestClock != nil {
		return a.RequestClock.Now()
	}
	return a.now()
}

func remoteIP(r *http.Request) netip.Addr {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	ip, err := netip.ParseAddr(host)
	if err != nil {
		return netip.Addr{}
	}
	return ip.Unmap()
}

func (a *Authenticator) authenticateSharedKey(r *http.Request, svc Service, account, header string, id *Identity) (*Identity, error) {
	h, err := parseAuthorization(header)
	if err != nil {
		return nil, err
	}
	if h.account != account {
		return nil, authFailed(fmt.Sprintf("The account name '%s' in the Authorization header does not match the account '%s' the request addresses.", h.account, account))
	}
	acc, ok := a.Accounts.Lookup(account)
	if !ok {
		return nil, authFailed(fmt.Sprintf("The account '%s' does not exist.", account))
	}
	if err := a.checkDate(r); err != nil {
		return nil, err
	}
	if primarySignatureMatches(acc, r, svc, h, account) {
		id.Kind = SharedKey
		return id, nil
	}
	candidates := sharedKeyStringsToSign(r, svc, h.scheme, account)
	if !signatureMatches(acc.Keys, candidates, h.signature) {
		a.logMismatch(r, "shared key", candidates[0])
		return nil, authFailed(fmt.Sprintf("The MAC signature found in the HTTP request '%s' is not the same as any computed signature. Server used following string to sign: '%s'.", h.signature, candidates[0]))
	}
	id.Kind = SharedKey
	return id, nil
}

// checkDate requires x-ms-date or Date and rejects requests older than
// maxRequestAge.
func (a *Authenticator) checkDate(r *http.Request) error {
	v := r.Header.Get("X-Ms-Date")
	if v == "" {
		v = r.Header.Get("Date")
	}
	if v == "" {
		return authFailed("Request date header not specified. Set x-ms-date or Date.")
	}
	t, err := http.ParseTime(v)
	if err != nil {
		return authFailed(fmt.Sprintf("The request date header '%s' is not a valid RFC 1123 date.", v))
	}
	if a.requestNow().Sub(t) > maxRequestAge {
		return authFailed(fmt.Sprintf("Request date header too old: '%s'", v))
	}
	return nil
}

// primarySignatureMatches reports whether h's signature is the HMAC-SHA256
// of the request's primaryStringToSign under any of acc's keys: the check
// every correctly signed request passes, done without a heap allocation in
// the common case.
func primarySignatureMatches(acc *Account, r *http.Request, svc Service, h authHeader, account string) bool {
	var wantBuf [sha256.Size + 1]byte
	want, ok := decodeSignature(wantBuf[:0], h.signature)
	if !ok {
		return false
	}
	bp := stringToSignPool.Get().(*[]byte)
	defer stringToSignPool.Put(bp)
	*bp = appendPrimaryStringToSign((*bp)[:0], r, svc, h.scheme, account)
	var sum [sha256.Size]byte
	for i := range acc.Keys {
		if hmac.Equal(acc.sum(i, *bp, sum[:0]), want) {
			return true
		}
	}
	return false
}

// stringToSignPool recycles the buffers primary strings-to-sign are built in.
var stringToSignPool = sync.Pool{New: func() any { b := make([]byte, 0, 512); return &b }}

// decodeSignature appends the decoded base64 signature sig to dst and
// reports whether it is as long as an HMAC-SHA256. A signature as long as
// the encoding of one is decoded from a copy on the stack.
func decodeSignature(dst []byte, sig string) ([]byte, bool) {
	var src [64]byte
	if len(sig) > len(src) {
		want, err := base64.StdEncoding.DecodeString(sig)
		return want, err == nil && len(want) == sha256.Size
	}
	n := copy(src[:], sig)
	want, err := base64.StdEncoding.AppendDecode(dst, src[:n])
	return want, err == nil && len(want) == sha256.Size
}

// signatureMatches reports whether sig (base64) is the HMAC-SHA256 of any
// candidate string under any key.
func signatureMatches(keys [][]byte, candidates []string, sig string) bool {
	want, err := base64.StdEncoding.DecodeString(sig)
	if err != nil || len(want) != sha256.Size {
		return false
	}
	for _, key := range keys {
		for _, s := range candidates {
			if hmac.Equal(sign(key, s), want) {
				return true
			}
		}
	}
	return false
}

func sign(key []byte, s string) []byte {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(s))
	return m.Sum(nil)
}

func (a *Authenticator) logMismatch(r *http.Request, kind, stringToSign string) {
	if !a.Debug {
		return
	}
	logger := a.Logger
	if logger == nil {
		logger = slog.Default()
	}
	logger.InfoContext(r.Context(), "signature mismatch", "kind", kind, "method", r.Method,
		"url", r.URL.String(), "string_to_sign", stringToSign)
}

// authFailed is 403 AuthenticationFailed with the detail element the service
// sends.
func authFailed(detail string) *azerr.Error {
	return azerr.New(azerr.AuthenticationFailed).With("AuthenticationErrorDetail", detail)
}
