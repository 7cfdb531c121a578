package blob

import (
	"encoding/base64"
	"net/http"
	"strconv"
	"strings"

	"github.com/lazuli-storage/lazuli/internal/engine/extent"
	"github.com/lazuli-storage/lazuli/internal/rule/azerr"
	"github.com/lazuli-storage/lazuli/internal/rule/cond"
	"github.com/lazuli-storage/lazuli/internal/service/blob/byterange"
	"github.com/lazuli-storage/lazuli/internal/service/blobdata"
)

// Append Block From URL and Put Page From URL take their bytes from a
// source URL (x-ms-copy-source, optionally x-ms-source-range) instead of
// the body, read as the copy family reads sources (copy_source.go,
// copy_fetch.go), then commit exactly as Append Block and Put Page do.

// parseKindSource reads the source headers shared by both operations. A
// page write needs a source range.
func (s *Service) parseKindSource(r *http.Request, rangeRequired bool) (putBlockFromURLArgs, error) {
	var a putBlockFromURLArgs
	var err error
	if err = emptyBody(r); err != nil {
		return a, err
	}
	if a.source, err = parseSourceArgs(r, sourceConditions); err != nil {
		return a, err
	}
	switch v := r.Header.Get("X-Ms-Source-Range"); {
	case v != "":
		rng, err := byterange.Parse(v)
		if err != nil || (rangeRequired && rng.End < 0) {
			return a, azerr.InvalidHeader("x-ms-source-range", v)
		}
		a.rng = &rng
	case rangeRequired:
		return a, azerr.MissingHeader("x-ms-source-range")
	}
	if a.sums.md5, err = parseMD5(r.Header, "x-ms-source-content-md5"); err != nil {
		return a, err
	}
	if v := r.Header.Get("X-Ms-Source-Content-Crc64"); v != "" {
		if a.sums.crc64, err = base64.StdEncoding.DecodeString(v); err != nil || len(a.sums.crc64) != 8 {
			return a, azerr.InvalidHeader("x-ms-source-content-crc64", v)
		}
	}
	a.src, err = s.parseCopySource(r)
	return a, err
}

// readKindSource copies the source's bytes (or range) into a new extent of
// at most limit bytes.
func (s *Service) readKindSource(r *http.Request, a putBlockFromURLArgs, limit int64) (extent.Info, []byte, error) {
	var info extent.Info
	var crc []byte
	var err error
	if a.src.local {
		info, crc, err = s.copyLocalRange(r, a)
	} else {
		var f *fetched
		if f, err = s.fetchSource(r, a.src, a.rng, limit, a.sums); err == nil {
			info, crc = extent.Info{ID: f.extent, Size: f.size, MD5: f.md5}, f.crc
		}
	}
	switch {
	case err != nil:
		return info, nil, err
	case info.Size > limit:
		return info, nil, sourceTooLarge(limit)
	case info.Size == 0:
		return info, nil, azerr.Newf(azerr.InvalidInput, "The copy source range is empty.")
	}
	return info, crc, nil
}

// appendBlockFromURL is Append Block From URL.
func (s *Service) appendBlockFromURL(w http.ResponseWriter, r *http.Request) error {
	conds, err := parseBlobRequest(r, cond.AllConditions)
	if err != nil {
		return err
	}
	app, err := parseAppendConditions(r.Header)
	if err != nil {
		return err
	}
	a, err := s.parseKindSource(r, false)
	if err != nil {
		return err
	}
	info, crc, err := s.readKindSource(r, a, appendLimit(r))
	if err != nil {
		return err
	}
	return s.commitAppend(w, r, conds, app, info, crc, bothDigests)
}

// putPageFromURL is Put Page From URL: the source range must be as long
// as the destination range.
func (s *Service) putPageFromURL(w http.ResponseWriter, r *http.Request) error {
	var p putPageArgs
	var err error
	if p.conds, err = parseBlobRequest(r, cond.AllConditions); err != nil {
		return err
	}
	if p.seq, err = parseSeqConditions(r.Header); err != nil {
		return err
	}
	if mode := r.Header.Get("X-Ms-Page-Write"); !strings.EqualFold(mode, "update") {
		if mode == "" {
			return azerr.MissingHeader("x-ms-page-write")
		}
		return azerr.InvalidHeader("x-ms-page-write", mode)
	}
	raw := r.Header.Get("X-Ms-Range")
	if raw == "" {
		return azerr.MissingHeader("x-ms-range")
	}
	if p.rng, err = parsePageRange(raw); err != nil {
		return azerr.New(azerr.InvalidPageRange).With("HeaderName", "x-ms-range").With("HeaderValue", raw)
	}
	if p.rng.Length() > blobdata.MaxPutPageBytes {
		return azerr.New(azerr.RequestBodyTooLarge).With("MaxLimit", strconv.Itoa(blobdata.MaxPutPageBytes))
	}
	a, err := s.parseKindSource(r, true)
	if err != nil {
		return err
	}
	if a.rng.End-a.rng.Start+1 != p.rng.Length() {
		return azerr.InvalidHeader("x-ms-source-range", r.Header.Get("X-Ms-Source-Range"))
	}
	info, crc, err := s.readKindSource(r, a, blobdata.MaxPutPageBytes)
	if err != nil {
		return err
	}
	if info.Size != p.rng.Length() {
		return azerr.New(azerr.InvalidPageRange).With("HeaderName", "x-ms-source-range").With("HeaderValue", r.Header.Get("X-Ms-Source-Range"))
	}
	rec, err := s.commitPages(r, p, blobdata.Segment{Extent: info.ID})
	if err != nil {
		return err
	}
	h := w.Header()
	setWriteResult(h, rec)
	h.Set("X-Ms-Blob-Sequence-Number", itoa(rec.SequenceNumber))
	bothDigests.setHeaders(h, info.MD5, crc)
	setRequestEncrypted(h, r)
	return write(w, http.StatusCreated)
}
