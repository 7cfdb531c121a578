package file

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/lazuli-storage/lazuli/internal/rule/azerr"
)

// byteRange is an inclusive byte range from x-ms-range or Range; End is -1
// for an open range ("bytes=100-").
type byteRange struct {
	Start, End int64
}

// requestRange reads x-ms-range, or Range when it is absent. ok is false
// when neither is sent.
func requestRange(h http.Header) (byteRange, bool, error) {
	name := "x-ms-range"
	raw := h.Get(name)
	if raw == "" {
		name = "Range"
		raw = h.Get(name)
	}
	if raw == "" {
		return byteRange{}, false, nil
	}
	br, err := parseByteRange(raw)
	if err != nil {
		return byteRange{}, false, azerr.InvalidHeader(name, raw)
	}
	return br, true, nil
}

// parseByteRange reads "bytes=start-end" or "bytes=start-".
func parseByteRange(raw string) (byteRange, error) {
	spec, ok := strings.CutPrefix(strings.TrimSpace(raw), "bytes=")
	if !ok {
		return byteRange{}, errBadRange
	}
	lo, hi, ok := strings.Cut(spec, "-")
	if !ok {
		return byteRange{}, errBadRange
	}
	start, err := strconv.ParseInt(strings.TrimSpace(lo), 10, 64)
	if err != nil || start < 0 {
		return byteRange{}, errBadRange
	}
	br := byteRange{Start: start, End: -1}
	if hi = strings.TrimSpace(hi); hi != "" {
		end, err := strconv.ParseInt(hi, 10, 64)
		if err != nil || end < start {
			return byteRange{}, errBadRange
		}
		br.End = end
	}
	return br, nil
}

var errBadRange = azerr.New(azerr.InvalidRange)

// clip bounds the range by a resource of size bytes and returns the
// half-open window it covers: 416 InvalidRange when it starts at or past
// the end.
func (br byteRange) clip(size int64) (start, end int64, err error) {
	if br.Start >= size {
		return 0, 0, azerr.New(azerr.InvalidRange).With("RangeRequested", br.String()).
			With("ResourceSize", strconv.FormatInt(size, 10))
	}
	end = size
	if br.End >= 0 && br.End < size-1 { // br.End+1 could overflow
		end = br.End + 1
	}
	return br.Start, end, nil
}

func (br byteRange) String() string {
	if br.End < 0 {
		return "bytes=" + strconv.FormatInt(br.Start, 10) + "-"
	}
	return "bytes=" + strconv.FormatInt(br.Start, 10) + "-" + strconv.FormatInt(br.End, 10)
}
