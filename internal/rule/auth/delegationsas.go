package auth

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
)

// Delegation holds the fields of a user delegation SAS beyond those of a
// service SAS: the key it was signed with and the principals it names.
type Delegation struct {
	Key DelegationKey
	// AuthorizedObjectID (saoid), UnauthorizedObjectID (suoid) and
	// CorrelationID (scid) are signed and logged; suoid is checked against
	// the POSIX ACLs of hierarchical namespace accounts (dataroles.go).
	AuthorizedObjectID, UnauthorizedObjectID, CorrelationID string
	DelegatedObjectID                                       string // sduoid

	keyStart, keyExpiry string // skt and ske as sent
	// signedHeaders and signedQuery are the srh and srq names; their
	// canonical forms, with the request's values, are signed (Blob from
	// 2026-04-06), so a request without those exact values is refused.
	signedHeaders, signedQuery string
	canonHeaders, canonQuery   string
}

// minDelegationSASVersion is the first version with user delegation SAS
// (Blob); minQueueFileDelegationVersion the first that signs it for queues
// and shares, as the SDKs do.
const (
	minDelegationSASVersion       = "2018-11-09"
	minQueueFileDelegationVersion = "2025-07-05"
)

// parseDelegation reads the user delegation fields of q. Like parseSAS it
// answers 403 AuthenticationFailed naming the field at fault.
func parseDelegation(q url.Values, s *SAS) (*Delegation, error) {
	d := &Delegation{
		Key: DelegationKey{ObjectID: q.Get("skoid"), TenantID: q.Get("sktid"), Service: q.Get("sks"),
			Version: q.Get("skv"), DelegatedTenantID: q.Get("skdutid")},
		AuthorizedObjectID: q.Get("saoid"), UnauthorizedObjectID: q.Get("suoid"),
		CorrelationID: q.Get("scid"), DelegatedObjectID: q.Get("sduoid"),
		keyStart: q.Get("skt"), keyExpiry: q.Get("ske"),
	}
	for _, f := range []struct{ name, v string }{{"skoid", d.Key.ObjectID}, {"sktid", d.Key.TenantID},
		{"skt", d.keyStart}, {"ske", d.keyExpiry}, {"sks", d.Key.Service}, {"skv", d.Key.Version}} {
		if f.v == "" {
			return nil, authFailed(f.name + " is mandatory in a user delegation SAS. Cannot be empty")
		}
	}
	var err error
	if d.Key.Start, err = parseSASTime("skt", d.keyStart); err != nil {
		return nil, err
	}
	if d.Key.Expiry, err = parseSASTime("ske", d.keyExpiry); err != nil {
		return nil, err
	}
	if s.Version < minDelegationSASVersion {
		return nil, authFailed(fmt.Sprintf("sv '%s' does not support user delegation SAS (the first version that does is %s).", s.Version, minDelegationSASVersion))
	}
	if s.Identifier != "" {
		return nil, authFailed("A user delegation SAS cannot name a stored access policy (si).")
	}
	d.signedHeaders, d.signedQuery = q.Get("srh"), q.Get("srq")
	if s.IsAccount() {
		return nil, authFailed("A user delegation SAS is a service SAS: ss and srt are not allowed.")
	}
	return d, nil
}

// authenticateDelegationSAS verifies a user delegation SAS: its signature
// under the delegation key derived from each account key.
func (a *Authenticator) authenticateDelegationSAS(r *http.Request, svc Service, account string, q url.Values, s *SAS, id *Identity) (*Identity, error) {
	d := s.Delegation
	if svc == Table || svc != Blob && s.Version < minQueueFileDelegationVersion {
		return nil, authFailed(fmt.Sprintf("User delegation SAS is not supported for the %s service in version %s: Blob has it from %s, Queue and File from %s, Table not at all.",
			svc, s.Version, minDelegationSASVersion, minQueueFileDelegationVersion))
	}
	if d.Key.Service != string(svc.letter()) {
		return nil, authFailed(fmt.Sprintf("sks '%s' does not match the %s service.", d.Key.Service, svc))
	}
	if d.signedHeaders != "" || d.signedQuery != "" {
		if svc != Blob || s.Version < signedRequestVersion {
			return nil, authFailed(fmt.Sprintf("Signed request headers and query parameters (srh, srq) are signed by Blob user delegation SAS from version %s.", signedRequestVersion))
		}
		d.canonHeaders, d.canonQuery = canonicalSignedRequest(r, d.signedHeaders, d.signedQuery)
	}
	acc, ok := a.Accounts.Lookup(account)
	if !ok {
		return nil, authFailed(fmt.Sprintf("The account '%s' does not exist.", account))
	}
	timestamp := signedTimestamp(s, q)
	var first string
	for _, sc := range serviceScopes(svc, s, r.URL, account) {
		sts := delegationSASStringToSign(svc, s, canonicalName(svc, s.Version, account, sc), timestamp)
		if first == "" {
			first = sts
		}
		if delegationSignatureMatches(acc.Keys, d.Key, sts, s.Signature) {
			s.SignedContainer, s.SignedObject = sc.container, sc.object
			id.Kind, id.SAS = DelegationSAS, s
			id.Principal = &Principal{ObjectID: d.Key.ObjectID, TenantID: d.Key.TenantID}
			if a.OAuth != nil {
				id.aclSubjects = a.OAuth.DataOwners.aclSubjects(id)
			}
			return id, nil
		}
	}
	if first == "" {
		first = delegationSASStringToSign(svc, s, canonicalName(svc, s.Version, account, serviceScope{}), timestamp)
	}
	return nil, a.sasMismatch(r, first)
}

// delegationSASStringToSign is the user delegation SAS string-to-sign in
// the layout of its service and version. For Blob, 2020-02-10 added saoid,
// suoid and scid; 2020-12-06 the encryption scope; 2025-07-05 the delegated
// user's tenant and object ids; 2026-04-06 the signed request headers and
// query parameters (canonicalSignedRequest).
// Queue and File (from 2025-07-05) sign the key, the delegated user, the
// network fields and the version, and File the response headers too.
func delegationSASStringToSign(svc Service, s *SAS, resource, timestamp string) string {
	d, v := s.Delegation, s.Version
	fields := []string{s.Permissions, s.start, s.expiry, resource,
		d.Key.ObjectID, d.Key.TenantID, d.keyStart, d.keyExpiry, d.Key.Service, d.Key.Version}
	overrides := []string{s.CacheControl, s.ContentDisposition, s.ContentEncoding, s.ContentLanguage, s.ContentType}
	delegatedUser := []string{d.Key.DelegatedTenantID, d.DelegatedObjectID}
	switch svc {
	case Queue:
		fields = join(fields, delegatedUser, []string{s.IP, s.Protocol, v})
	case File:
		fields = join(fields, delegatedUser, []string{s.IP, s.Protocol, v}, overrides)
	default:
		if v >= "2020-02-10" {
			fields = append(fields, d.AuthorizedObjectID, d.UnauthorizedObjectID, d.CorrelationID)
		}
		if v >= "2025-07-05" {
			fields = append(fields, delegatedUser...)
		}
		fields = append(fields, s.IP, s.Protocol, v, s.Resource, timestamp)
		if v >= "2020-12-06" {
			fields = append(fields, s.EncryptionScope)
		}
		if v >= signedRequestVersion {
			fields = append(fields, d.canonHeaders, d.canonQuery)
		}
		fields = append(fields, overrides...)
	}
	return strings.Join(fields, "\n")
}

// signedRequestVersion is the first version whose Blob user delegation SAS
// signs request headers and query parameters (srh, srq).
const signedRequestVersion = "2026-04-06"

// canonicalSignedRequest is how the string-to-sign carries the signed
// request headers and query parameters, in the order srh and srq name them,
// with the values this request has: "name:value\n" for each header,
// "\nname:value" for each query parameter (the SDK's
// TestDelegationSASRequestHeadersAndQueryParameters signs them so).
func canonicalSignedRequest(r *http.Request, headers, query string) (string, string) {
	var h, q strings.Builder
	for _, name := range splitNames(headers) {
		h.WriteString(name + ":" + r.Header.Get(name) + "\n")
	}
	values := r.URL.Query()
	for _, name := range splitNames(query) {
		q.WriteString("\n" + name + ":" + values.Get(name))
	}
	return h.String(), q.String()
}

func splitNames(list string) []string {
	if list == "" {
		return nil
	}
	return strings.Split(list, ",")
}

// authorizeDelegationSAS checks the delegation key's own validity period,
// then everything a service SAS is checked for.
func (id *Identity) authorizeDelegationSAS(a Access) error {
	k := id.SAS.Delegation.Key
	if id.at.Before(k.Start) || id.at.After(k.Expiry) {
		return authFailed(fmt.Sprintf("The user delegation key is not valid at this time: Start [%s] - Expiry [%s] - Current [%s]",
			k.Start.Format(http.TimeFormat), k.Expiry.Format(http.TimeFormat), id.at.Format(http.TimeFormat)))
	}
	return id.authorizeServiceSAS(a)
}
