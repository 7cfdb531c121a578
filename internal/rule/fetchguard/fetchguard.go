// Package fetchguard decides which hosts the server may fetch a copy source
// from (Copy Blob, Copy Blob From URL, Put Blob/Block/Page From URL, Append
// Block From URL, and the File service's Copy File and Put Range From URL of
// a blob), so that a caller who may write one container cannot make the
// server read an internal address and store the answer.
//
// The policy (--copySourceAllow):
//   - a list of host patterns ("example.com", "*.example.com", an IP or a
//     CIDR such as 10.0.0.0/8); "*" allows every host;
//   - with no list, every host while all the server's listeners are bound to
//     loopback (a local emulator, where copying from a local test server is
//     useful), and only public addresses once any listener is bound to
//     another address (a shared server): loopback, link-local, private,
//     unique-local, CGNAT, unspecified and multicast addresses are refused.
//
// The server's own listeners come in two kinds (SetListeners). Its storage
// listeners (Blob, Queue, Table, File REST) are always allowed: the Blob
// service reads File service sources over HTTP, and the File service blob
// sources. Its other listeners (the admin listener, which trusts loopback
// callers and serves the console, /api/download of any blob and /metrics;
// the SMB listener) are never allowed, whatever the policy says, "*"
// included: the server's own fetch comes from this machine, so a copy from
// them would hand a caller what only the machine's operator may read. They
// are refused on their port at any address of this machine (loopback, the
// unspecified address, any interface's address, IPv4-mapped IPv6 forms),
// however the source's name is spelled and after every redirect.
//
// Addresses are checked after name resolution, in the dialer, so a name
// that resolves to an internal address is refused however it is spelled,
// and every redirect is checked again. Every request the fetcher sends
// carries OwnFetchHeader, so that a listener reached in a way this package
// cannot see (a port forwarded from another address) can still tell the
// server's fetch from its operator's tools and refuse it.
//
// The standard proxy variables (HTTPS_PROXY, HTTP_PROXY, NO_PROXY) are
// honoured, for networks where copy sources are reached through a proxy.
// The dialer then sees only the proxy, which must be allowed as any host
// is, and cannot check where the source's name resolves: so a proxied
// source must be allowed by name, as "*" or a listed name pattern; the
// policies that judge resolved addresses (the public-only default, IP and
// CIDR entries) refuse it. A proxied source on a non-storage listener's
// port whose host is, or resolves here to, an address of this machine is
// refused too.
package fetchguard

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/lazuli-storage/lazuli/internal/rule/azerr"
)

// OwnFetchHeader marks every request the server's copy fetcher sends, so
// that a listener that trusts local callers (the admin listener) can tell
// the server's own fetch, made on a caller's behalf, from a local tool and
// refuse it: a copy source is never a trusted caller.
const OwnFetchHeader = "X-Lazuli-Copy-Fetch"

// Guard is one server's copy-source policy. The zero value allows every
// host.
type Guard struct {
	allowAll   bool
	publicOnly bool
	hosts      []string       // exact names and "*.suffix" patterns
	prefixes   []netip.Prefix // IPs and CIDRs
	mu         sync.RWMutex
	listeners  listeners // this server's own, by kind (listeners.go)
}

// New builds the policy from --copySourceAllow (empty for the default)
// and whether every listener is bound to loopback.
func New(allow []string, allLoopback bool) *Guard {
	g := &Guard{}
	for _, a := range allow {
		a = strings.ToLower(strings.TrimSpace(a))
		switch {
		case a == "":
		case a == "*":
			g.allowAll = true
		case strings.Contains(a, "/"):
			if p, err := netip.ParsePrefix(a); err == nil {
				g.prefixes = append(g.prefixes, p.Masked())
			}
		default:
			if ip, err := netip.ParseAddr(a); err == nil {
				g.prefixes = append(g.prefixes, netip.PrefixFrom(ip, ip.BitLen()))
			} else {
				g.hosts = append(g.hosts, a)
			}
		}
	}
	if len(allow) == 0 {
		g.allowAll = allLoopback
		g.publicOnly = !allLoopback
	}
	return g
}

// OrLocal returns g, or when g is nil the policy of a local emulator
// (every host allowed), for services built without one (tests).
func OrLocal(g *Guard) *Guard {
	if g == nil {
		return New(nil, true)
	}
	return g
}

// Public reports whether ip is an address on the public internet: not
// loopback, link-local, private (RFC 1918, unique-local), CGNAT,
// unspecified, multicast or otherwise special.
func Public(ip netip.Addr) bool {
	ip = ip.Unmap()
	switch {
	case !ip.IsValid(), ip.IsLoopback(), ip.IsLinkLocalUnicast(), ip.IsLinkLocalMulticast(), ip.IsPrivate(),
		ip.IsUnspecified(), ip.IsMulticast(), ip.IsInterfaceLocalMulticast():
		return false
	}
	for _, p := range special {
		if p.Contains(ip) {
			return false
		}
	}
	return true
}

// special are the other blocks that are not public addresses.
var special = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"), netip.MustParsePrefix("100.64.0.0/10"), netip.MustParsePrefix("192.0.0.0/24"),
	netip.MustParsePrefix("198.18.0.0/15"), netip.MustParsePrefix("240.0.0.0/4"), netip.MustParsePrefix("64:ff9b:1::/48"),
	netip.MustParsePrefix("100::/64"), netip.MustParsePrefix("2001::/23"),
}

// refused is the answer for a source the policy does not allow.
func refused(what string) error {
	return azerr.Newf(azerr.CannotVerifyCopySource,
		"The copy source %s is not allowed: this server fetches copy sources only from hosts --copySourceAllow names (by default, public addresses once it listens beyond loopback).", what).
		WithStatus(http.StatusForbidden)
}

// ErrRefused marks a dial the policy refused, for callers to tell it apart
// from a network failure.
var ErrRefused = errors.New("fetchguard: address refused")

// errNonStorage marks a refused dial to one of this server's non-storage
// listeners, which no policy allows.
var errNonStorage = fmt.Errorf("%w: one of this server's non-storage listeners", ErrRefused)

// checkName checks a host name against the list, before resolution.
func (g *Guard) checkName(host string) error {
	if g.allowAll || g.publicOnly {
		return nil
	}
	host = strings.ToLower(strings.TrimSuffix(host, "."))
	if ip, err := netip.ParseAddr(host); err == nil {
		return g.checkListedIP(ip, host)
	}
	if g.allowsByName(host) {
		return nil
	}
	if len(g.prefixes) > 0 {
		return nil // the resolved addresses are checked against the prefixes
	}
	return refused(host)
}

func (g *Guard) checkListedIP(ip netip.Addr, what string) error {
	for _, p := range g.prefixes {
		if p.Contains(ip.Unmap()) {
			return nil
		}
	}
	return refused(what)
}

// checkAddr checks a resolved address just before connecting to it.
func (g *Guard) checkAddr(host string, ap netip.AddrPort) error {
	switch {
	case g.isNonStorage(ap):
		return fmt.Errorf("%w (%s is %s)", errNonStorage, host, ap)
	case g.allowAll, g.isStorage(ap):
		return nil
	case g.publicOnly:
		if Public(ap.Addr()) {
			return nil
		}
		return fmt.Errorf("%w: %s resolves to %s", ErrRefused, host, ap.Addr())
	}
	if len(g.hosts) > 0 && g.checkName(host) == nil {
		if _, err := netip.ParseAddr(host); err != nil {
			return nil // allowed by name
		}
	}
	if g.checkListedIP(ap.Addr(), host) == nil {
		return nil
	}
	return fmt.Errorf("%w: %s (%s)", ErrRefused, host, ap.Addr())
}

// Client returns an HTTP client that enforces the policy on every
// connection and redirect.
func (g *Guard) Client(timeout time.Duration) *http.Client {
	dialer := &net.Dialer{Timeout: 30 * time.Second}
	transport := http.DefaultTransport.(*http.Transport).Clone()
	transport.Proxy = g.proxy
	transport.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		host, _, err := net.SplitHostPort(addr)
		if err != nil {
			return nil, err
		}
		d := *dialer
		d.ControlContext = func(_ context.Context, _, address string, _ syscall.RawConn) error {
			ap, err := netip.ParseAddrPort(address)
			if err != nil {
				return err
			}
			return g.checkAddr(host, ap)
		}
		return d.DialContext(ctx, network, addr)
	}
	return &http.Client{Timeout: timeout, Transport: marked{transport},
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if len(via) >= 10 {
				return errors.New("stopped after 10 redirects")
			}
			if err := g.CheckURL(req.URL.Hostname()); err != nil {
				return fmt.Errorf("%w: redirect to %s", ErrRefused, req.URL.Host)
			}
			return nil
		}}
}

// marked is the fetcher's transport: every request it sends, the first
// and each redirect's, carries OwnFetchHeader, set here last so that
// nothing a caller puts in the request removes it.
type marked struct{ next http.RoundTripper }

func (m marked) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context()) // a RoundTripper must not change its request
	req.Header.Set(OwnFetchHeader, "1")
	return m.next.RoundTrip(req)
}

// proxy is the transport's proxy choice: the environment's, for a source
// the policy allows by name (see the package comment) and that is not one
// of this server's non-storage listeners.
func (g *Guard) proxy(req *http.Request) (*url.URL, error) {
	u, err := environmentProxy(req)
	if u == nil || err != nil {
		return u, err
	}
	if !g.allowsByName(req.URL.Hostname()) {
		return nil, fmt.Errorf("%w: %s through proxy %s (a proxied source must be allowed by name)", ErrRefused, req.URL.Host, u.Host)
	}
	if g.proxiedToNonStorage(req) {
		return nil, fmt.Errorf("%w: %s through proxy %s", errNonStorage, req.URL.Host, u.Host)
	}
	return u, nil
}

// proxiedToNonStorage reports whether a source sent through a proxy, whose
// connection the dialer never sees, may be one of this server's
// non-storage listeners: on a non-storage listener's port, with a host
// that is or resolves to an address of this machine, or does not resolve
// here at all (the proxy may resolve it differently).
func (g *Guard) proxiedToNonStorage(req *http.Request) bool {
	port := req.URL.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[req.URL.Scheme]
	}
	p, err := strconv.ParseUint(port, 10, 16)
	if err != nil {
		return true // not a port the dialer could check either
	}
	if !g.nonStoragePort(uint16(p)) {
		return false
	}
	host := req.URL.Hostname()
	if ip, err := netip.ParseAddr(host); err == nil {
		return g.isNonStorage(netip.AddrPortFrom(ip, uint16(p)))
	}
	ips, err := net.DefaultResolver.LookupNetIP(req.Context(), "ip", host)
	if err != nil {
		return true
	}
	for _, ip := range ips {
		if g.isNonStorage(netip.AddrPortFrom(ip, uint16(p))) {
			return true
		}
	}
	return false
}

// environmentProxy reads the proxy variables (replaced in tests: net/http
// reads the environment once per process).
var environmentProxy = http.ProxyFromEnvironment

// allowsByName reports whether the policy allows host by its name alone.
func (g *Guard) allowsByName(host string) bool {
	if g.allowAll {
		return true
	}
	host = strings.ToLower(strings.TrimSuffix(host, "."))
	if _, err := netip.ParseAddr(host); err == nil {
		return false
	}
	for _, h := range g.hosts {
		if h == host || strings.HasPrefix(h, "*.") && strings.HasSuffix(host, h[1:]) {
			return true
		}
	}
	return false
}

// CheckURL checks a source URL's host name before any connection, so
// that a host the list does not name is refused with the service's code.
func (g *Guard) CheckURL(host string) error {
	if g == nil {
		return nil
	}
	return g.checkName(host)
}

// Refusal turns an error from the guarded client into the answer the
// service gives: 403 CannotVerifyCopySource for a refused address, nil for
// any other error.
func Refusal(err error, host string) error {
	switch {
	case errors.Is(err, errNonStorage):
		return azerr.Newf(azerr.CannotVerifyCopySource,
			"The copy source %s is not allowed: it is, or leads to, one of this server's listeners that are not storage services (the admin listener, SMB), which are never copy sources.", host).
			WithStatus(http.StatusForbidden)
	case errors.Is(err, ErrRefused):
		return refused(host)
	}
	return nil
}
