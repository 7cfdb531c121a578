package cond

import (
	"net/http"
	"strings"
	"time"

	"github.com/lazuli-storage/lazuli/internal/rule/azerr"
)

// combinedReadVersion is the first x-ms-version whose reads evaluate every
// conditional header together instead of selecting one.
const combinedReadVersion = "2013-08-15"

// CheckRead evaluates the conditions of Get Blob or Get Blob Properties at
// x-ms-version version (YYYY-MM-DD; "" means a request without a version,
// which Azure executes at its oldest version). It returns nil, 304
// ConditionNotMet or 412 ConditionNotMet, or 400 for a header combination
// the older rule rejects. On a missing resource only If-Match can fail.
func (c Conditions) CheckRead(res Resource, version string) error {
	if version < combinedReadVersion {
		return c.checkSelected(res, azerr.ConditionNotMet, http.StatusNotModified)
	}
	return c.checkCombined(res)
}

// CheckWrite evaluates the conditions of a write: one header is selected
// (If-None-Match over If-Modified-Since, If-Match over If-Unmodified-Since),
// other combinations are 400 MultipleConditionHeadersNotSupported, and a
// failure is 412 ConditionNotMet. On a missing resource If-Match fails and
// the other headers are skipped.
func (c Conditions) CheckWrite(res Resource) error {
	return c.checkSelected(res, azerr.ConditionNotMet, http.StatusPreconditionFailed)
}

// CheckSource evaluates x-ms-source-* conditions against a copy source with
// the write rule; a failure is 412 SourceConditionNotMet.
func (c Conditions) CheckSource(res Resource) error {
	return c.checkSelected(res, azerr.SourceConditionNotMet, http.StatusPreconditionFailed)
}

// CheckSourceFetch is CheckSource for the operations that read their
// source as a GET of its URL (the from-URL ones): a failing
// x-ms-source-if-none-match or -if-modified-since is what that GET
// answers, 304, which the caller reports as the source's answer (the SDK's
// TestPutBlobFromUrlSourceIfNoneMatchFalse expects CannotVerifyCopySource
// and 304); If-Match and If-Unmodified-Since are 412 SourceConditionNotMet.
func (c Conditions) CheckSourceFetch(res Resource) error {
	return c.checkSelected(res, azerr.SourceConditionNotMet, http.StatusNotModified)
}

// checkCombined is the read rule of x-ms-version 2013-08-15 and later:
// If-Match && If-Unmodified-Since && (If-None-Match || If-Modified-Since).
func (c Conditions) checkCombined(res Resource) error {
	p := c.present()
	if p&IfMatch != 0 && !c.ifMatchHolds(res) {
		return azerr.New(azerr.ConditionNotMet)
	}
	if p&IfUnmodifiedSince != 0 && !c.ifUnmodifiedSinceHolds(res) {
		return azerr.New(azerr.ConditionNotMet)
	}
	if p&(IfNoneMatch|IfModifiedSince) == 0 {
		return nil
	}
	noneMatchHolds := p&IfNoneMatch != 0 && c.ifNoneMatchHolds(res)
	modifiedHolds := p&IfModifiedSince != 0 && c.ifModifiedSinceHolds(res)
	if noneMatchHolds || modifiedHolds {
		return nil
	}
	return azerr.New(azerr.ConditionNotMet).WithStatus(http.StatusNotModified)
}

// checkSelected is the write rule (and the read rule before 2013-08-15):
// evaluate the one selected header. code is the failure's error code;
// lateStatus is the status when If-None-Match or If-Modified-Since fails
// (304 on old reads, 412 on writes); If-Match and If-Unmodified-Since
// failures are always 412.
func (c Conditions) checkSelected(res Resource, code string, lateStatus int) error {
	selected, err := c.selectOne()
	if err != nil {
		return err
	}
	failed := azerr.New(code).WithStatus(http.StatusPreconditionFailed)
	switch selected {
	case IfMatch:
		if !c.ifMatchHolds(res) {
			return failed
		}
	case IfUnmodifiedSince:
		if !c.ifUnmodifiedSinceHolds(res) {
			return failed
		}
	case IfNoneMatch:
		if !c.ifNoneMatchHolds(res) {
			return failed.WithStatus(lateStatus)
		}
	case IfModifiedSince:
		if !c.ifModifiedSinceHolds(res) {
			return failed.WithStatus(lateStatus)
		}
	}
	return nil
}

// selectOne picks the header the write rule evaluates, 0 for none.
// x-ms-if-tags is outside this rule: it is AND-ed by the blob service.
func (c Conditions) selectOne() (Allowed, error) {
	if len(c.IfMatch) > 1 || len(c.IfNoneMatch) > 1 {
		// The blob service accepts one ETag per header on writes.
		return 0, azerr.New(azerr.MultipleConditionHeadersNotSupported)
	}
	switch p := c.present() &^ IfTags; p {
	case 0, IfMatch, IfNoneMatch, IfModifiedSince, IfUnmodifiedSince:
		return p, nil
	case IfNoneMatch | IfModifiedSince:
		return IfNoneMatch, nil
	case IfMatch | IfUnmodifiedSince:
		return IfMatch, nil
	default:
		return 0, azerr.New(azerr.MultipleConditionHeadersNotSupported)
	}
}

// ifMatchHolds: the resource exists and one listed ETag (or "*") matches.
func (c Conditions) ifMatchHolds(res Resource) bool {
	if !res.Exists {
		return false
	}
	for _, tag := range c.IfMatch {
		if tag == "*" || sameETag(tag, res.ETag) {
			return true
		}
	}
	return false
}

// ifNoneMatchHolds: no listed ETag matches; "*" matches any existing
// resource. A missing resource satisfies it.
func (c Conditions) ifNoneMatchHolds(res Resource) bool {
	if !res.Exists {
		return true
	}
	for _, tag := range c.IfNoneMatch {
		if tag == "*" || sameETag(tag, res.ETag) {
			return false
		}
	}
	return true
}

// ifModifiedSinceHolds: a resource without a time skips the check.
func (c Conditions) ifModifiedSinceHolds(res Resource) bool {
	return !res.dated() || modifiedSince(res.LastModified, *c.IfModifiedSince)
}

// ifUnmodifiedSinceHolds: a resource without a time skips the check.
func (c Conditions) ifUnmodifiedSinceHolds(res Resource) bool {
	return !res.dated() || !modifiedSince(res.LastModified, *c.IfUnmodifiedSince)
}

// modifiedSince compares at the one-second resolution of HTTP dates, so a
// client that echoes the Last-Modified it was given sees "not modified".
func modifiedSince(lastModified, since time.Time) bool {
	return lastModified.Truncate(time.Second).After(since)
}

// sameETag is the strong comparison of RFC 7232 §2.3.2, tolerating clients
// that omit the quotes. A weak validator never matches strongly.
func sameETag(sent, current string) bool {
	if strings.HasPrefix(sent, "W/") || strings.HasPrefix(current, "W/") {
		return false
	}
	return unquote(sent) == unquote(current)
}

func unquote(tag string) string {
	if len(tag) >= 2 && tag[0] == '"' && tag[len(tag)-1] == '"' {
		return tag[1 : len(tag)-1]
	}
	return tag
}
