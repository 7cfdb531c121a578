package file

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strconv"

	"github.com/lazuli-storage/lazuli/internal/engine/extent"
	"github.com/lazuli-storage/lazuli/internal/frame/request"
	"github.com/lazuli-storage/lazuli/internal/rule/auth"
	"github.com/lazuli-storage/lazuli/internal/rule/azerr"
	"github.com/lazuli-storage/lazuli/internal/rule/contentprops"
	"github.com/lazuli-storage/lazuli/internal/rule/fetchguard"
	"github.com/lazuli-storage/lazuli/internal/rule/metadata"
)

// blobContent is what a copy read from a blob source: its bytes in one
// extent ("" when empty) and its properties.
type blobContent struct {
	size   int64
	props  contentprops.Props
	meta   metadata.Set
	extent string
}

// blobServer is the Server header of Lazuli's Blob service responses.
const blobServer = "Lazuli-Blob/1.0"

// readBlob reads a blob source (all of it, or rng) into a new extent. A
// source URL without a SAS carries the token of
// x-ms-copy-source-authorization, or else, for Copy File, is signed with
// the account's key when the request itself was Shared Key or Bearer for
// the same account, which is how the service authorizes same-account
// sources there.
//
// The Blob service owns the blob records, so the File service asks it over
// HTTP, as the real service reads a copy source by URL, through the client
// that keeps to the copy-source host policy. The policy is applied to the
// addresses the client dials, not to the URL's name first: the source is
// always on this server's host, and this server's storage listeners are
// allowed whatever the list names (its admin and SMB listeners never are).
func (s *Service) readBlob(r *http.Request, src sourceRef, rng *byteRange) (*blobContent, error) {
	req, err := http.NewRequestWithContext(r.Context(), http.MethodGet, src.url.String(), nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("X-Ms-Version", request.Of(r).Version)
	req.Header.Set("X-Ms-Date", s.now().Format(http.TimeFormat))
	if rng != nil {
		req.Header.Set("X-Ms-Range", rng.String())
	}
	token, _ := auth.CopySourceToken(r.Header)
	switch {
	case src.hasSAS():
	case token != "":
		req.Header.Set("Authorization", token)
	case ownSource(r, src.account):
		if acct, ok := s.accounts.Lookup(src.account); ok && len(acct.Keys) > 0 {
			auth.SignSharedKey(req, auth.Blob, src.account, acct.Keys[0])
		}
	}
	resp, err := s.fetcher.Do(req)
	if err != nil {
		if refused := fetchguard.Refusal(err, src.url.Host); refused != nil {
			return nil, refused
		}
		// As the Blob service answers an unreachable source: 502, the
		// service's 500 being kept for this server's own faults.
		return nil, azerr.Newf(azerr.CannotVerifyCopySource,
			"Could not verify the copy source within the specified time: %v", err).WithStatus(http.StatusBadGateway)
	}
	defer resp.Body.Close()
	if resp.Header.Get("Server") != blobServer {
		// Something else listens there: never copy from arbitrary local
		// services.
		return nil, azerr.Newf(azerr.CannotVerifyCopySource, "The copy source is not a blob of this server.").
			WithStatus(http.StatusBadRequest)
	}
	if resp.StatusCode != http.StatusOK && resp.StatusCode != http.StatusPartialContent {
		return nil, copySourceFailure(resp)
	}
	bc := &blobContent{size: resp.ContentLength, meta: metadata.FromResponse(resp.Header), props: contentprops.FromResponse(resp.Header)}
	if rng != nil {
		bc.props.MD5 = nil // the digest is the whole source's, not the range's
	}
	if bc.size < 0 || bc.size > maxFileSize {
		return nil, azerr.Newf(azerr.CannotVerifyCopySource, "The copy source has no usable length.")
	}
	if bc.size == 0 {
		return bc, nil
	}
	info, err := s.extents.Write(r.Context(), resp.Body, bc.size)
	if errors.Is(err, extent.ErrTooLarge) || (err == nil && info.Size != bc.size) {
		return nil, azerr.Newf(azerr.CannotVerifyCopySource, "The copy source returned a different length than announced.")
	}
	if err != nil {
		return nil, err
	}
	bc.extent = info.ID
	return bc, nil
}

// copySourceFailure reports a source the Blob service refused, with the
// source's status and code in the x-ms-copy-source-* headers.
func copySourceFailure(resp *http.Response) error {
	status := resp.StatusCode
	if status < 400 || status >= 500 {
		status = http.StatusBadGateway
	}
	e := azerr.Newf(azerr.CannotVerifyCopySource, "The copy source could not be read (status %d).", resp.StatusCode).WithStatus(status)
	e.Header = http.Header{
		"X-Ms-Copy-Source-Status-Code": {strconv.Itoa(resp.StatusCode)},
		"X-Ms-Copy-Source-Error-Code":  {resp.Header.Get("X-Ms-Error-Code")},
	}
	return e
}

// authorizeSource checks the caller may read a file source: a SAS in the
// source URL, or else the token of x-ms-copy-source-authorization, must
// grant read on it; without either, the request must be Shared Key for the
// source's account.
func (s *Service) authorizeSource(r *http.Request, src sourceRef) error {
	denied := azerr.Newf(azerr.CannotVerifyCopySource, "The copy source is not authorized for this request.").
		WithStatus(http.StatusForbidden)
	token, _ := auth.CopySourceToken(r.Header)
	if src.hasSAS() || token != "" {
		req := &http.Request{Method: http.MethodGet, URL: src.url, Header: http.Header{},
			RemoteAddr: r.RemoteAddr, TLS: r.TLS, Host: src.url.Host}
		if !src.hasSAS() {
			req.Header.Set("Authorization", token)
		}
		id, err := s.authn.Authenticate(req.WithContext(r.Context()), auth.File, src.account)
		if err != nil {
			return denied
		}
		// The source is read as a Get File of its URL would be.
		get, err := s.routes.Lookup(http.MethodGet, levelFile, url.Values{}, http.Header{})
		if err != nil {
			return err
		}
		if id.Allow(get.Access, s.authTarget(r.WithContext(context.WithoutCancel(r.Context())), src.file)) != nil {
			return denied
		}
		return nil
	}
	if ownSource(r, src.account) {
		return nil
	}
	return denied
}

// ownSource reports whether the request's own Shared Key or Bearer token
// authorizes a source of account: for Copy File, not Put Range From URL
// (auth.CallerReadsOwnSource; the SDK's TestStartCopyTrailingDotOAuth
// copies with a token).
func ownSource(r *http.Request, account string) bool {
	info := request.Of(r)
	return auth.CallerReadsOwnSource(info.Identity, info.Op, account)
}
