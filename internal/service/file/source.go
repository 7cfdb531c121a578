package file

import (
	"net"
	"net/http"
	"net/url"
	"strings"

	"github.com/lazuli-storage/lazuli/internal/rule/auth"
	"github.com/lazuli-storage/lazuli/internal/rule/azerr"
)

// sourceRef is a resource another request names by URL: the source of
// Copy File, Put Range From URL or Rename.
type sourceRef struct {
	url     *url.URL
	service auth.Service // File, or Blob for a blob of this server
	account string
	// file is the share, snapshot and path of a File service source.
	file *target
}

// resolveSource parses a source URL that must address this server: the
// same host as the request (path-style URLs), or a production-style host
// of a known account. A source on the request's own host and port is a
// file of this service; one on another port, or a ".blob." host, is a blob.
func (s *Service) resolveSource(r *http.Request, header, raw string) (sourceRef, error) {
	bad := func(why string) error {
		return azerr.Newf(azerr.InvalidHeaderValue, "%s: %s", header, why).
			With("HeaderName", header).With("HeaderValue", raw)
	}
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return sourceRef{}, bad("the source must be an absolute http(s) URL")
	}
	reqHost, reqPort := splitHost(r.Host)
	srcHost, srcPort := splitHost(u.Host)
	if s.serverDomain(srcHost) != s.serverDomain(reqHost) {
		return sourceRef{}, bad("Lazuli copies only from sources on this server")
	}
	ref := sourceRef{url: u, service: auth.File}
	path := strings.TrimPrefix(u.Path, "/")
	if account, svc, ok := s.hostStyle(srcHost); ok {
		ref.account = account
		if svc == "blob" || (svc != "file" && srcPort != reqPort) {
			ref.service = auth.Blob
		}
	} else {
		ref.account, path, _ = strings.Cut(path, "/")
		if srcPort != reqPort {
			ref.service = auth.Blob
		}
	}
	if ref.service == auth.File {
		keepDots := strings.EqualFold(r.Header.Get("X-Ms-Source-Allow-Trailing-Dot"), "true")
		t, err := fileSource(ref.account, path, u.Query().Get("sharesnapshot"), keepDots)
		if err != nil {
			return sourceRef{}, err
		}
		t.live = s.live
		ref.file = t
	}
	return ref, nil
}

// fileSource parses share/path of a File service source URL.
func fileSource(account, path, snapshot string, keepDots bool) (*target, error) {
	share, rest, _ := strings.Cut(path, "/")
	if err := validShareName(share); err != nil {
		return nil, err
	}
	fp, err := parsePath(rest, keepDots)
	if err != nil {
		return nil, err
	}
	t := &target{Account: account, Share: share, Path: fp}
	if snapshot != "" {
		if t.Snapshot, err = parseSnapshot(snapshot); err != nil {
			return nil, err
		}
	}
	return t, nil
}

// hostStyle recognises a production-style host (account.service.domain)
// of a known account.
func (s *Service) hostStyle(host string) (account, service string, ok bool) {
	if net.ParseIP(host) != nil {
		return "", "", false
	}
	label, rest, found := strings.Cut(host, ".")
	if _, known := s.accounts.Lookup(label); !found || !known {
		return "", "", false
	}
	service, _, _ = strings.Cut(rest, ".")
	return label, service, true
}

// serverDomain is the part of a host that names the server: a
// production-style host without its account and service labels.
func (s *Service) serverDomain(host string) string {
	if _, _, ok := s.hostStyle(host); ok {
		_, rest, _ := strings.Cut(host, ".")
		if _, domain, ok := strings.Cut(rest, "."); ok {
			return domain
		}
		return rest
	}
	return host
}

// splitHost splits host:port, lower-casing the host.
func splitHost(hostport string) (host, port string) {
	h, p, err := net.SplitHostPort(hostport)
	if err != nil {
		return strings.ToLower(hostport), ""
	}
	return strings.ToLower(h), p
}

// hasSAS reports whether a source URL carries a shared access signature.
func (ref sourceRef) hasSAS() bool { return ref.url.Query().Get("sig") != "" }
