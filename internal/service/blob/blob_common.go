package blob

import (
	"net/http"

	"github.com/lazuli-storage/lazuli/internal/rule/cond"
	"github.com/lazuli-storage/lazuli/internal/rule/contentprops"
	"github.com/lazuli-storage/lazuli/internal/rule/metadata"
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

// parseContentProps reads a blob's content properties. Put Blob takes the
// standard headers (Content-Type, ...) with x-ms-blob-* overriding them;
// Put Block List and Set Blob Properties take only x-ms-blob-*. Properties
// not given are cleared, as the service does.
func parseContentProps(h http.Header, standard bool) (contentprops.Props, error) {
	get := func(std, blob string) string {
		if v := h.Get(blob); v != "" || !standard {
			return v
		}
		return h.Get(std)
	}
	p := contentprops.Props{
		Type:         get("Content-Type", "x-ms-blob-content-type"),
		Encoding:     get("Content-Encoding", "x-ms-blob-content-encoding"),
		Language:     get("Content-Language", "x-ms-blob-content-language"),
		Disposition:  h.Get("X-Ms-Blob-Content-Disposition"),
		CacheControl: get("Cache-Control", "x-ms-blob-cache-control"),
	}
	var err error
	p.MD5, err = contentprops.ParseMD5Property(h, "x-ms-blob-content-md5")
	return p, err
}

// parseNewBlobHeaders reads the content properties and metadata of a
// request that creates a blob's content (Put Blob, Put Block List): a blob
// stored without a type is application/octet-stream.
func parseNewBlobHeaders(h http.Header, standard bool) (contentprops.Props, metadata.Set, error) {
	p, err := parseContentProps(h, standard)
	if err != nil {
		return p, nil, err
	}
	if p.Type == "" {
		p.Type = contentprops.DefaultType
	}
	m, err := metadata.Parse(h)
	return p, m, err
}
