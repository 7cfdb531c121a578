// Package cond parses the conditional headers of a Blob, File or container
// request (If-Match, If-None-Match, If-Modified-Since, If-Unmodified-Since,
// x-ms-if-tags and their x-ms-source-* variants) once, and evaluates them
// against a resource with pure functions.
//
// Azure has two evaluation rules (the Azure reference page "Specifying
// conditional headers for Blob service operations",
// learn.microsoft.com/rest/api/storageservices/specifying-conditional-headers-for-blob-service-operations):
//
//   - Reads (Get Blob, Get Blob Properties) at x-ms-version 2013-08-15 or
//     later accept any combination and evaluate
//     If-Match && If-Unmodified-Since && (If-None-Match || If-Modified-Since);
//     the If-Match list is OR-ed, the If-None-Match list AND-ed. Failures are
//     304 for the If-None-Match/If-Modified-Since group, 412 otherwise.
//   - Writes (all versions) and older reads select one header: If-None-Match
//     wins over If-Modified-Since, If-Match over If-Unmodified-Since, and any
//     other combination of two or more is 400. Each ETag header carries one
//     value only.
//
// x-ms-if-tags is kept raw: only the blob service knows a blob's tags.
// Last-Modified is compared at one-second resolution because HTTP dates
// carry whole seconds; ETags are compared strongly, quotes optional.
package cond

import (
	"net/http"
	"strings"
	"time"

	"github.com/lazuli-storage/lazuli/internal/rule/azerr"
)

// Conditions are the parsed conditional headers of one request.
type Conditions struct {
	// IfMatch and IfNoneMatch hold the ETags as sent (quotes kept), "*"
	// allowed; nil when the header is absent.
	IfMatch, IfNoneMatch []string
	// IfModifiedSince and IfUnmodifiedSince are nil when absent.
	IfModifiedSince, IfUnmodifiedSince *time.Time
	// IfTags is the raw x-ms-if-tags predicate, evaluated by the blob service.
	IfTags string

	// family records which headers these came from (plain, x-ms-source-*
	// or x-ms-blob-*), so that errors name the header the client sent.
	family family
}

// family is a set of conditional headers: the plain ones, a copy's
// x-ms-source-if-*, or the x-ms-blob-if-* of Get and Set Blob Tags.
type family int

const (
	plainHeaders family = iota
	sourceHeaders
	blobHeaders
)

// Resource is what conditions are evaluated against.
type Resource struct {
	Exists       bool
	ETag         string
	LastModified time.Time
	// Staged marks a block blob that holds only uncommitted blocks. The
	// ETag headers see it as absent (If-None-Match: * still creates it),
	// but it has a time since its first Put Block, which the date headers
	// compare: Put Block List with a later If-Modified-Since is 412 on
	// Azure (the SDK's recorded TestBlobPutBlockListIfModifiedSinceFalse).
	Staged bool
}

// dated reports whether the date headers compare res's time.
func (res Resource) dated() bool { return res.Exists || res.Staged }

// Allowed is a set of conditional headers an operation accepts.
type Allowed uint8

// The members of Allowed.
const (
	IfMatch Allowed = 1 << iota
	IfNoneMatch
	IfModifiedSince
	IfUnmodifiedSince
	IfTags

	// AllConditions is the full set accepted by most blob operations.
	AllConditions = IfMatch | IfNoneMatch | IfModifiedSince | IfUnmodifiedSince | IfTags
)

// headerNames are the request headers of each condition, by family. The
// blob family has no tags condition of its own.
var headerNames = map[Allowed][3]string{
	IfMatch:           {"If-Match", "x-ms-source-if-match", "x-ms-blob-if-match"},
	IfNoneMatch:       {"If-None-Match", "x-ms-source-if-none-match", "x-ms-blob-if-none-match"},
	IfModifiedSince:   {"If-Modified-Since", "x-ms-source-if-modified-since", "x-ms-blob-if-modified-since"},
	IfUnmodifiedSince: {"If-Unmodified-Since", "x-ms-source-if-unmodified-since", "x-ms-blob-if-unmodified-since"},
	IfTags:            {"x-ms-if-tags", "x-ms-source-if-tags", ""},
}

// Parse reads the plain conditional headers of h.
func Parse(h http.Header) (Conditions, error) {
	return parse(h, plainHeaders)
}

// ParseSource reads the x-ms-source-if-* headers of a copy-type request.
func ParseSource(h http.Header) (Conditions, error) {
	return parse(h, sourceHeaders)
}

// ParseBlob reads the x-ms-blob-if-* headers of Get and Set Blob Tags,
// conditions on the blob's ETag and Last-Modified (the SDK's recorded
// TestGetSetTagsWithBlobModifiedAccessConditions), beside x-ms-if-tags.
func ParseBlob(h http.Header) (Conditions, error) {
	return parse(h, blobHeaders)
}

func parse(h http.Header, f family) (Conditions, error) {
	c := Conditions{family: f}
	c.IfMatch = parseETags(h.Values(c.header(IfMatch)))
	c.IfNoneMatch = parseETags(h.Values(c.header(IfNoneMatch)))
	var err error
	if c.IfModifiedSince, err = parseDate(h, c.header(IfModifiedSince)); err != nil {
		return Conditions{}, err
	}
	if c.IfUnmodifiedSince, err = parseDate(h, c.header(IfUnmodifiedSince)); err != nil {
		return Conditions{}, err
	}
	if name := c.header(IfTags); name != "" {
		c.IfTags = strings.Join(h.Values(name), ",")
	}
	return c, nil
}

// header names the request header of condition a as this request sent it.
func (c Conditions) header(a Allowed) string {
	return headerNames[a][c.family]
}

// parseETags splits comma-separated ETag lists (RFC 7232 §3.1) over all
// header lines, honouring quotes. Empty header lines count as absent.
func parseETags(lines []string) []string {
	var tags []string
	for _, line := range lines {
		for _, tag := range splitETagList(line) {
			if tag != "" {
				tags = append(tags, tag)
			}
		}
	}
	return tags
}

// splitETagList splits s at commas outside double quotes and trims blanks.
func splitETagList(s string) []string {
	var parts []string
	inQuotes := false
	start := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '"':
			inQuotes = !inQuotes
		case ',':
			if !inQuotes {
				parts = append(parts, strings.TrimSpace(s[start:i]))
				start = i + 1
			}
		}
	}
	return append(parts, strings.TrimSpace(s[start:]))
}

// parseDate reads one HTTP date header. A date cannot be split on commas
// (RFC 1123 dates contain one), so two header lines are two values: 400.
func parseDate(h http.Header, name string) (*time.Time, error) {
	values := h.Values(name)
	switch len(values) {
	case 0:
		return nil, nil
	case 1:
	default:
		return nil, azerr.InvalidHeader(name, strings.Join(values, ", "))
	}
	raw := strings.TrimSpace(values[0])
	if raw == "" {
		return nil, nil
	}
	t, err := http.ParseTime(raw)
	if err != nil {
		return nil, azerr.InvalidHeader(name, values[0])
	}
	t = t.UTC()
	return &t, nil
}

// present returns the set of conditions this request carries.
func (c Conditions) present() Allowed {
	var a Allowed
	if len(c.IfMatch) > 0 {
		a |= IfMatch
	}
	if len(c.IfNoneMatch) > 0 {
		a |= IfNoneMatch
	}
	if c.IfModifiedSince != nil {
		a |= IfModifiedSince
	}
	if c.IfUnmodifiedSince != nil {
		a |= IfUnmodifiedSince
	}
	if c.IfTags != "" {
		a |= IfTags
	}
	return a
}

// Any reports whether the request carries any conditional header.
func (c Conditions) Any() bool { return c.present() != 0 }

// IfNoneMatchStar reports whether If-None-Match is "*". Put Blob and Put
// Block List answer its failure with 409 BlobAlreadyExists instead of 412.
func (c Conditions) IfNoneMatchStar() bool {
	for _, tag := range c.IfNoneMatch {
		if tag == "*" {
			return true
		}
	}
	return false
}

// Restrict rejects conditions the operation does not accept (containers take
// only some: the operation's own reference page lists the conditional
// headers it supports) with 400 ConditionHeadersNotSupported.
func (c Conditions) Restrict(a Allowed) error {
	extra := c.present() &^ a
	if extra == 0 {
		return nil
	}
	for _, one := range []Allowed{IfMatch, IfNoneMatch, IfModifiedSince, IfUnmodifiedSince, IfTags} {
		if extra&one != 0 {
			return azerr.New(azerr.ConditionHeadersNotSupported).With("HeaderName", c.header(one))
		}
	}
	return nil
}
