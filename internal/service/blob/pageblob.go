package blob

import (
	"math"
	"net/http"
	"strconv"
	"strings"

	"github.com/lazuli-storage/lazuli/internal/rule/structured"
	"github.com/lazuli-storage/lazuli/internal/service/blobdata"

	"github.com/lazuli-storage/lazuli/internal/engine/extent"
	"github.com/lazuli-storage/lazuli/internal/engine/store"
	"github.com/lazuli-storage/lazuli/internal/frame/request"
	"github.com/lazuli-storage/lazuli/internal/rule/azerr"
	"github.com/lazuli-storage/lazuli/internal/rule/cond"
	"github.com/lazuli-storage/lazuli/internal/rule/contentprops"
	"github.com/lazuli-storage/lazuli/internal/rule/metadata"
)

// kindArgs are the parts of a Put Blob of a page or append blob (which
// carries no content) shared by both kinds.
type kindArgs struct {
	conds    conditions
	props    contentprops.Props
	metadata metadata.Set
	tags     blobdata.TagSet
}

func parseKindCreate(r *http.Request) (kindArgs, error) {
	var a kindArgs
	var err error
	if a.conds, err = parseBlobRequest(r, cond.AllConditions); err != nil {
		return a, err
	}
	if a.props, a.metadata, err = parseNewBlobHeaders(r.Header, true); err != nil {
		return a, err
	}
	if a.tags, err = parseTagsHeader(r.Header.Get("X-Ms-Tags")); err != nil {
		return a, err
	}
	// Page and append blobs are created empty: a body is an error, and so
	// is an access tier, but for a premium page blob's (premium.go).
	if r.ContentLength > 0 {
		return a, azerr.InvalidHeader("Content-Length", strconv.FormatInt(r.ContentLength, 10))
	}
	if v := r.Header.Get("X-Ms-Access-Tier"); v != "" && r.Header.Get("X-Ms-Blob-Type") != "PageBlob" {
		return a, azerr.InvalidHeader("x-ms-access-tier", v)
	}
	if _, err := parseChecksums(r.Header); err != nil {
		return a, err
	}
	return a, nil
}

// createKind is Put Blob of an empty page or append blob: it replaces any
// blob of the name (keeping an active lease, as every Put Blob does) and
// discards uncommitted blocks. init gives the new record its kind.
func (s *Service) createKind(w http.ResponseWriter, r *http.Request, a kindArgs, init func(*blobdata.Blob)) error {
	rec, err := s.writeBlobAs(r, a.conds, blobdata.WriteReplace, func(tx store.Tx, old *blobdata.Blob, refs blobdata.RefDelta) (*blobdata.Blob, error) {
		rec, err := s.replaced(tx, r, old, refs)
		if err != nil {
			return nil, err
		}
		rec.Props, rec.Metadata, rec.Tags = a.props, a.metadata, a.tags
		init(rec)
		return rec, nil
	})
	if err != nil {
		return err
	}
	h := w.Header()
	setWriteResult(h, rec)
	setRequestEncrypted(h, r)
	return write(w, http.StatusCreated)
}

// createPageBlob is Put Blob with x-ms-blob-type: PageBlob: an all-hole
// page map of x-ms-blob-content-length bytes.
func (s *Service) createPageBlob(w http.ResponseWriter, r *http.Request) error {
	a, err := parseKindCreate(r)
	if err != nil {
		return err
	}
	size, err := parsePageBlobSize(r.Header, true)
	if err != nil {
		return err
	}
	seq, _, err := parseSequenceNumber(r.Header)
	if err != nil {
		return err
	}
	tier, err := s.createTier(r, size)
	if err != nil {
		return err
	}
	premium := s.isPremium(r)
	return s.createKind(w, r, a, func(rec *blobdata.Blob) {
		rec.Type = blobdata.PageBlob
		rec.Tier, rec.PremiumPage = tier, premium
		rec.SequenceNumber = seq
		if size > 0 {
			rec.SetSegments([]blobdata.Segment{blobdata.Hole(size)})
		}
	})
}

// parsePageBlobSize reads x-ms-blob-content-length: a multiple of 512 of
// at most 8 TiB.
func parsePageBlobSize(h http.Header, required bool) (int64, error) {
	raw := h.Get("X-Ms-Blob-Content-Length")
	if raw == "" {
		if required {
			return 0, azerr.MissingHeader("x-ms-blob-content-length")
		}
		return -1, nil
	}
	n, err := strconv.ParseInt(raw, 10, 64)
	if err != nil || n < 0 || n%blobdata.PageSize != 0 || n > blobdata.MaxPageBlobSize {
		return 0, azerr.InvalidHeader("x-ms-blob-content-length", raw)
	}
	return n, nil
}

// parseSequenceNumber reads x-ms-blob-sequence-number (0 to 2^63-1).
func parseSequenceNumber(h http.Header) (int64, bool, error) {
	raw := h.Get("X-Ms-Blob-Sequence-Number")
	if raw == "" {
		return 0, false, nil
	}
	n, err := strconv.ParseInt(raw, 10, 64)
	if err != nil || n < 0 {
		return 0, false, azerr.InvalidHeader("x-ms-blob-sequence-number", raw)
	}
	return n, true, nil
}

// seqConditions are x-ms-if-sequence-number-le, -lt and -eq.
type seqConditions struct {
	le, lt, eq *int64
}

func parseSeqConditions(h http.Header) (seqConditions, error) {
	var c seqConditions
	for _, p := range []struct {
		name string
		dst  **int64
	}{{"x-ms-if-sequence-number-le", &c.le}, {"x-ms-if-sequence-number-lt", &c.lt}, {"x-ms-if-sequence-number-eq", &c.eq}} {
		raw := h.Get(p.name)
		if raw == "" {
			continue
		}
		n, err := strconv.ParseInt(raw, 10, 64)
		switch {
		case err != nil:
			return c, azerr.InvalidHeader(p.name, raw)
		case n < 0:
			// A number, but no sequence number: the service says
			// InvalidInput (azblob's recorded ...NegOne tests).
			return c, azerr.Newf(azerr.InvalidInput, "One of the request inputs is not valid: %s is negative.", p.name)
		}
		*p.dst = &n
	}
	return c, nil
}

// check is 412 SequenceNumberConditionNotMet unless every given condition
// holds for the blob's sequence number.
func (c seqConditions) check(seq int64) error {
	if (c.le != nil && seq > *c.le) || (c.lt != nil && seq >= *c.lt) || (c.eq != nil && seq != *c.eq) {
		return azerr.New(azerr.SequenceNumberConditionNotMet)
	}
	return nil
}

// putPageArgs is a parsed Put Page request.
type putPageArgs struct {
	conds conditions
	seq   seqConditions
	rng   blobdata.PageRange
	clear bool
	sums  checksums
}

func parsePutPage(r *http.Request) (putPageArgs, error) {
	var a putPageArgs
	var err error
	if a.conds, err = parseContentWrite(r); err != nil {
		return a, err
	}
	if a.seq, err = parseSeqConditions(r.Header); err != nil {
		return a, err
	}
	switch mode := r.Header.Get("X-Ms-Page-Write"); {
	case mode == "":
		return a, azerr.MissingHeader("x-ms-page-write")
	case strings.EqualFold(mode, "clear"):
		a.clear = true
	case !strings.EqualFold(mode, "update"):
		return a, azerr.InvalidHeader("x-ms-page-write", mode)
	}
	raw, name := r.Header.Get("X-Ms-Range"), "x-ms-range"
	if raw == "" {
		raw, name = r.Header.Get("Range"), "Range"
	}
	if raw == "" {
		return a, azerr.MissingHeader("x-ms-range")
	}
	if a.rng, err = parsePageRange(raw); err != nil {
		return a, azerr.New(azerr.InvalidPageRange).With("HeaderName", name).With("HeaderValue", raw)
	}
	if a.clear {
		if r.ContentLength > 0 {
			return a, azerr.InvalidHeader("Content-Length", strconv.FormatInt(r.ContentLength, 10))
		}
		return a, nil
	}
	if a.rng.Length() > blobdata.MaxPutPageBytes {
		return a, azerr.New(azerr.RequestBodyTooLarge).With("MaxLimit", strconv.Itoa(blobdata.MaxPutPageBytes))
	}
	n, err := contentLength(r, blobdata.MaxPutPageBytes)
	if err != nil {
		return a, err
	}
	if n != a.rng.Length() {
		return a, azerr.New(azerr.InvalidPageRange).With("HeaderName", name).With("HeaderValue", raw)
	}
	a.sums, err = parseChecksums(r.Header)
	return a, err
}

// putPage is Put Page: update writes the body as one extent over the
// range, clear turns the range into a hole; either way only the segments
// the range touches change, and the pages it displaces release their
// extent references in the same Update.
func (s *Service) putPage(w http.ResponseWriter, r *http.Request) error {
	a, err := parsePutPage(r)
	if err != nil {
		return err
	}
	var with blobdata.Segment // a clear's hole is made in commitPages
	var info extent.Info
	var crc []byte
	d := a.sums.digests(request.Of(r).Version, false)
	if !a.clear {
		if info, crc, err = s.receive(r, a.rng.Length(), a.sums, d); err != nil {
			return err
		}
		with = blobdata.Segment{Extent: info.ID}
	}
	rec, err := s.commitPages(r, a, with)
	if err != nil {
		return err
	}
	h := w.Header()
	setWriteResult(h, rec)
	h.Set("X-Ms-Blob-Sequence-Number", itoa(rec.SequenceNumber))
	if !a.clear {
		d.setHeaders(h, info.MD5, crc)
		structured.EchoUpload(h, r.Header)
		setRequestEncrypted(h, r)
	}
	return write(w, http.StatusCreated)
}

// commitPages puts with (data), or for a clear a hole marked with the
// write's ETag, over the range of a page write in one Update, after the
// blob's kind, size and sequence number checks.
func (s *Service) commitPages(r *http.Request, a putPageArgs, with blobdata.Segment) (*blobdata.Blob, error) {
	return s.writeBlobAs(r, a.conds, blobdata.WritePlain, func(_ store.Tx, old *blobdata.Blob, refs blobdata.RefDelta) (*blobdata.Blob, error) {
		if old.Type != blobdata.PageBlob {
			return nil, azerr.New(azerr.InvalidBlobType)
		}
		if a.rng.End >= old.Size {
			return nil, azerr.New(azerr.InvalidPageRange)
		}
		if err := a.seq.check(old.SequenceNumber); err != nil {
			return nil, err
		}
		segs, err := old.Segments()
		if err != nil {
			return nil, err
		}
		s.touch(old)
		if a.clear {
			with = blobdata.ClearedHole(0, uint64(old.ETag))
		}
		segs, removed, added := blobdata.ReplacePages(segs, a.rng.Start, a.rng.Length(), with)
		blobdata.DataRefs(refs, removed, added)
		old.SetSegments(segs)
		return old, nil
	})
}

// pagePropsArgs is a parsed Resize or Update Sequence Number (Set Blob
// Properties with x-ms-blob-content-length or x-ms-sequence-number-action).
type pagePropsArgs struct {
	conds  conditions
	size   int64 // -1: no resize
	action string
	seq    int64
}

func parsePageProps(r *http.Request) (pagePropsArgs, error) {
	var a pagePropsArgs
	var err error
	if a.conds, err = parseBlobRequest(r, cond.AllConditions); err != nil {
		return a, err
	}
	if a.size, err = parsePageBlobSize(r.Header, false); err != nil {
		return a, err
	}
	seq, given, err := parseSequenceNumber(r.Header)
	if err != nil {
		return a, err
	}
	a.seq = seq
	switch raw := r.Header.Get("X-Ms-Sequence-Number-Action"); strings.ToLower(raw) {
	case "":
	case "max", "update":
		if !given {
			return a, azerr.MissingHeader("x-ms-blob-sequence-number")
		}
		a.action = strings.ToLower(raw)
	case "increment":
		if given {
			return a, azerr.InvalidHeader("x-ms-blob-sequence-number", r.Header.Get("X-Ms-Blob-Sequence-Number"))
		}
		a.action = "increment"
	default:
		return a, azerr.InvalidHeader("x-ms-sequence-number-action", raw)
	}
	return a, nil
}

// setPageProperties is Resize (a new size: pages past it are dropped, new
// pages are a hole) and Update Sequence Number (max, update, increment),
// alone or together. The content properties are left as they are.
func (s *Service) setPageProperties(w http.ResponseWriter, r *http.Request) error {
	a, err := parsePageProps(r)
	if err != nil {
		return err
	}
	rec, err := s.writeBlobAs(r, a.conds, blobdata.WritePlain, func(_ store.Tx, old *blobdata.Blob, refs blobdata.RefDelta) (*blobdata.Blob, error) {
		if old.Type != blobdata.PageBlob {
			// Set Blob Properties refuses these page blob headers on
			// other kinds with 400.
			name := "x-ms-blob-content-length"
			if a.size < 0 {
				name = "x-ms-sequence-number-action"
			}
			return nil, azerr.InvalidHeader(name, r.Header.Get(name))
		}
		if err := a.applySequence(old); err != nil {
			return nil, err
		}
		if a.size >= 0 && a.size != old.Size {
			if err := checkTierHolds(old, a.size); err != nil {
				return nil, err
			}
			segs, err := old.Segments()
			if err != nil {
				return nil, err
			}
			segs, removed, added := blobdata.ResizePages(segs, a.size)
			blobdata.DataRefs(refs, removed, added)
			old.SetSegments(segs)
		}
		s.touch(old)
		return old, nil
	})
	if err != nil {
		return err
	}
	h := w.Header()
	setWriteResult(h, rec)
	h.Set("X-Ms-Blob-Sequence-Number", itoa(rec.SequenceNumber))
	return write(w, http.StatusOK)
}

// applySequence applies the sequence number action to b.
func (a pagePropsArgs) applySequence(b *blobdata.Blob) error {
	switch a.action {
	case "max":
		b.SequenceNumber = max(b.SequenceNumber, a.seq)
	case "update":
		b.SequenceNumber = a.seq
	case "increment":
		if b.SequenceNumber == math.MaxInt64 {
			return azerr.New(azerr.SequenceNumberIncrementTooLarge)
		}
		b.SequenceNumber++
	}
	return nil
}
