package console

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/lazuli-storage/lazuli/internal/rule/auth"
)

// sasView is a signed service SAS: the query it adds and the URL it opens.
type sasView struct {
	Token string `json:"token"`
	URL   string `json:"url"`
}

// sas signs a blob service SAS for a container (no blob given) or a blob
// with the account's key: sp the permissions (container: racwdxltfmeop
// subsets, blob: racwdxytmei, in any order), se the expiry and st the
// optional start, both ISO 8601 UTC. It is signed with the string-to-sign the
// service verifies (auth.SignBlobSAS); the service checks it when it is
// used, so a SAS the console signs opens exactly what the service allows.
func (c *Console) sas(r *http.Request) (any, error) {
	q := r.URL.Query()
	account, container, blob := q.Get("account"), q.Get("container"), q.Get("blob")
	acct, ok := c.opts.Accounts.Lookup(account)
	if !ok {
		return nil, &restError{Status: http.StatusNotFound, Code: "AccountNotFound", Message: "no account " + account}
	}
	if container == "" {
		return nil, badRequest("a SAS needs a container")
	}
	expiry, err := sasTime(q.Get("se"), "se")
	if err != nil {
		return nil, err
	}
	var start time.Time
	if q.Get("st") != "" {
		if start, err = sasTime(q.Get("st"), "st"); err != nil {
			return nil, err
		}
	}
	params, err := auth.SignBlobSAS(account, acct.Keys[0], auth.BlobSASValues{Version: restVersion, Container: container, Blob: blob,
		Permissions: q.Get("sp"), Start: start, Expiry: expiry})
	if err != nil {
		return nil, badRequest(err.Error())
	}
	token := params.Encode()
	return sasView{Token: token, URL: c.resourceURL("blob", account, container, blob) + "?" + token}, nil
}

// sasTime reads an ISO 8601 UTC time of a SAS field.
func sasTime(v, field string) (time.Time, error) {
	t, err := time.Parse(time.RFC3339, v)
	if err != nil {
		return time.Time{}, badRequest(field + " must be an ISO 8601 UTC time such as 2030-01-01T00:00:00Z, not " + strconv.Quote(v))
	}
	return t.UTC(), nil
}

// resourceURL is a container's or blob's URL at the service's endpoint,
// path-style (http://127.0.0.1:10000/account/container/blob).
func (c *Console) resourceURL(svc, account, container, blob string) string {
	base := c.opts.Endpoints[svc]
	if u, err := url.Parse(base); err == nil && base != "" {
		base = u.Scheme + "://" + u.Host
	}
	p := "/" + url.PathEscape(account) + "/" + url.PathEscape(container)
	if blob != "" {
		p += "/" + strings.ReplaceAll(url.PathEscape(blob), "%2F", "/")
	}
	return base + p
}
