package blob

import (
	"net/http"
	"strconv"

	"github.com/lazuli-storage/lazuli/internal/rule/azerr"
	"github.com/lazuli-storage/lazuli/internal/service/blobdata"
)

// Encryption scopes: on Azure the management plane creates named scopes in
// an account; a write names one in x-ms-encryption-scope, or takes its
// container's default scope (x-ms-default-encryption-scope on Create
// Container), and a container may deny writes any other scope
// (x-ms-deny-encryption-scope-override). Lazuli takes the scopes that
// exist from --encryptionScopes (every account has them); any other name
// is 409 EncryptionScopeNotAvailable, as the service answers an unknown
// scope. A blob keeps the scope it was written under, reads echo it
// without needing it, and writes to its content need it again (409
// BlobUsesCustomerSpecifiedEncryption without a scope, 409
// BlobCustomerSpecifiedEncryptionMismatch with another, the service's
// answers). A container that denies overrides answers a write naming
// another scope 403 RequestForbiddenByContainerEncryptionPolicy.
// As with customer-provided keys, nothing is encrypted at rest.

const (
	hdrEncryptionScope     = "x-ms-encryption-scope"
	hdrDefaultScope        = "x-ms-default-encryption-scope"
	hdrDenyScopeOverride   = "x-ms-deny-encryption-scope-override"
	accountEncryptionScope = "$account-encryption-key"
)

// scopeNotAvailable is the answer for a scope the account does not have.
func scopeNotAvailable() error { return azerr.New(azerr.EncryptionScopeNotAvailable) }

// parseScope checks a scope a request names ("" for none).
func (s *Service) parseScope(name string) (string, error) {
	if name == "" || s.scopes[name] {
		return name, nil
	}
	return "", scopeNotAvailable()
}

// resolve settles the scope of a write to a blob of container c: the
// request's, which the container may forbid, or else the container's
// default (blobdata.Container.WriteScope).
func (k *requestEncryption) resolve(c *blobdata.Container) error {
	if !k.rule.scoped {
		return nil
	}
	scope, err := c.WriteScope(k.scopeHeader)
	k.Scope = scope
	return err
}

// RequestScope is the encryption scope r names, in x-ms-encryption-scope
// or its SAS's signed scope, "" for none: 409 EncryptionScopeNotAvailable
// for a scope the account lacks. The Data Lake API's writes read it so.
func (s *Service) RequestScope(r *http.Request) (string, error) {
	named, err := requestedScope(r)
	if err != nil {
		return "", err
	}
	return s.parseScope(named)
}

// parseContainerScope reads the encryption headers of Create Container:
// the default scope ("" for the account's own key) and whether writes may
// name another.
func (s *Service) parseContainerScope(h http.Header) (scope string, deny bool, err error) {
	scope = h.Get(hdrDefaultScope)
	if scope == accountEncryptionScope {
		scope = ""
	}
	if scope, err = s.parseScope(scope); err != nil {
		return "", false, err
	}
	if raw := h.Get(hdrDenyScopeOverride); raw != "" {
		if deny, err = strconv.ParseBool(raw); err != nil {
			return "", false, azerr.InvalidHeader(hdrDenyScopeOverride, raw)
		}
	}
	return scope, deny, nil
}

// containerScopeName is the default scope as the service shows it.
func containerScopeName(c *blobdata.Container) string {
	if c.DefaultScope == "" {
		return accountEncryptionScope
	}
	return c.DefaultScope
}
