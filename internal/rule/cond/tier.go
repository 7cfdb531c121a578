package cond

import (
	"net/http"
	"time"

	"github.com/lazuli-storage/lazuli/internal/rule/azerr"
)

// TierConditions are Delete Blob's x-ms-access-tier-if-modified-since and
// x-ms-access-tier-if-unmodified-since (version 2026-02-06): the delete
// happens only if the blob's access tier changed, or did not, since the
// given instant. Failing either is 412 AccessTierChangeTimeConditionNotMet
// (the SDK's recorded TestBlobDeleteAccessTier* tests).
type TierConditions struct {
	IfModifiedSince, IfUnmodifiedSince *time.Time
}

// ParseTier reads the access tier conditions; an unparsable date is 400
// InvalidHeaderValue, as for If-Modified-Since.
func ParseTier(h http.Header) (TierConditions, error) {
	var c TierConditions
	var err error
	if c.IfModifiedSince, err = parseDate(h, "X-Ms-Access-Tier-If-Modified-Since"); err != nil {
		return c, err
	}
	c.IfUnmodifiedSince, err = parseDate(h, "X-Ms-Access-Tier-If-Unmodified-Since")
	return c, err
}

// Check evaluates the conditions against when the tier last changed, at
// the one-second resolution of HTTP dates.
func (c TierConditions) Check(changed time.Time) error {
	if c.IfModifiedSince != nil && !modifiedSince(changed, *c.IfModifiedSince) ||
		c.IfUnmodifiedSince != nil && modifiedSince(changed, *c.IfUnmodifiedSince) {
		return azerr.New(azerr.AccessTierChangeTimeConditionNotMet)
	}
	return nil
}
