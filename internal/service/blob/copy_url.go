package blob

import (
	"encoding/base64"
	"io"
	"net/http"
	"strconv"

	"github.com/lazuli-storage/lazuli/internal/engine/extent"
	"github.com/lazuli-storage/lazuli/internal/engine/store"
	"github.com/lazuli-storage/lazuli/internal/rule/azerr"
	"github.com/lazuli-storage/lazuli/internal/rule/cond"
	"github.com/lazuli-storage/lazuli/internal/rule/contentprops"
	"github.com/lazuli-storage/lazuli/internal/rule/metadata"
	"github.com/lazuli-storage/lazuli/internal/service/blob/blocklist"
	"github.com/lazuli-storage/lazuli/internal/service/blob/byterange"
	"github.com/lazuli-storage/lazuli/internal/service/blobdata"
)

// sourceConditions are the x-ms-source-if-* headers Put Block From URL
// accepts (no tags).
const sourceConditions = cond.IfMatch | cond.IfNoneMatch | cond.IfModifiedSince | cond.IfUnmodifiedSince

// emptyBody checks that a From URL request carries no body: its content
// comes from the source.
func emptyBody(r *http.Request) error {
	if r.ContentLength > 0 {
		return azerr.InvalidHeader("Content-Length", strconv.FormatInt(r.ContentLength, 10))
	}
	return nil
}

// putBlobFromURLArgs is a parsed Put Blob From URL request.
type putBlobFromURLArgs struct {
	conds    conditions
	source   sourceArgs
	src      copySource
	props    contentprops.Props
	copyProp bool // x-ms-copy-source-blob-properties
	metadata metadata.Set
	tier     string
	tags     blobdata.TagSet
	copyTags bool      // x-ms-copy-source-tag-option: COPY
	sums     checksums // x-ms-source-content-md5
}

func (s *Service) parsePutBlobFromURL(r *http.Request) (putBlobFromURLArgs, error) {
	var a putBlobFromURLArgs
	var err error
	if a.conds, err = parseBaseRequest(r, cond.AllConditions); err != nil {
		return a, err
	}
	if err = emptyBody(r); err != nil {
		return a, err
	}
	if a.source, err = parseSourceArgs(r, cond.AllConditions); err != nil {
		return a, err
	}
	if a.props, err = parseContentProps(r.Header, false); err != nil {
		return a, err
	}
	a.copyProp = true
	if raw := r.Header.Get("X-Ms-Copy-Source-Blob-Properties"); raw != "" {
		if a.copyProp, err = strconv.ParseBool(raw); err != nil {
			return a, azerr.InvalidHeader("x-ms-copy-source-blob-properties", raw)
		}
	}
	if a.metadata, err = metadata.Parse(r.Header); err != nil {
		return a, err
	}
	if a.tier, err = parseTier(r.Header); err != nil {
		return a, err
	}
	if a.tags, err = parseTagsHeader(r.Header.Get("X-Ms-Tags")); err != nil {
		return a, err
	}
	if a.sums.md5, err = parseMD5(r.Header, "x-ms-source-content-md5"); err != nil {
		return a, err
	}
	if a.copyTags, err = parseTagOption(r.Header, a.tags); err != nil {
		return a, err
	}
	if a.src, err = s.parseCopySource(r); err != nil {
		return a, err
	}
	return a, nil
}

// putBlobFromURL is Put Blob From URL: a block blob whose content is the
// source's (shared extents for a local source, fetched bytes otherwise),
// with the request's metadata and, unless x-ms-copy-source-blob-properties
// is false, the source's content properties where the request gives none.
// It is a Put Blob: it leaves no copy properties.
func (s *Service) putBlobFromURL(w http.ResponseWriter, r *http.Request) error {
	a, err := s.parsePutBlobFromURL(r)
	if err != nil {
		return err
	}
	var remote *fetched
	if !a.src.local {
		// The tags first: a source that refuses them costs no content.
		var tags blobdata.TagSet
		if a.copyTags {
			if tags, err = s.fetchSourceTags(r, a.src); err != nil {
				return err
			}
		}
		if remote, err = s.fetchSource(r, a.src, nil, maxPutBlobBytes, a.sums); err != nil {
			return err
		}
		remote.tags = tags
	}
	rec, err := s.writeBlobAs(r, a.conds, blobdata.WriteReplace, func(tx store.Tx, old *blobdata.Blob, refs blobdata.RefDelta) (*blobdata.Blob, error) {
		src, err := s.copyContent(tx, r, copyArgs{src: a.src, source: a.source, sourceMD5: a.sums.md5}, remote, true, maxPutBlobBytes)
		if err != nil {
			return nil, err
		}
		if old != nil && old.Committed && old.Type != blobdata.BlockBlob {
			return nil, azerr.New(azerr.InvalidBlobType)
		}
		rec, err := s.replaced(tx, r, old, refs)
		if err != nil {
			return nil, err
		}
		rec.ShareSegments(src)
		rec.Size = src.Size
		rec.Props = a.props
		if a.copyProp {
			inheritProps(&rec.Props, src.Props)
		}
		if rec.Props.Type == "" {
			rec.Props.Type = contentprops.DefaultType
		}
		rec.Metadata, rec.Tags = a.metadata, a.tags
		rec.SetTier(a.tier, s.now())
		if a.copyTags {
			rec.Tags = src.Tags
		}
		exts, err := rec.Extents()
		for _, id := range exts {
			refs.Add(id)
		}
		return rec, err
	})
	if err != nil {
		return err
	}
	h := w.Header()
	setWriteResult(h, rec)
	setIf(h, "Content-MD5", md5Base64(rec.Props.MD5))
	setRequestEncrypted(h, r)
	return write(w, http.StatusCreated)
}

// inheritProps fills the content properties the request left empty with
// the source's.
func inheritProps(p *contentprops.Props, src contentprops.Props) {
	for _, f := range []struct {
		dst *string
		v   string
	}{
		{&p.Type, src.Type}, {&p.Encoding, src.Encoding}, {&p.Language, src.Language},
		{&p.Disposition, src.Disposition}, {&p.CacheControl, src.CacheControl},
	} {
		if *f.dst == "" {
			*f.dst = f.v
		}
	}
	if p.MD5 == nil {
		p.MD5 = src.MD5
	}
}

// putBlockFromURLArgs is a parsed Put Block From URL request.
type putBlockFromURLArgs struct {
	id     string
	source sourceArgs
	src    copySource
	rng    *byterange.Range // x-ms-source-range, nil for the whole source
	sums   checksums        // x-ms-source-content-md5 / -crc64
}

func (s *Service) parsePutBlockFromURL(r *http.Request) (putBlockFromURLArgs, error) {
	var a putBlockFromURLArgs
	var err error
	if err = validContainerName(targetOf(r).Container); err != nil {
		return a, err
	}
	raw, ok := r.URL.Query()["blockid"]
	if !ok {
		return a, azerr.New(azerr.MissingRequiredQueryParameter).With("QueryParameterName", "blockid")
	}
	if a.id, err = blocklist.DecodeID(raw[0]); err != nil {
		return a, azerr.New(azerr.InvalidBlockId).With("QueryParameterName", "blockid").With("QueryParameterValue", raw[0])
	}
	if _, err = blobConditions(r, 0); err != nil {
		return a, err
	}
	if err = onlyBase(r); err != nil {
		return a, err
	}
	if err = emptyBody(r); err != nil {
		return a, err
	}
	if a.source, err = parseSourceArgs(r, sourceConditions); err != nil {
		return a, err
	}
	if v := r.Header.Get("X-Ms-Source-Range"); v != "" {
		rng, err := byterange.Parse(v)
		if err != nil {
			return a, azerr.InvalidHeader("x-ms-source-range", v)
		}
		a.rng = &rng
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

// putBlockFromURL is Put Block From URL: the source's bytes (or a range of
// them) become a staged block, as Put Block stages a body.
func (s *Service) putBlockFromURL(w http.ResponseWriter, r *http.Request) error {
	a, err := s.parsePutBlockFromURL(r)
	if err != nil {
		return err
	}
	var info extent.Info
	var crc []byte
	if a.src.local {
		info, crc, err = s.copyLocalRange(r, a)
	} else {
		var f *fetched
		if f, err = s.fetchSource(r, a.src, a.rng, maxPutBlockBytes, a.sums); err == nil {
			info, crc = extent.Info{ID: f.extent, Size: f.size, MD5: f.md5}, f.crc
		}
	}
	if err != nil {
		return err
	}
	return s.commitBlock(w, r, a.id, info, crc, bothDigests)
}

// copyLocalRange copies a range of a local source into a new extent: the
// source is read as of one snapshot of the store, its extents pinned open
// while their bytes stream across.
func (s *Service) copyLocalRange(r *http.Request, a putBlockFromURLArgs) (extent.Info, []byte, error) {
	var segs []blobdata.Segment
	var offset, length int64
	err := s.store.View(r.Context(), func(tx store.Tx) error {
		src, err := s.loadSource(tx, r, a.src, a.source, s.now())
		if err != nil {
			return err
		}
		if src.ArchivedAt(s.now()) {
			return azerr.New(azerr.BlobArchived)
		}
		offset, length = 0, src.Size
		if a.rng != nil {
			if offset, length, err = a.rng.Resolve(src.Size); err != nil {
				return azerr.New(azerr.InvalidRange)
			}
		}
		if length > maxPutBlockBytes {
			return sourceTooLarge(maxPutBlockBytes)
		}
		segs, err = src.Segments()
		return err
	})
	if err != nil {
		return extent.Info{}, nil, err
	}
	c, err := blobdata.OpenContent(r.Context(), s.extents, segs, offset, length)
	if err != nil {
		return extent.Info{}, nil, err
	}
	defer c.Close()
	pr, pw := io.Pipe()
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, err := c.WriteTo(pw)
		pw.CloseWithError(err)
	}()
	body := a.sums.copied().wrap(pr)
	info, err := s.extents.Write(r.Context(), body, length)
	// Stop the writer if Write ended early, and let it finish before the
	// content closes.
	_ = pr.CloseWithError(io.ErrClosedPipe)
	<-done
	if err != nil {
		return info, nil, err
	}
	crc := body.crc()
	return info, crc, a.sums.verify(info.MD5, crc)
}
