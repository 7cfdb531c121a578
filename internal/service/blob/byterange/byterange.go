// Package byterange parses the byte ranges of Get Blob requests (the Range
// and x-ms-range headers) as the Blob service accepts them: "bytes=a-b" and
// "bytes=a-", one range per request.
package byterange

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Range is a requested byte range. End is -1 for an open range ("bytes=a-").
type Range struct {
	Start, End int64
}

// ErrSyntax reports a header that is not a single "bytes=" range.
var ErrSyntax = errors.New("byterange: malformed range")

// ErrUnsatisfiable reports a range that starts at or past the end.
var ErrUnsatisfiable = errors.New("byterange: range not satisfiable")

// Parse reads one "bytes=start-end" or "bytes=start-" range. Suffix ranges
// ("bytes=-n") and lists of ranges are not part of the Blob service's
// grammar and are ErrSyntax, as is an end before the start.
func Parse(s string) (Range, error) {
	spec, ok := strings.CutPrefix(strings.TrimSpace(s), "bytes=")
	if !ok {
		return Range{}, ErrSyntax
	}
	first, last, ok := strings.Cut(spec, "-")
	if !ok || first == "" || strings.ContainsAny(spec, ", ") {
		return Range{}, ErrSyntax
	}
	start, err := parseOffset(first)
	if err != nil {
		return Range{}, err
	}
	if last == "" {
		return Range{Start: start, End: -1}, nil
	}
	end, err := parseOffset(last)
	if err != nil {
		return Range{}, err
	}
	if end < start {
		return Range{}, ErrSyntax
	}
	return Range{Start: start, End: end}, nil
}

// ParseRead reads the range of a read (Get Blob, Get Page Ranges), which
// the service ignores when its start is negative, as the SDKs send it for
// a negative offset ("bytes=-1-", "bytes=-22--9"): the recorded
// TestBlobDownloadDataNegativeOffset and TestBlobGetPageRangesInvalidRange
// get the whole blob. nil is no range.
func ParseRead(s string) (*Range, error) {
	if spec, ok := strings.CutPrefix(strings.TrimSpace(s), "bytes="); ok && strings.HasPrefix(spec, "-") {
		return nil, nil
	}
	r, err := Parse(s)
	if err != nil {
		return nil, err
	}
	return &r, nil
}

// parseOffset reads a non-negative decimal offset (digits only).
func parseOffset(s string) (int64, error) {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, ErrSyntax
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return 0, ErrSyntax
	}
	return n, nil
}

// Resolve clamps r to a resource of size bytes and returns the offset and
// length to serve. A range starting at or past the end (any range of an
// empty resource) is ErrUnsatisfiable.
func (r Range) Resolve(size int64) (offset, length int64, err error) {
	if r.Start >= size {
		return 0, 0, ErrUnsatisfiable
	}
	end := r.End
	if end < 0 || end >= size {
		end = size - 1
	}
	return r.Start, end - r.Start + 1, nil
}

// ContentRange renders the Content-Range header of a served range.
func ContentRange(offset, length, size int64) string {
	return fmt.Sprintf("bytes %d-%d/%d", offset, offset+length-1, size)
}
