package auth

import (
	"fmt"
	"net/http"
	"net/url"
)

// authenticateSAS verifies the SAS in q: its form and its signature under
// any key of the account. The rest is checked by Authorize.
func (a *Authenticator) authenticateSAS(r *http.Request, svc Service, account string, q url.Values, id *Identity) (*Identity, error) {
	s, err := parseSAS(q, svc)
	if err != nil {
		return nil, err
	}
	acc, ok := a.Accounts.Lookup(account)
	if !ok {
		return nil, authFailed(fmt.Sprintf("The account '%s' does not exist.", account))
	}
	if s.Delegation != nil {
		return a.authenticateDelegationSAS(r, svc, account, q, s, id)
	}
	if s.IsAccount() {
		sts := accountSASStringToSign(account, s)
		if !signatureMatches(acc.Keys, []string{sts}, s.Signature) {
			return nil, a.sasMismatch(r, sts)
		}
		id.Kind, id.SAS = AccountSAS, s
		return id, nil
	}
	scopes := serviceScopes(svc, s, r.URL, account)
	timestamp := signedTimestamp(s, q)
	var first string
	for _, sc := range scopes {
		sts := serviceSASStringToSign(svc, s, canonicalName(svc, s.Version, account, sc), timestamp)
		if first == "" {
			first = sts
		}
		if signatureMatches(acc.Keys, []string{sts}, s.Signature) {
			s.SignedContainer, s.SignedObject = sc.container, sc.object
			id.Kind, id.SAS = ServiceSAS, s
			return id, nil
		}
	}
	if first == "" {
		// The path names no resource the SAS could cover (e.g. a blob SAS
		// on the service endpoint).
		first = serviceSASStringToSign(svc, s, canonicalName(svc, s.Version, account, serviceScope{}), timestamp)
	}
	return nil, a.sasMismatch(r, first)
}

func (a *Authenticator) sasMismatch(r *http.Request, sts string) error {
	a.logMismatch(r, "sas", sts)
	return authFailed("Signature did not match. String to sign used was " + sts)
}
