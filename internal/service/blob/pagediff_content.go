package blob

import (
	"bytes"
	"context"

	"github.com/lazuli-storage/lazuli/internal/service/blobdata"
)

// crossDiff is a diff between a page blob and a snapshot of another page
// blob (x-ms-previous-snapshot-url naming another disk). The two share
// extents only where one was copied from the other, so blobdata.PageDiff, which
// compares extents, reports as changed every written page that does not
// share its bytes' storage; narrowByContent then compares those pages'
// bytes, which is what a diff across blobs means.
type crossDiff struct{ prev, cur []blobdata.Segment }

// compareChunk bounds the bytes read from each blob at a time.
const compareChunk = 4 << 20

// narrowByContent keeps, of the changed ranges of items, the pages whose
// bytes differ from the previous snapshot's or that the snapshot never
// wrote; cleared ranges stay as they are.
func (s *Service) narrowByContent(ctx context.Context, d *crossDiff, items []rangeItem) ([]rangeItem, error) {
	var out []rangeItem
	for _, it := range items {
		if it.cleared {
			out = append(out, it)
			continue
		}
		pages, err := s.differingPages(ctx, d, it.PageRange)
		if err != nil {
			return nil, err
		}
		for _, p := range pages {
			out = append(out, rangeItem{PageRange: p})
		}
	}
	return out, nil
}

// differingPages lists the pages of r whose content differs between the
// two blobs, chunk by chunk.
func (s *Service) differingPages(ctx context.Context, d *crossDiff, r blobdata.PageRange) ([]blobdata.PageRange, error) {
	var out []blobdata.PageRange
	for start := r.Start; start <= r.End; start += compareChunk {
		end := min(start+compareChunk-1, r.End)
		written := blobdata.WrittenRanges(d.prev, start, end)
		if len(written) == 0 {
			out = blobdata.AppendRange(out, blobdata.PageRange{Start: start, End: end})
			continue
		}
		cur, err := s.readSegments(ctx, d.cur, start, end-start+1)
		if err != nil {
			return nil, err
		}
		prev, err := s.readSegments(ctx, d.prev, start, end-start+1)
		if err != nil {
			return nil, err
		}
		for at := start; at <= end; at += blobdata.PageSize {
			i := at - start
			page := blobdata.PageRange{Start: at, End: at + blobdata.PageSize - 1}
			if !coveredBy(written, page) || !bytes.Equal(cur[i:i+blobdata.PageSize], prev[i:i+blobdata.PageSize]) {
				out = blobdata.AppendRange(out, page)
			}
		}
	}
	return out, nil
}

// coveredBy reports whether page lies inside one of the sorted ranges.
func coveredBy(ranges []blobdata.PageRange, page blobdata.PageRange) bool {
	for _, w := range ranges {
		if w.Start <= page.Start && page.End <= w.End {
			return true
		}
	}
	return false
}

// readSegments reads [offset, offset+length) of a blob's segments; holes
// read as zeros, and bytes past the last segment are missing, so only
// offsets inside a written range of segs may be compared.
func (s *Service) readSegments(ctx context.Context, segs []blobdata.Segment, offset, length int64) ([]byte, error) {
	c, err := blobdata.OpenContent(ctx, s.extents, segs, offset, length)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	var buf bytes.Buffer
	buf.Grow(int(length))
	if _, err := c.WriteTo(&buf); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
