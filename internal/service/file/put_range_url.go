package file

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/binary"
	"net/http"
	"strconv"
	"time"

	"github.com/lazuli-storage/lazuli/internal/rule/crc64"

	"github.com/lazuli-storage/lazuli/internal/engine/extent"
	"github.com/lazuli-storage/lazuli/internal/engine/store"
	"github.com/lazuli-storage/lazuli/internal/rule/auth"
	"github.com/lazuli-storage/lazuli/internal/rule/azerr"
	"github.com/lazuli-storage/lazuli/internal/service/file/ranges"
	"github.com/lazuli-storage/lazuli/internal/service/file/smbstate"
)

// putRangeFromURL writes a range of the file from a range of a source on
// this server. A file source is written by reference: the destination's
// range records point at the source's extents (holes stay holes). A blob
// source is read from the Blob service into one new extent.
func (s *Service) putRangeFromURL(w http.ResponseWriter, r *http.Request) error {
	t := targetOf(r)
	if err := readOnlySnapshot(t); err != nil {
		return err
	}
	rw, err := parseRangeWrite(r.Header)
	if err != nil {
		return err
	}
	if rw.clear {
		return azerr.InvalidHeader("x-ms-write", "clear")
	}
	srcRange, err := parseSourceRange(r.Header, rw.end-rw.start)
	if err != nil {
		return err
	}
	if _, err := auth.CopySourceToken(r.Header); err != nil {
		return err
	}
	checks, err := parseSourceCRCs(r.Header)
	if err != nil {
		return err
	}
	src, err := s.resolveSource(r, "x-ms-copy-source", r.Header.Get("X-Ms-Copy-Source"))
	if err != nil {
		return err
	}
	var fromBlob *blobContent
	if src.service == auth.Blob {
		if fromBlob, err = s.readBlob(r, src, &srcRange); err != nil {
			return err
		}
	} else if err := s.authorizeSource(r, src); err != nil {
		return err
	}
	var crc []byte
	n, err := s.updateFile(r, t, smbstate.PutRange, func(tx store.Tx, n *node, now time.Time) error {
		if rw.end > n.Size {
			return azerr.New(azerr.InvalidRange).With("RangeRequested", byteRange{rw.start, rw.end - 1}.String())
		}
		segs, err := s.sourceSegments(tx, src, fromBlob, srcRange, rw.start)
		if err != nil {
			return err
		}
		if crc, err = s.sourceCRC(r.Context(), checks, segs, rw.start, rw.end); err != nil {
			return err
		}
		if !rw.preserveWrite {
			n.SMB.Written, n.SMB.Changed = now, now
		}
		return writeSegments(tx, t, n.ID, rw.start, rw.end, segs, now)
	})
	if err != nil {
		return err
	}
	// The service answers the CRC-64 of the range it wrote, asked for or not.
	w.Header().Set("X-Ms-Content-Crc64", base64.StdEncoding.EncodeToString(crc))
	writeRangeResult(w, n, nil)
	return nil
}

// sourceCRCs are the CRC-64 headers of Put Range From URL, each eight
// bytes or nil: the checksum the source range must have, and the source
// conditions on it.
type sourceCRCs struct {
	content, ifMatch, ifNoneMatch []byte
}

func parseSourceCRCs(h http.Header) (sourceCRCs, error) {
	var c sourceCRCs
	for _, f := range []struct {
		name string
		dst  *[]byte
	}{{"x-ms-source-content-crc64", &c.content}, {"x-ms-source-if-match-crc64", &c.ifMatch}, {"x-ms-source-if-none-match-crc64", &c.ifNoneMatch}} {
		raw := h.Get(f.name)
		if raw == "" {
			continue
		}
		sum, err := base64.StdEncoding.DecodeString(raw)
		if err != nil || len(sum) != 8 {
			return c, azerr.InvalidHeader(f.name, raw)
		}
		*f.dst = sum
	}
	return c, nil
}

// sourceCRC computes the CRC-64 of the source bytes (segments placed at
// [start, end), holes reading as zeros), which the answer carries, and
// checks it against the CRC-64 headers: a different
// x-ms-source-content-crc64 is 400 Crc64Mismatch, an unmet source
// condition 412 SourceConditionNotMet.
func (s *Service) sourceCRC(ctx context.Context, c sourceCRCs, segs []ranges.Segment, start, end int64) ([]byte, error) {
	plan := ranges.Plan(segs, start, end)
	readers, err := s.openPlan(ctx, plan)
	if err != nil {
		return nil, err
	}
	defer closeReaders(readers)
	var sum crcWriter
	if err := copyPlan(&sum, plan, readers); err != nil {
		return nil, err
	}
	got := binary.LittleEndian.AppendUint64(nil, uint64(sum))
	switch {
	case c.content != nil && !bytes.Equal(c.content, got):
		return nil, azerr.New(azerr.Crc64Mismatch)
	case c.ifMatch != nil && !bytes.Equal(c.ifMatch, got), c.ifNoneMatch != nil && bytes.Equal(c.ifNoneMatch, got):
		return nil, azerr.New(azerr.SourceConditionNotMet)
	}
	return got, nil
}

// crcWriter accumulates the CRC-64 of what is written to it.
type crcWriter uint64

func (w *crcWriter) Write(p []byte) (int, error) {
	*w = crcWriter(crc64.Update(uint64(*w), p))
	return len(p), nil
}

// parseSourceRange reads x-ms-source-range, which must be as long as the
// destination range and at most 4 MiB.
func parseSourceRange(h http.Header, length int64) (byteRange, error) {
	raw := h.Get("X-Ms-Source-Range")
	if raw == "" {
		return byteRange{}, azerr.MissingHeader("x-ms-source-range")
	}
	br, err := parseByteRange(raw)
	if err != nil || br.End < 0 || br.End >= maxFileSize || br.End-br.Start+1 != length {
		return byteRange{}, azerr.InvalidHeader("x-ms-source-range", raw)
	}
	if length > maxPutRange {
		return byteRange{}, azerr.Newf(azerr.RequestBodyTooLarge, "Put Range From URL writes at most 4 MiB per call.")
	}
	return br, nil
}

// sourceSegments returns the source's bytes for srcRange as segments
// placed at dst in the destination file.
func (s *Service) sourceSegments(tx store.Tx, src sourceRef, fromBlob *blobContent, srcRange byteRange, dst int64) ([]ranges.Segment, error) {
	length := srcRange.End - srcRange.Start + 1
	if fromBlob != nil {
		if fromBlob.size != length {
			return nil, azerr.New(azerr.InvalidRange).With("RangeRequested", srcRange.String())
		}
		return []ranges.Segment{{Start: dst, Length: length, Extent: fromBlob.extent}}, nil
	}
	srcNode, err := fileFor(tx, src.file, false)
	if err != nil {
		return nil, sourceError(err)
	}
	if src.file.Snapshot == "" {
		if err := smbstate.Check(smbstate.CopySource, srcNode.Opens); err != nil {
			return nil, err
		}
	}
	if srcRange.End >= srcNode.Size {
		return nil, azerr.New(azerr.InvalidRange).With("RangeRequested", srcRange.String()).
			With("ResourceSize", strconv.FormatInt(srcNode.Size, 10))
	}
	start, end := srcRange.Start, srcRange.End+1
	segs, err := segmentsIn(tx, src.account, src.file.Share, src.file.Snapshot, srcNode.ID, start, end)
	if err != nil {
		return nil, err
	}
	out := make([]ranges.Segment, 0, len(segs))
	for _, sg := range segs {
		lo, hi := max(sg.Start, start), min(sg.End(), end)
		out = append(out, ranges.Segment{Start: dst + (lo - start), Length: hi - lo, Extent: sg.Extent,
			ExtentOffset: sg.ExtentOffset + (lo - sg.Start)})
	}
	return out, nil
}

// writeSegments replaces [start, end) of file id with segs (which lie
// inside it), each taking a reference to its extent. The references are
// taken before the old content is cleared, so copying a file's range onto
// itself never frees what it still needs.
func writeSegments(tx store.Tx, t *target, id uint64, start, end int64, segs []ranges.Segment, now time.Time) error {
	for _, sg := range segs {
		if err := extent.Ref(tx, sg.Extent); err != nil {
			return err
		}
	}
	if err := overlay(tx, t.Account, t.Share, "", id, start, end, nil, now); err != nil {
		return err
	}
	for _, sg := range segs {
		if err := tx.Put(rangeKey(t.Account, t.Share, "", id, sg.Start), encodeSegment(sg)); err != nil {
			return err
		}
	}
	return nil
}
