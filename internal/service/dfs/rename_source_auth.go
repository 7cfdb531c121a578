package dfs

import (
	"net/http"
	"net/url"
	"strings"

	"github.com/lazuli-storage/lazuli/internal/frame/request"
	"github.com/lazuli-storage/lazuli/internal/rule/auth"
	"github.com/lazuli-storage/lazuli/internal/rule/azerr"
	"github.com/lazuli-storage/lazuli/internal/service/blobdata"
)

// authorizeRenameSource decides whether the caller may move a rename's
// source, which takes the move letter (m) of "Create a service SAS" on
// the source as the row's declaration takes it on the destination. The
// source is authorized by its own credentials:
//   - a SAS in x-ms-rename-source ("/{filesystem}/{path}?{sas}", as the
//     SDKs send the source client's SAS) is checked as if it signed a
//     request of its own for the source: its signature, window, network
//     and scope, and its letters;
//   - without one, a request signed with a SAS moves nothing: the service
//     honours a SAS for a rename only when source and destination each
//     carry one (azure-sdk-for-java issue 10301; issue 25714, a 403
//     AuthorizationPermissionMismatch for a source sent without its SAS),
//     so a SAS for one path cannot move a path it was not given for;
//   - otherwise the request's Shared Key or token authorizes the source.
func (s *Service) authorizeRenameSource(r *http.Request, src renameSource) error {
	info := request.Of(r)
	target := blobdata.AuthTarget(r.Context(), s.store, info.Account, src.Filesystem, src.Path)
	_, rawQuery, _ := strings.Cut(r.Header.Get(renameSourceHeader), "?")
	q, err := url.ParseQuery(rawQuery)
	if err != nil {
		return azerr.New(azerr.InvalidSourceUri)
	}
	if q.Has("sig") {
		id, err := s.sourceIdentity(r, src, rawQuery)
		if err != nil {
			return err
		}
		return id.Allow(info.Access, target)
	}
	if isSAS(info.Identity) {
		return azerr.Newf(azerr.AuthorizationPermissionMismatch,
			"The rename source carries no shared access signature of its own; a signature of the destination does not authorize it.")
	}
	return info.Identity.Allow(info.Access, target)
}

// sourceIdentity authenticates the source's SAS as the credential of a
// request for the source from the same caller (its address and
// protocol), on the request's account.
func (s *Service) sourceIdentity(r *http.Request, src renameSource, rawQuery string) (*auth.Identity, error) {
	info := request.Of(r)
	u := *r.URL
	u.Path, u.RawPath, u.RawQuery = "/"+src.Filesystem+"/"+src.Path, "", rawQuery
	if info.PathStyle {
		u.Path = "/" + info.Account + u.Path
	}
	req := &http.Request{Method: r.Method, URL: &u, Header: http.Header{}, RemoteAddr: r.RemoteAddr, TLS: r.TLS, Host: r.Host}
	return s.authn.Authenticate(req.WithContext(r.Context()), auth.Blob, info.Account)
}

// isSAS reports whether id authenticated with a shared access signature
// of any kind.
func isSAS(id *auth.Identity) bool {
	if id == nil {
		return false
	}
	switch id.Kind {
	case auth.AccountSAS, auth.ServiceSAS, auth.DelegationSAS:
		return true
	}
	return false
}
