package route

import (
	"net/http"

	"github.com/lazuli-storage/lazuli/internal/frame/request"
	"github.com/lazuli-storage/lazuli/internal/rule/auth"
)

// Authorize applies what the matched row declares (Rule.Access) to the
// request's caller and target. Services call it once, between Match and
// the handler; only the operations that replace data ask again, inside
// their transaction (AuthorizeReplace).
func Authorize(r *http.Request, t auth.Target) error {
	info := request.Of(r)
	return info.Identity.Allow(info.Access, t)
}

// AuthorizeReplace applies the matched row's declaration to an operation
// that found existing data and replaces it (Need.Replace: the create
// permission writes new blobs and files only).
func AuthorizeReplace(r *http.Request, t auth.Target) error {
	info := request.Of(r)
	return info.Identity.AllowReplace(info.Access, t)
}

// AuthorizeRule applies rule's declaration to the request's caller: for a
// part of a batch that is looked up (Table.Lookup) rather than routed.
func AuthorizeRule(r *http.Request, rule *Rule, t auth.Target) error {
	return request.Of(r).Identity.Allow(rule.Access, t)
}
