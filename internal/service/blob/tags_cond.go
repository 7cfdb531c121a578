package blob

import (
	"github.com/lazuli-storage/lazuli/internal/rule/azerr"
	"github.com/lazuli-storage/lazuli/internal/rule/cond"
	"github.com/lazuli-storage/lazuli/internal/service/blobdata"
)

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
