package blob

import (
	"net/http"
	"strconv"

	"github.com/lazuli-storage/lazuli/internal/rule/structured"
	"github.com/lazuli-storage/lazuli/internal/service/blobdata"

	"github.com/lazuli-storage/lazuli/internal/engine/extent"
	"github.com/lazuli-storage/lazuli/internal/engine/store"
	"github.com/lazuli-storage/lazuli/internal/frame/request"
	"github.com/lazuli-storage/lazuli/internal/rule/azerr"
	"github.com/lazuli-storage/lazuli/internal/rule/cond"
)

// Append Block limits: 50,000 blocks per blob; 4 MiB per block, 100 MiB
// from service version 2022-11-02.
const (
	maxAppendBlocks     = 50_000
	legacyAppendBytes   = 4 << 20
	maxAppendBytes      = 100 << 20
	largeAppendVersion  = "2022-11-02"
	appendPosHeader     = "x-ms-blob-condition-appendpos"
	appendMaxSizeHeader = "x-ms-blob-condition-maxsize"
)

// createAppendBlob is Put Blob with x-ms-blob-type: AppendBlob: an empty
// blob that Append Block grows.
func (s *Service) createAppendBlob(w http.ResponseWriter, r *http.Request) error {
	a, err := parseKindCreate(r)
	if err != nil {
		return err
	}
	return s.createKind(w, r, a, func(rec *blobdata.Blob) { rec.Type = blobdata.AppendBlob })
}

// appendConditions are x-ms-blob-condition-maxsize and -appendpos.
type appendConditions struct {
	maxSize, appendPos *int64
}

func parseAppendConditions(h http.Header) (appendConditions, error) {
	var c appendConditions
	for _, p := range []struct {
		name string
		dst  **int64
	}{{appendMaxSizeHeader, &c.maxSize}, {appendPosHeader, &c.appendPos}} {
		raw := h.Get(p.name)
		if raw == "" {
			continue
		}
		n, err := strconv.ParseInt(raw, 10, 64)
		if err != nil || n < 0 {
			return c, azerr.InvalidHeader(p.name, raw)
		}
		*p.dst = &n
	}
	return c, nil
}

// check tests the conditions for adding n bytes to a blob of size bytes.
func (c appendConditions) check(size, n int64) error {
	if c.maxSize != nil && size+n > *c.maxSize {
		return azerr.New(azerr.MaxBlobSizeConditionNotMet)
	}
	if c.appendPos != nil && size != *c.appendPos {
		return azerr.New(azerr.AppendPositionConditionNotMet)
	}
	return nil
}

// appendBlockArgs is a parsed Append Block request.
type appendBlockArgs struct {
	conds  conditions
	app    appendConditions
	sums   checksums
	length int64
}

func parseAppendBlock(r *http.Request) (appendBlockArgs, error) {
	var a appendBlockArgs
	var err error
	if a.conds, err = parseContentWrite(r); err != nil {
		return a, err
	}
	if a.app, err = parseAppendConditions(r.Header); err != nil {
		return a, err
	}
	if a.sums, err = parseChecksums(r.Header); err != nil {
		return a, err
	}
	if a.length, err = contentLength(r, appendLimit(r)); err != nil {
		return a, err
	}
	if a.length == 0 {
		return a, azerr.InvalidHeader("Content-Length", "0")
	}
	return a, nil
}

// appendLimit is the largest block the request's service version allows.
func appendLimit(r *http.Request) int64 {
	return versionLimit(r, largeAppendVersion, maxAppendBytes, legacyAppendBytes)
}

// appendBlock is Append Block: the body streams into an extent that one
// Update adds as the blob's last segment. The Update checks the append
// position against the size it reads, so of concurrent appends with the
// same x-ms-blob-condition-appendpos exactly one lands, and appends
// without it each land once, in commit order.
func (s *Service) appendBlock(w http.ResponseWriter, r *http.Request) error {
	a, err := parseAppendBlock(r)
	if err != nil {
		return err
	}
	d := a.sums.digests(request.Of(r).Version, false)
	info, crc, err := s.receive(r, a.length, a.sums, d)
	if err != nil {
		return err
	}
	return s.commitAppend(w, r, a.conds, a.app, info, crc, d)
}

// commitAppend adds the extent info as the append blob's last block in
// one Update, after the kind, seal, position, size and block count
// checks, and answers with the block's offset.
func (s *Service) commitAppend(w http.ResponseWriter, r *http.Request, conds conditions, app appendConditions, info extent.Info, crc []byte, d digests) error {
	var offset int64
	var blocks int
	rec, err := s.writeBlobAs(r, conds, blobdata.WritePlain, func(_ store.Tx, old *blobdata.Blob, refs blobdata.RefDelta) (*blobdata.Blob, error) {
		segs, err := appendable(old)
		if err != nil {
			return nil, err
		}
		if err := app.check(old.Size, info.Size); err != nil {
			return nil, err
		}
		if len(segs) >= maxAppendBlocks {
			return nil, azerr.New(azerr.BlockCountExceedsLimit)
		}
		offset = old.Size
		segs = append(segs, blobdata.Segment{Extent: info.ID, Length: info.Size})
		blocks = len(segs)
		refs.Add(info.ID)
		old.SetSegments(segs)
		s.touch(old)
		return old, nil
	})
	if err != nil {
		return err
	}
	h := w.Header()
	setWriteResult(h, rec)
	d.setHeaders(h, info.MD5, crc)
	structured.EchoUpload(h, r.Header)
	h.Set("X-Ms-Blob-Append-Offset", itoa(offset))
	h.Set(committedCountHeader, strconv.Itoa(blocks))
	setRequestEncrypted(h, r)
	return write(w, http.StatusCreated)
}

// appendable returns the blocks of an append blob that may take another:
// 409 InvalidBlobType for another kind, 409 BlobIsSealed once sealed.
func appendable(b *blobdata.Blob) ([]blobdata.Segment, error) {
	if b.Type != blobdata.AppendBlob {
		return nil, azerr.New(azerr.InvalidBlobType)
	}
	if b.Sealed {
		return nil, azerr.New(azerr.BlobIsSealed)
	}
	return b.Segments()
}

// sealAppendBlob is Append Blob Seal: the blob takes no more blocks.
// Sealing a sealed blob succeeds again.
func (s *Service) sealAppendBlob(w http.ResponseWriter, r *http.Request) error {
	conds, err := parseBlobRequest(r, cond.AllConditions&^cond.IfTags)
	if err != nil {
		return err
	}
	app, err := parseAppendConditions(r.Header)
	if err != nil {
		return err
	}
	app.maxSize = nil
	rec, err := s.writeBlobAs(r, conds, blobdata.WritePlain, func(_ store.Tx, old *blobdata.Blob, _ blobdata.RefDelta) (*blobdata.Blob, error) {
		if old.Type != blobdata.AppendBlob {
			return nil, azerr.New(azerr.InvalidBlobType)
		}
		if err := app.check(old.Size, 0); err != nil {
			return nil, err
		}
		if !old.Sealed {
			old.Sealed = true
			s.touch(old)
		}
		return old, nil
	})
	if err != nil {
		return err
	}
	h := w.Header()
	setWriteResult(h, rec)
	h.Set("X-Ms-Blob-Sealed", "true")
	return write(w, http.StatusOK)
}
