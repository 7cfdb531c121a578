package blob

import (
	"net/http"

	"github.com/lazuli-storage/lazuli/internal/rule/cond"
	"github.com/lazuli-storage/lazuli/internal/service/blobdata"
)

// parseBlobRequest makes the checks a blob operation starts with: the
// container name, then the conditional headers the operation accepts.
func parseBlobRequest(r *http.Request, allowed cond.Allowed) (cond.Conditions, error) {
	if err := validContainerName(targetOf(r).Container); err != nil {
		return cond.Conditions{}, err
	}
	return blobConditions(r, allowed)
}

// parseSelectedRequest is parseBlobRequest for an operation that may
// address a snapshot or a version, which it also returns.
func parseSelectedRequest(r *http.Request, allowed cond.Allowed) (cond.Conditions, blobdata.Selector, error) {
	conds, err := parseBlobRequest(r, allowed)
	if err != nil {
		return conds, blobdata.Selector{}, err
	}
	sel, err := parseSelector(r)
	return conds, sel, err
}

// parseBaseRequest is parseBlobRequest for an operation that writes the
// base blob: a snapshot or version in the URL is 400 InvalidOperation, as
// both are read-only.
func parseBaseRequest(r *http.Request, allowed cond.Allowed) (cond.Conditions, error) {
	conds, err := parseBlobRequest(r, allowed)
	if err != nil {
		return conds, err
	}
	return conds, onlyBase(r)
}

// blobConditions parses the request's conditional headers and rejects the
// ones the operation does not accept. A malformed x-ms-if-tags is 400 here;
// the operation evaluates it with ifTagsHold (tags_cond.go).
func blobConditions(r *http.Request, allowed cond.Allowed) (cond.Conditions, error) {
	c, err := cond.Parse(r.Header)
	if err != nil {
		return c, err
	}
	if err := c.Restrict(allowed); err != nil {
		return c, err
	}
	return c, validIfTags(c)
}

// resourceOf is what conditions see of a blob: a placeholder holding only
// uncommitted blocks does not exist yet.
func resourceOf(b *blobdata.Blob) cond.Resource {
	if b == nil || !b.Committed {
		return cond.Resource{}
	}
	return cond.Resource{Exists: true, ETag: b.ETag.String(), LastModified: b.LastModified()}
}
