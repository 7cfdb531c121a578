package blob

import (
	"errors"

	"github.com/lazuli-storage/lazuli/internal/service/blob/byterange"
	"github.com/lazuli-storage/lazuli/internal/service/blobdata"
)

// errPageRange reports a page range that is malformed or not page-aligned.
var errPageRange = errors.New("blob: invalid page range")

// parsePageRange reads the range of a Put Page: "bytes=start-end" with
// both ends given, start a multiple of 512 and end one less than one.
func parsePageRange(raw string) (blobdata.PageRange, error) {
	r, err := byterange.Parse(raw)
	if err != nil || r.End < 0 {
		return blobdata.PageRange{}, errPageRange
	}
	p := blobdata.PageRange{Start: r.Start, End: r.End}
	if p.Start%blobdata.PageSize != 0 || (p.End+1)%blobdata.PageSize != 0 {
		return blobdata.PageRange{}, errPageRange
	}
	return p, nil
}
