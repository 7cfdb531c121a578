package file

import (
	"bytes"
	"encoding/base64"
	"errors"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/lazuli-storage/lazuli/internal/engine/extent"
	"github.com/lazuli-storage/lazuli/internal/engine/store"
	"github.com/lazuli-storage/lazuli/internal/frame/request"
	"github.com/lazuli-storage/lazuli/internal/rule/azerr"
	"github.com/lazuli-storage/lazuli/internal/rule/lease"
	"github.com/lazuli-storage/lazuli/internal/rule/structured"
	"github.com/lazuli-storage/lazuli/internal/service/file/ranges"
	"github.com/lazuli-storage/lazuli/internal/service/file/smbstate"
)

// maxPutRange is the most one Put Range writes: 4 MiB.
const maxPutRange = 4 << 20

// rangeWrite is a parsed Put Range or Put Range From URL.
type rangeWrite struct {
	start, end    int64 // half-open
	clear         bool
	preserveWrite bool // x-ms-file-last-write-time: preserve
}

func parseRangeWrite(h http.Header) (rangeWrite, error) {
	var rw rangeWrite
	switch mode := strings.ToLower(strings.TrimSpace(h.Get("X-Ms-Write"))); mode {
	case "":
		return rw, azerr.MissingHeader("x-ms-write")
	case "update":
	case "clear":
		rw.clear = true
	default:
		return rw, azerr.InvalidHeader("x-ms-write", h.Get("X-Ms-Write"))
	}
	br, ok, err := requestRange(h)
	if err != nil {
		return rw, err
	}
	if !ok {
		return rw, azerr.MissingHeader("x-ms-range")
	}
	if br.End < 0 {
		return rw, azerr.InvalidHeader("x-ms-range", br.String())
	}
	if br.End >= maxFileSize {
		// Past the largest file there is; also keeps End+1 from overflowing.
		return rw, azerr.New(azerr.InvalidRange).With("RangeRequested", br.String())
	}
	rw.start, rw.end = br.Start, br.End+1
	switch lw := strings.ToLower(strings.TrimSpace(h.Get("X-Ms-File-Last-Write-Time"))); lw {
	case "", "now":
	case "preserve":
		rw.preserveWrite = true
	default:
		return rw, azerr.InvalidHeader("x-ms-file-last-write-time", lw)
	}
	return rw, nil
}

func (s *Service) putRange(w http.ResponseWriter, r *http.Request) error {
	t := targetOf(r)
	if err := readOnlySnapshot(t); err != nil {
		return err
	}
	rw, err := parseRangeWrite(r.Header)
	if err != nil {
		return err
	}
	if _, err := structured.AcceptUpload(r); err != nil {
		return err
	}
	length := rw.end - rw.start
	if rw.clear {
		if r.ContentLength > 0 {
			return azerr.Newf(azerr.InvalidHeaderValue, "Put Range with x-ms-write: clear takes no body.").
				With("HeaderName", "Content-Length").With("HeaderValue", strconv.FormatInt(r.ContentLength, 10))
		}
		pieces, err := s.clearPieces(r, rw)
		if err != nil {
			return err
		}
		n, err := s.writePieces(r, t, rw, pieces)
		if err != nil {
			return err
		}
		writeRangeResult(w, n, nil)
		return nil
	}
	if length > maxPutRange {
		return azerr.Newf(azerr.RequestBodyTooLarge, "Put Range writes at most 4 MiB per call.")
	}
	if r.ContentLength != length {
		return azerr.Newf(azerr.InvalidHeaderValue, "Content-Length must equal the length of x-ms-range.").
			With("HeaderName", "Content-Length").With("HeaderValue", strconv.FormatInt(r.ContentLength, 10))
	}
	wantMD5, err := contentMD5(r.Header)
	if err != nil {
		return err
	}
	info, err := s.extents.Write(r.Context(), request.MarkReads(r.Body), length)
	if errors.Is(err, extent.ErrTooLarge) {
		return azerr.Newf(azerr.InvalidInput, "The body is longer than x-ms-range.")
	}
	if err != nil {
		return request.BodyError(err)
	}
	if info.Size != length {
		return azerr.Newf(azerr.InvalidInput, "The body is shorter than x-ms-range.")
	}
	if wantMD5 != nil && !bytes.Equal(wantMD5, info.MD5[:]) {
		return azerr.New(azerr.Md5Mismatch)
	}
	n, err := s.writeRange(r, t, rw, &ranges.Segment{Start: rw.start, Length: length, Extent: info.ID})
	if err != nil {
		return err
	}
	structured.EchoUpload(w.Header(), r.Header)
	writeRangeResult(w, n, info.MD5[:])
	return nil
}

// contentMD5 reads a transactional Content-MD5 header.
func contentMD5(h http.Header) ([]byte, error) {
	raw := h.Get("Content-MD5")
	if raw == "" {
		return nil, nil
	}
	sum, err := base64.StdEncoding.DecodeString(raw)
	if err != nil || len(sum) != 16 {
		return nil, azerr.New(azerr.InvalidMd5).With("HeaderName", "Content-MD5")
	}
	return sum, nil
}

// writeRange applies a range write (seg nil: clear) to the live file: the
// range must lie inside the file (416 InvalidRange), and the last write and
// change times move to now unless the write asks to preserve them.
func (s *Service) writeRange(r *http.Request, t *target, rw rangeWrite, seg *ranges.Segment) (*node, error) {
	return s.writePieces(r, t, rw, []rangePiece{{rw.start, rw.end, seg}})
}

// rangePiece is part of a range write: [start, end) replaced by seg, or
// cleared when seg is nil.
type rangePiece struct {
	start, end int64
	seg        *ranges.Segment
}

// pageSize is the unit Clear Range frees.
const pageSize = 512

// clearPieces splits a Clear Range into the whole 512-byte pages it frees
// and the parts of pages at its ends, which the service fills with zeros
// instead, so they stay listed (the SDK's recorded
// TestClearRangeNonDefaultCount clears one byte and still lists it). The
// zeros come from one small extent both ends share.
func (s *Service) clearPieces(r *http.Request, rw rangeWrite) ([]rangePiece, error) {
	first := (rw.start + pageSize - 1) / pageSize * pageSize
	last := rw.end / pageSize * pageSize
	pieces := []rangePiece{{start: rw.start, end: rw.end}}
	if first < last {
		pieces = []rangePiece{{start: rw.start, end: first}, {start: first, end: last}, {start: last, end: rw.end}}
	}
	var zeros int64
	for _, p := range pieces {
		if !p.wholePages() {
			zeros = max(zeros, p.end-p.start)
		}
	}
	var zeroExtent string
	if zeros > 0 {
		info, err := s.extents.Write(r.Context(), bytes.NewReader(make([]byte, zeros)), zeros)
		if err != nil {
			return nil, err
		}
		zeroExtent = info.ID
	}
	var out []rangePiece
	for _, p := range pieces {
		switch {
		case p.end == p.start:
		case p.wholePages():
			out = append(out, p)
		default:
			out = append(out, rangePiece{p.start, p.end, &ranges.Segment{Start: p.start, Length: p.end - p.start, Extent: zeroExtent}})
		}
	}
	return out, nil
}

// wholePages reports whether the piece starts and ends on page boundaries.
func (p rangePiece) wholePages() bool { return p.start%pageSize == 0 && p.end%pageSize == 0 }

// writePieces applies a range write made of pieces, in one transaction.
func (s *Service) writePieces(r *http.Request, t *target, rw rangeWrite, pieces []rangePiece) (*node, error) {
	return s.updateFile(r, t, smbstate.PutRange, func(tx store.Tx, n *node, now time.Time) error {
		if rw.end > n.Size {
			return azerr.New(azerr.InvalidRange).With("RangeRequested", byteRange{rw.start, rw.end - 1}.String()).
				With("ResourceSize", strconv.FormatInt(n.Size, 10))
		}
		if err := s.checkByteLocks(n, rw.start, rw.end, true); err != nil {
			return err
		}
		if !rw.preserveWrite {
			n.SMB.Written = now
			n.SMB.Changed = now
		}
		for _, p := range pieces {
			if err := overlay(tx, t.Account, t.Share, "", n.ID, p.start, p.end, p.seg, now); err != nil {
				return err
			}
		}
		return nil
	})
}

func writeRangeResult(w http.ResponseWriter, n *node, md5 []byte) {
	h := w.Header()
	setETag(h, n.ETag)
	if md5 != nil {
		h.Set("Content-MD5", base64.StdEncoding.EncodeToString(md5))
	}
	h.Set("X-Ms-Request-Server-Encrypted", "true")
	h.Set("X-Ms-File-Last-Write-Time", formatTime(n.SMB.Written))
	w.WriteHeader(http.StatusCreated)
}

func (s *Service) listRanges(w http.ResponseWriter, r *http.Request) error {
	t := targetOf(r)
	br, ranged, err := requestRange(r.Header)
	if err != nil {
		return err
	}
	prevSnap := ""
	if raw := r.URL.Query().Get("prevsharesnapshot"); raw != "" {
		if prevSnap, err = parseSnapshot(raw); err != nil {
			return err
		}
	}
	followRenames, err := boolHeader(r.Header, "x-ms-file-support-rename")
	if err != nil {
		return err
	}
	now := s.now()
	var n *node
	var changed, cleared []ranges.Range
	err = s.store.View(r.Context(), func(tx store.Tx) error {
		var err error
		if n, err = fileFor(tx, t, false); err != nil {
			return err
		}
		if err := n.Lease.CheckRead(r.Header.Get(lease.HeaderID), now, lease.File); err != nil {
			return err
		}
		if t.Snapshot == "" {
			if err := smbstate.Check(smbstate.ListRanges, n.Opens); err != nil {
				return err
			}
		}
		start, end := int64(0), n.Size
		if ranged && n.Size > 0 {
			if start, end, err = br.clip(n.Size); err != nil {
				return err
			}
		}
		changed, cleared, err = rangeList(tx, t, n, prevSnap, followRenames, start, end)
		return err
	})
	if err != nil {
		return err
	}
	h := w.Header()
	setETag(h, n.ETag)
	h.Set("X-Ms-Content-Length", strconv.FormatInt(n.Size, 10))
	writeRangeList(w, changed, cleared)
	return nil
}

// previousFile finds n in the previous snapshot: at its path, or, with
// x-ms-file-support-rename: true, by its file id wherever it was then. A
// path the previous snapshot does not have is 409 PreviousSnapshotNotFound
// unless renames are followed (the SDK's recorded
// TestFileGetRangeListSupportRename lists ranges of a renamed file).
func previousFile(tx store.Tx, t *target, n *node, prevSnap string, followRenames bool) (*node, bool, error) {
	if !followRenames {
		old, found, err := loadNode(tx, t.Account, t.Share, prevSnap, t.Path)
		if err == nil && !found {
			return nil, false, azerr.New(azerr.PreviousSnapshotNotFound)
		}
		return old, found, err
	}
	prefix := store.NewKey(store.SpaceFile).Str(t.Account).Str(t.Share).Str(prevSnap)
	var old *node
	var decodeErr error
	err := tx.Scan(prefix, store.PrefixEnd(prefix), store.ScanOptions{}, func(_, v []byte) bool {
		c, err := decodeNode(v)
		if err != nil {
			decodeErr = err
			return false
		}
		if c.ID == n.ID && !c.Dir {
			old = c
			return false
		}
		return true
	})
	if err == nil {
		err = decodeErr
	}
	return old, old != nil, err
}

// rangeList lists the written ranges of n in [start, end), or, against an
// earlier snapshot, the ranges changed and cleared since.
func rangeList(tx store.Tx, t *target, n *node, prevSnap string, followRenames bool, start, end int64) (changed, cleared []ranges.Range, err error) {
	segs, err := segmentsIn(tx, t.Account, t.Share, t.Snapshot, n.ID, start, end)
	if err != nil || prevSnap == "" {
		return ranges.Written(segs, start, end), nil, err
	}
	if _, found, err := loadShare(tx, t.Account, t.Share, prevSnap); err != nil {
		return nil, nil, err
	} else if !found {
		return nil, nil, azerr.New(azerr.ShareSnapshotNotFound)
	}
	var prev []ranges.Segment
	old, found, err := previousFile(tx, t, n, prevSnap, followRenames)
	if err != nil {
		return nil, nil, err
	}
	if found && !old.Dir {
		if prev, err = segmentsIn(tx, t.Account, t.Share, prevSnap, old.ID, start, end); err != nil {
			return nil, nil, err
		}
	}
	changed, cleared = ranges.DiffPages(segs, prev, start, end)
	return changed, cleared, nil
}

func writeRangeList(w http.ResponseWriter, changed, cleared []ranges.Range) {
	type entry struct {
		r     ranges.Range
		clear bool
	}
	all := make([]entry, 0, len(changed)+len(cleared))
	for _, c := range changed {
		all = append(all, entry{c, false})
	}
	for _, c := range cleared {
		all = append(all, entry{c, true})
	}
	sort.Slice(all, func(i, j int) bool { return all[i].r.Start < all[j].r.Start })
	x := newXML()
	x.Open("Ranges")
	for _, e := range all {
		name := "Range"
		if e.clear {
			name = "ClearRange"
		}
		x.Open(name)
		x.Elem("Start", strconv.FormatInt(e.r.Start, 10))
		x.Elem("End", strconv.FormatInt(e.r.End, 10))
		x.Close(name)
	}
	x.Close("Ranges")
	x.Send(w, http.StatusOK)
}
