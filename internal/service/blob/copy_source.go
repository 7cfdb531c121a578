package blob

import (
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/lazuli-storage/lazuli/internal/engine/store"
	"github.com/lazuli-storage/lazuli/internal/frame/request"
	"github.com/lazuli-storage/lazuli/internal/frame/route"
	"github.com/lazuli-storage/lazuli/internal/rule/auth"
	"github.com/lazuli-storage/lazuli/internal/rule/azerr"
	"github.com/lazuli-storage/lazuli/internal/rule/cond"
	"github.com/lazuli-storage/lazuli/internal/rule/lease"
	"github.com/lazuli-storage/lazuli/internal/service/blobdata"
)

// copySource is the source a copy-type request names in x-ms-copy-source.
type copySource struct {
	raw string
	url *url.URL
	// local is set for a blob of this Blob service (any account), which a
	// copy reads from the store in the transaction that writes the
	// destination; any other source is fetched over HTTP.
	local   bool
	account string
	t       target
	sel     blobdata.Selector
	// authorization is x-ms-copy-source-authorization ("Bearer <token>").
	authorization string
}

// parseCopySource reads x-ms-copy-source: an absolute http(s) URL. A URL
// on this service's host and port (path-style, or production-style with a
// known account) is a local blob; its snapshot or version query selects
// the state to copy.
func (s *Service) parseCopySource(r *http.Request) (copySource, error) {
	return s.parseBlobURL(r, "x-ms-copy-source")
}

// parseBlobURL reads a header holding a blob's URL (a copy source, a
// previous snapshot) as parseCopySource describes.
func (s *Service) parseBlobURL(r *http.Request, header string) (copySource, error) {
	raw := r.Header.Get(header)
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return copySource{}, azerr.InvalidHeader(header, raw)
	}
	src := copySource{raw: raw, url: u}
	if src.authorization, err = auth.CopySourceToken(r.Header); err != nil {
		return copySource{}, err
	}
	account, local := s.localAccount(r, u)
	if !local {
		return src, nil
	}
	path := strings.TrimPrefix(u.Path, "/")
	if account == "" {
		account, path, _ = strings.Cut(path, "/")
	}
	container, name, found := strings.Cut(path, "/")
	if !found || name == "" {
		container, name = rootContainer, container
	}
	if validContainerName(container) != nil || validBlobName(name) != nil {
		return copySource{}, azerr.New(azerr.InvalidSourceBlobUrl)
	}
	src.local, src.account, src.t = true, account, target{Container: container, Blob: name}
	req := &http.Request{URL: u}
	if src.sel, err = parseSelector(req); err != nil {
		return copySource{}, err
	}
	return src, nil
}

// localAccount reports whether u addresses this Blob service: the same
// port as the request, on the same host or a loopback name for it, or a
// production-style host (account.blob.domain) of a known account, whose
// account it returns.
func (s *Service) localAccount(r *http.Request, u *url.URL) (account string, local bool) {
	reqHost, reqPort := hostPort(r.Host, r.TLS != nil)
	srcHost, srcPort := hostPort(u.Host, u.Scheme == "https")
	if srcPort != reqPort {
		return "", false
	}
	if label, rest, ok := strings.Cut(srcHost, "."); ok && net.ParseIP(srcHost) == nil {
		if _, known := s.authn.Accounts.Lookup(label); known && strings.HasPrefix(rest, "blob.") {
			return label, sameMachine(reqHost, srcHost)
		}
	}
	return "", sameMachine(reqHost, srcHost)
}

// sameMachine reports whether two host names reach the same server: equal,
// or both loopback names.
func sameMachine(a, b string) bool {
	return a == b || (loopback(a) && loopback(b))
}

func loopback(host string) bool {
	if ip := net.ParseIP(host); ip != nil {
		return ip.IsLoopback()
	}
	return host == "localhost" || strings.HasSuffix(host, ".localhost")
}

// hostPort splits host:port, lower-casing the host and filling in the
// scheme's default port.
func hostPort(hostport string, tls bool) (string, string) {
	host, port, err := net.SplitHostPort(hostport)
	if err != nil {
		host, port = hostport, ""
	}
	if port == "" {
		port = "80"
		if tls {
			port = "443"
		}
	}
	return strings.ToLower(strings.Trim(host, "[]")), port
}

// hasSAS reports whether the source URL carries a shared access signature.
func (src copySource) hasSAS() bool { return src.url.Query().Get("sig") != "" }

// display is the source URL as the destination's x-ms-copy-source shows
// it: without the signature of a SAS.
func (src copySource) display() string {
	q := src.url.Query()
	if !q.Has("sig") {
		return src.raw
	}
	u := *src.url
	q.Del("sig")
	u.RawQuery = q.Encode()
	return u.String()
}

// sourceArgs are the x-ms-source-* headers of a copy-type request.
type sourceArgs struct {
	conds   conditions
	leaseID string // x-ms-source-lease-id, as sent
	// keySHA256 is the hash of x-ms-source-encryption-key ("" without).
	keySHA256 string
}

func parseSourceArgs(r *http.Request, allowed cond.Allowed) (sourceArgs, error) {
	var a sourceArgs
	c, err := cond.ParseSource(r.Header)
	if err != nil {
		return a, err
	}
	if err = c.Restrict(allowed); err != nil {
		return a, err
	}
	if a.conds, err = withIfTags(c, "x-ms-source-if-tags"); err != nil {
		return a, err
	}
	a.leaseID = r.Header.Get("X-Ms-Source-Lease-Id")
	a.keySHA256, err = sourceKey.Parse(r.Header, r.TLS != nil, false)
	return a, err
}

// loadSource reads a local copy source in the copy's transaction: the
// caller must be allowed to read it, it must exist, its conditions hold
// (412 SourceConditionNotMet) and x-ms-source-lease-id, when sent, must
// name its active lease.
func (s *Service) loadSource(tx store.Tx, r *http.Request, src copySource, a sourceArgs, now time.Time) (*blobdata.Blob, error) {
	c, found, err := blobdata.LoadContainer(tx, src.account, src.t.Container)
	if err != nil {
		return nil, err
	}
	if err := s.authorizeSource(r, src, c); err != nil {
		return nil, err
	}
	if !found {
		return nil, sourceMissing()
	}
	b, err := blobdata.LoadState(tx, src.account, src.t.Container, src.t.Blob, src.sel, now)
	if err != nil || b == nil {
		return nil, firstErr(err, sourceMissing())
	}
	if err := checkSourceConditions(r, a.conds, b); err != nil {
		return nil, err
	}
	if err := a.conds.tagsHold(b); err != nil {
		return nil, sourceTagsFailed(r)
	}
	if a.leaseID != "" {
		if err := b.Lease.CheckRead(a.leaseID, now, lease.Blob); err != nil {
			return nil, err
		}
	}
	if err := checkSourceKey(b, a.keySHA256); err != nil {
		return nil, err
	}
	return b, nil
}

// sourceTagsFailed is the answer to a copy whose x-ms-source-if-tags does
// not hold: Copy Blob's is 412 ConditionNotMet (azure-sdk-for-python's
// recorded test_async_copy_blob_with_if_tags, tests/recordings/
// test_common_blob.pyTestStorageCommonBlobtest_async_copy_blob_with_if_tags.json),
// the from-URL operations' 412 SourceConditionNotMet, as their other source
// conditions.
func sourceTagsFailed(r *http.Request) error {
	if request.Of(r).Op == "CopyBlob" {
		return azerr.New(azerr.ConditionNotMet)
	}
	return azerr.New(azerr.SourceConditionNotMet)
}

// authorizeSource checks the caller may read a local source: a SAS in the
// source URL, or else a token in x-ms-copy-source-authorization, must grant
// read on it; without either, the source's container must be public, or
// for Copy Blob the request Shared Key or Bearer for the source's account
// (auth.CallerReadsOwnSource), or for the from-URL operations its Bearer
// token for the source's account (bearerOfAccount).
func (s *Service) authorizeSource(r *http.Request, src copySource, c *blobdata.Container) error {
	if err := s.sourceReadable(r, src, c); err != nil {
		return sourceDenied(err)
	}
	return nil
}

// sourceReadable is authorizeSource's decision, with the plain error of a
// refusal.
func (s *Service) sourceReadable(r *http.Request, src copySource, c *blobdata.Container) error {
	switch {
	case src.hasSAS():
		return s.sourceReadableAs(r, src, c, http.Header{})
	case src.authorization != "":
		return s.sourceReadableAs(r, src, c, http.Header{"Authorization": {src.authorization}})
	}
	info := request.Of(r)
	if auth.CallerReadsOwnSource(info.Identity, info.Op, src.account) || bearerOfAccount(info.Identity, src.account) {
		return nil
	}
	// Otherwise the source is read as an anonymous Get Blob: a public
	// container lets it.
	if s.allowSourceRead(&auth.Identity{Kind: auth.Anonymous}, src, c) == nil {
		return nil
	}
	return azerr.New(azerr.AuthorizationFailure)
}

// bearerOfAccount reports whether the request's Bearer token is of the
// source's account, which reads the source for the from-URL operations too
// (a Shared Key does not, auth.CallerReadsOwnSource): azure-sdk-for-js's
// recorded "syncCopyFromURL - destination bearer token" copies a private
// source of its account with no SAS. A Bearer principal has the account
// owner's data access here (auth.Identity.Authorize).
func bearerOfAccount(id *auth.Identity, account string) bool {
	return id != nil && id.Kind == auth.Bearer && id.Account == account
}

// allowSourceRead decides whether id may read the source, as the Get Blob
// row of the route table declares.
func (s *Service) allowSourceRead(id *auth.Identity, src copySource, c *blobdata.Container) error {
	get, err := s.routes.Lookup(http.MethodGet, route.Object, url.Values{}, http.Header{})
	if err != nil {
		return err
	}
	return id.Allow(get.Access, containerTarget(src.t, c))
}

// sourceReadableAs checks the source may be read by a GET of its URL
// carrying header, as if that read had come on its own.
func (s *Service) sourceReadableAs(r *http.Request, src copySource, c *blobdata.Container, header http.Header) error {
	req := &http.Request{Method: http.MethodGet, URL: src.url, Header: header,
		RemoteAddr: r.RemoteAddr, TLS: r.TLS, Host: src.url.Host}
	id, err := s.authn.Authenticate(req.WithContext(r.Context()), auth.Blob, src.account)
	if err != nil {
		return err
	}
	return s.allowSourceRead(id, src, c)
}

// sourceMissing is the answer for a copy source that does not exist.
func sourceMissing() error {
	return copySourceError(http.StatusNotFound, azerr.BlobNotFound, "The specified copy source blob does not exist.")
}

// sourceDenied is the answer for a copy source the caller may not read.
func sourceDenied(cause error) error {
	code := azerr.AuthorizationFailure
	if e, ok := azerr.As(cause); ok {
		code = e.Code
	}
	return copySourceError(http.StatusForbidden, code, "The copy source is not authorized for this request.")
}

// checkSourceConditions evaluates a copy's source conditions: the from-URL
// operations report a 304 of their source read as the source's answer.
func checkSourceConditions(r *http.Request, conds conditions, b *blobdata.Blob) error {
	if !strings.HasSuffix(request.Of(r).Op, "FromURL") {
		return conds.CheckSource(resourceOf(b))
	}
	err := conds.CheckSourceFetch(resourceOf(b))
	if e, ok := azerr.As(err); ok && e.Status == http.StatusNotModified {
		return copySourceError(http.StatusNotModified, azerr.ConditionNotMet, "The copy source was not modified: the source condition is not met (304).")
	}
	return err
}

// copySourceError is 4xx CannotVerifyCopySource carrying what the source
// answered (x-ms-copy-source-status-code and -error-code, as the service
// reports a source failure).
func copySourceError(status int, sourceCode, message string) error {
	e := azerr.Newf(azerr.CannotVerifyCopySource, "%s", message).WithStatus(status)
	e.Header = http.Header{
		"X-Ms-Copy-Source-Status-Code": {strconv.Itoa(status)},
		"X-Ms-Copy-Source-Error-Code":  {sourceCode},
	}
	return e
}
