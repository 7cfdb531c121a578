package auth

import (
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"time"

	"github.com/lazuli-storage/lazuli/internal/rule/azerr"
)

// OAuth configures Bearer token authentication (--oauth basic). Tokens are
// checked as Azurite checks them: a JWT whose issuer is an Entra ID token
// service, whose audience is Azure Storage or the addressed account, within
// its lifetime. With Keys (--oauthKeys) its signature must also verify
// against one of them, which Azurite never checks.
type OAuth struct {
	Keys *KeySet
	// DataOwners hold a data owner role on every account; the ACLs
	// decide for other principals (dataroles.go).
	DataOwners DataOwners
}

// Principal is the security principal a token was issued to.
type Principal struct {
	ObjectID string   // oid
	TenantID string   // tid
	Groups   []string // groups
	// UPN is the user principal name of a token that names its object
	// (oid and upn claims both present), "" otherwise: what Path - Get
	// Properties and Path - List with upn=true answer for ObjectID.
	UPN string
}

// minBearerVersion is the first version that accepts OAuth tokens.
const minBearerVersion = "2017-11-09"

// clockSkew is how far a token's nbf and exp may be off, as Entra ID's own
// validators allow.
const clockSkew = 5 * time.Minute

// validIssuerPrefixes are the Entra ID token services of the public and
// sovereign clouds (v1 tokens) and the v2 endpoint. Only the prefix is
// checked: the tenant is whatever the caller's is.
var validIssuerPrefixes = []string{
	"https://sts.windows.net/",
	"https://sts.microsoftonline.de/",
	"https://sts.chinacloudapi.cn/",
	"https://sts.windows-ppe.net",
	"https://login.microsoftonline.com/",
}

// storageAudiences are the audiences meaning "any storage account": the
// resource URI and its application id.
var storageAudiences = []string{"https://storage.azure.com", "e406a681-f3d4-42a8-90b6-c2b029497af1"}

// accountAudience matches an account's service URL in a public or sovereign
// cloud: https://<account>.<service>.core.<cloud>.
var accountAudience = regexp.MustCompile(`^https://([^./]+)\.(blob|queue|table|file|dfs)\.core\.(?:windows\.net|chinacloudapi\.cn|usgovcloudapi\.net|cloudapi\.de)$`)

// authenticateBearer checks an "Authorization: Bearer <token>" request.
func (a *Authenticator) authenticateBearer(r *http.Request, svc Service, account, token string, id *Identity) (*Identity, error) {
	if a.OAuth == nil {
		return nil, invalidAuthInfo("Bearer tokens are accepted only when Lazuli runs with --oauth basic (over HTTPS).")
	}
	if r.TLS == nil {
		return nil, authFailed("Authentication scheme Bearer is not allowed with HTTP.")
	}
	if v := r.Header.Get("X-Ms-Version"); v != "" && v < minBearerVersion {
		return nil, authFailed("Authentication scheme Bearer is not supported in this version.")
	}
	if _, ok := a.Accounts.Lookup(account); !ok {
		return nil, authFailed(fmt.Sprintf("The account '%s' does not exist.", account))
	}
	p, err := a.checkToken(r, svc, account, token)
	if err != nil {
		return nil, err
	}
	id.Kind, id.Principal = Bearer, p
	id.aclSubjects = a.OAuth.DataOwners.aclSubjects(id)
	return id, nil
}

// checkToken validates a token for a request to account on svc and returns
// its principal.
func (a *Authenticator) checkToken(r *http.Request, svc Service, account, token string) (*Principal, error) {
	t, err := parseJWT(strings.TrimSpace(token))
	if err != nil {
		return nil, bearerRefused("", err.Error())
	}
	c := t.claims
	if a.OAuth.Keys != nil {
		if err := a.OAuth.Keys.verify(t); err != nil {
			return nil, bearerRefused(c.TenantID, err.Error())
		}
	}
	if c.NotBefore == nil || c.Expires == nil || c.IssuedAt == nil {
		return nil, bearerRefused(c.TenantID, "The token must carry the nbf, exp and iat claims.")
	}
	now := a.requestNow()
	if now.Add(clockSkew).Before(c.NotBefore.Time) {
		return nil, bearerRefused(c.TenantID, "Lifetime validation failed. The token is not yet valid (nbf).")
	}
	if now.Add(-clockSkew).After(c.Expires.Time) {
		return nil, bearerRefused(c.TenantID, "Lifetime validation failed. The token is expired.")
	}
	if !validIssuer(c.Issuer) {
		return nil, bearerRefused(c.TenantID, fmt.Sprintf("Issuer validation failed. Issuer '%s' is not an Entra ID token service.", c.Issuer))
	}
	if !validAudience(c.Audience, r, svc, account) {
		return nil, bearerRefused(c.TenantID, fmt.Sprintf("Audience validation failed. Audience did not match: '%s' is neither https://storage.azure.com nor this account's %s service URL.",
			strings.Join(c.Audience, ", "), svc))
	}
	oid := c.ObjectID
	if oid == "" {
		oid = c.Subject // tokens minted for tests often carry only sub
	}
	return &Principal{ObjectID: oid, TenantID: c.TenantID, Groups: c.Groups, UPN: principalName(c)}, nil
}

// upnFormat is what a user principal name may be to stand for an object
// ID in x-ms-owner, x-ms-acl and a listing: "user@domain", one '@', in
// visible ASCII (Entra ID's userPrincipalName is ASCII), and without the
// ',' and ':' that separate an ACL's entries and fields.
var upnFormat = regexp.MustCompile(`^[!-+\--9;-?A-~]{1,64}@[!-+\--9;-?A-~]{1,255}$`)

// principalName is the token's upn claim when it names a user whose object
// ID the token gives (oid, not sub); a claim that could not stand in an
// ACL is left out rather than the token refused, which Azure accepts.
func principalName(c tokenClaims) string {
	if c.ObjectID == "" || !upnFormat.MatchString(c.UPN) {
		return ""
	}
	return c.UPN
}

func validIssuer(iss string) bool {
	for _, p := range validIssuerPrefixes {
		if strings.HasPrefix(iss, p) {
			return true
		}
	}
	return false
}

// validAudience accepts the storage resource, the account's cloud service
// URL for this service, or the URL the request itself addresses (the
// emulator's endpoint, with or without the account path segment).
func validAudience(auds audience, r *http.Request, svc Service, account string) bool {
	local := []string{"https://" + r.Host, "https://" + r.Host + "/" + account}
	for _, aud := range auds {
		aud = strings.TrimSuffix(aud, "/")
		for _, ok := range append(storageAudiences, local...) {
			if aud == ok {
				return true
			}
		}
		if m := accountAudience.FindStringSubmatch(aud); m != nil && m[1] == account && (m[2] == string(svc) || m[2] == "dfs" && svc == Blob) {
			return true
		}
	}
	return false
}

// bearerRefused is the service's answer to a token it does not accept: 401
// InvalidAuthenticationInfo with the challenge that tells a client where to
// get a token (the SDKs' challenge policies read it).
func bearerRefused(tenant, detail string) *azerr.Error {
	if !tenantFormat.MatchString(tenant) {
		tenant = "common"
	}
	e := azerr.Newf(azerr.InvalidAuthenticationInfo,
		"Server failed to authenticate the request. Please refer to the information in the www-authenticate header.").
		WithStatus(http.StatusUnauthorized).With("AuthenticationErrorDetail", detail)
	e.Header = http.Header{"Www-Authenticate": {bearerChallenge(tenant)}}
	return e
}

// bearerChallenge is the WWW-Authenticate value of a refused Bearer request.
func bearerChallenge(tenant string) string {
	return "Bearer authorization_uri=https://login.microsoftonline.com/" + tenant +
		"/oauth2/authorize resource_id=https://storage.azure.com"
}

var tenantFormat = regexp.MustCompile(`^[0-9A-Za-z.-]{1,64}$`)

// CopySourceToken reads x-ms-copy-source-authorization, the credential of a
// copy's source: "Bearer <token>", the only scheme the service takes there
// (400 InvalidHeaderValue otherwise). It returns the header's value, ready
// to be the source read's Authorization, or "" when it is absent.
func CopySourceToken(h http.Header) (string, error) {
	v := h.Get("X-Ms-Copy-Source-Authorization")
	if v == "" {
		return "", nil
	}
	if token, ok := strings.CutPrefix(v, "Bearer "); !ok || strings.TrimSpace(token) == "" {
		return "", azerr.InvalidHeader("x-ms-copy-source-authorization", v)
	}
	return v, nil
}

// CallerReadsOwnSource reports whether a source blob or file may be read
// on the strength of the request's own credential, with no SAS in the
// source URL and no x-ms-copy-source-authorization: a Shared Key or Bearer
// caller of the source's own account may for the asynchronous copies (Copy
// Blob: "a source in the same account may be authorized via Shared Key";
// Copy File, Incremental Copy Blob) and a page diff against another blob's
// snapshot. The synchronous from-URL operations (op, the route table's
// name, ends in FromURL: Put Blob, Copy Blob, Put Block, Append Block, Put
// Page and Put Range From URL) need the source public or authorized by its
// URL or the copy source header: the SDKs' live TestPutBlobFromURLNegative
// and TestFileUploadRangeFromURLNegative are refused without.
func CallerReadsOwnSource(id *Identity, op, sourceAccount string) bool {
	if strings.HasSuffix(op, "FromURL") {
		return false
	}
	return id != nil && (id.Kind == SharedKey || id.Kind == Bearer) && id.Account == sourceAccount
}
