package blob

import (
	"net/http"

	"github.com/lazuli-storage/lazuli/internal/rule/azerr"
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

// x-ms-if-tags is AND-ed with the other conditional headers (the Azure
// reference page "Specifying conditional headers for Blob service
// operations"): every place that evaluates a blob's conditions with
// cond.CheckRead or CheckWrite also calls ifTagsHold on the same record.
// blobConditions has already refused a malformed expression (400).

// validIfTags checks the syntax of an x-ms-if-tags expression.
func validIfTags(c cond.Conditions) error {
	if c.IfTags == "" {
		return nil
	}
	if _, err := parseTagQuery(c.IfTags, conditionQuery); err != nil {
		return azerr.InvalidHeader("x-ms-if-tags", c.IfTags)
	}
	return nil
}

// ifTagsHold evaluates x-ms-if-tags against b's tags: 412 ConditionNotMet
// when it fails. A missing blob has no tags, so no comparison holds.
func ifTagsHold(c cond.Conditions, b *blobdata.Blob) error {
	if c.IfTags == "" {
		return nil
	}
	e, err := parseTagQuery(c.IfTags, conditionQuery)
	if err != nil {
		return azerr.InvalidHeader("x-ms-if-tags", c.IfTags)
	}
	var tags blobdata.TagSet
	if b != nil && b.Committed {
		tags = b.Tags
	}
	if !e.match(tags, "") {
		return azerr.New(azerr.ConditionNotMet)
	}
	return nil
}

// checkReadConditions is the read rule plus x-ms-if-tags.
func checkReadConditions(c cond.Conditions, b *blobdata.Blob, version string) error {
	if err := c.CheckRead(resourceOf(b), version); err != nil {
		return err
	}
	return ifTagsHold(c, b)
}

// checkWriteConditions is the write rule plus x-ms-if-tags. A blob that
// holds only staged blocks has a time for the date headers.
func checkWriteConditions(c cond.Conditions, b *blobdata.Blob) error {
	res := resourceOf(b)
	if b != nil && !b.Committed {
		res.Staged, res.LastModified = true, b.LastModified()
	}
	if err := c.CheckWrite(res); err != nil {
		return err
	}
	return ifTagsHold(c, b)
}
