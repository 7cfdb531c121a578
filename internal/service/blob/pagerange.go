package blob

import (
	"errors"

	"github.com/lazuli-storage/lazuli/internal/service/blob/byterange"
)

// errPageRange reports a page range that is malformed or not page-aligned.
var errPageRange = errors.New("blob: invalid page range")

// parsePageRange reads the range of a Put Page: "bytes=start-end" with
// both ends given, start a multiple of 512 and end one less than one.
func parsePageRange(raw string) (pageRange, error) {
	r, err := byterange.Parse(raw)
	if err != nil || r.End < 0 {
		return pageRange{}, errPageRange
	}
	p := pageRange{Start: r.Start, End: r.End}
	if p.Start%pageSize != 0 || (p.End+1)%pageSize != 0 {
		return pageRange{}, errPageRange
	}
	return p, nil
}
