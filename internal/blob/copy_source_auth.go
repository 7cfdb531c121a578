package blob

import (
	"net/http"
	"strings"

	"github.com/lazuli-storage/lazuli/internal/auth"
	"github.com/lazuli-storage/lazuli/internal/azerr"
)

// copySourceAuthorization reads x-ms-copy-source-authorization: an OAuth
// access token for the copy source, "Bearer <token>", the only scheme the
// service takes there.
func copySourceAuthorization(r *http.Request) (string, error) {
	v := r.Header.Get("X-Ms-Copy-Source-Authorization")
	if v == "" {
		return "", nil
	}
	if token, ok := strings.CutPrefix(v, "Bearer "); !ok || strings.TrimSpace(token) == "" {
		return "", azerr.InvalidHeader("x-ms-copy-source-authorization", v)
	}
	return v, nil
}

// authorizeSourceToken checks that a local copy source may be read with the
// token of x-ms-copy-source-authorization, as if the token had come with a
// read of the source itself.
func (s *Service) authorizeSourceToken(r *http.Request, src copySource, c *containerRecord) error {
	req := &http.Request{Method: http.MethodGet, URL: src.url, Header: http.Header{"Authorization": {src.authorization}},
		RemoteAddr: r.RemoteAddr, TLS: r.TLS, Host: src.url.Host}
	id, err := s.authn.Authenticate(req.WithContext(r.Context()), auth.Blob, src.account)
	if err == nil {
		acc := auth.Access{Service: auth.Blob, ResourceType: auth.ResourceObject, Perm: "r",
			Container: src.t.Container, Object: src.t.Blob}
		if c != nil {
			acc.Policy = c.policy
		}
		err = id.Authorize(acc)
	}
	if err != nil {
		return sourceDenied(err)
	}
	return nil
}
