package blob

import (
	"net/http"

	"github.com/lazuli-storage/lazuli/internal/rule/azerr"
	"github.com/lazuli-storage/lazuli/internal/rule/cond"
	"github.com/lazuli-storage/lazuli/internal/service/blobdata"
)

// parseBlobRequest makes the checks a blob operation starts with: the
// container name, then the conditional headers the operation accepts.
func parseBlobRequest(r *http.Request, allowed cond.Allowed) (conditions, error) {
	if err := validContainerName(targetOf(r).Container); err != nil {
		return conditions{}, err
	}
	return blobConditions(r, allowed)
}

// parseSelectedRequest is parseBlobRequest for an operation that may
// address a snapshot or a version, which it also returns.
func parseSelectedRequest(r *http.Request, allowed cond.Allowed) (conditions, blobdata.Selector, error) {
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
func parseBaseRequest(r *http.Request, allowed cond.Allowed) (conditions, error) {
	conds, err := parseBlobRequest(r, allowed)
	if err != nil {
		return conds, err
	}
	return conds, onlyBase(r)
}

// conditions are a blob request's conditional headers with its tags
// predicate (x-ms-if-tags, or x-ms-source-if-tags of a copy source) parsed
// once, when the headers are read: a malformed one is 400 before any other
// work, and evaluating it against a blob's tags parses nothing.
type conditions struct {
	cond.Conditions
	ifTags *tagExpr // nil without a tags predicate
}

// blobConditions parses the request's conditional headers and rejects the
// ones the operation does not accept and a malformed x-ms-if-tags (400).
func blobConditions(r *http.Request, allowed cond.Allowed) (conditions, error) {
	c, err := cond.Parse(r.Header)
	if err != nil {
		return conditions{}, err
	}
	if err := c.Restrict(allowed); err != nil {
		return conditions{}, err
	}
	return withIfTags(c, "x-ms-if-tags")
}

// withIfTags parses c's tags predicate, which the request sent in header:
// a malformed one is 400 InvalidHeaderValue naming that header.
func withIfTags(c cond.Conditions, header string) (conditions, error) {
	out := conditions{Conditions: c}
	if c.IfTags == "" {
		return out, nil
	}
	var err error
	if out.ifTags, err = parseTagQuery(c.IfTags, conditionQuery); err != nil {
		return conditions{}, azerr.InvalidHeader(header, c.IfTags)
	}
	return out, nil
}

// resourceOf is what conditions see of a blob: a placeholder holding only
// uncommitted blocks does not exist yet.
func resourceOf(b *blobdata.Blob) cond.Resource {
	if b == nil || !b.Committed {
		return cond.Resource{}
	}
	return cond.Resource{Exists: true, ETag: b.ETagString(), LastModified: b.LastModified()}
}

// x-ms-if-tags is AND-ed with the other conditional headers (the Azure
// reference page "Specifying conditional headers for Blob service
// operations"): every place that evaluates a blob's conditions with
// cond.CheckRead or CheckWrite also calls tagsHold on the same record.

// tagsHold evaluates the tags predicate against b's tags: 412
// ConditionNotMet when it fails. A missing blob has no tags, so no
// comparison holds.
func (c conditions) tagsHold(b *blobdata.Blob) error {
	if c.ifTags == nil {
		return nil
	}
	var tags blobdata.TagSet
	if b != nil && b.Committed {
		tags = b.Tags
	}
	if !c.ifTags.match(tags, "") {
		return azerr.New(azerr.ConditionNotMet)
	}
	return nil
}

// checkReadConditions is the read rule plus x-ms-if-tags.
func checkReadConditions(c conditions, b *blobdata.Blob, version string) error {
	if err := c.CheckRead(resourceOf(b), version); err != nil {
		return err
	}
	return c.tagsHold(b)
}

// checkWriteConditions is the write rule plus x-ms-if-tags. A blob that
// holds only staged blocks has a time for the date headers.
func checkWriteConditions(c conditions, b *blobdata.Blob) error {
	res := resourceOf(b)
	if b != nil && !b.Committed {
		res.Staged, res.LastModified = true, b.LastModified()
	}
	if err := c.CheckWrite(res); err != nil {
		return err
	}
	return c.tagsHold(b)
}
