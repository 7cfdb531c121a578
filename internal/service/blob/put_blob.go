package blob

import (
	"crypto/md5"
	"errors"
	"net/http"

	"github.com/lazuli-storage/lazuli/internal/engine/extent"
	"github.com/lazuli-storage/lazuli/internal/engine/store"
	"github.com/lazuli-storage/lazuli/internal/frame/request"
	"github.com/lazuli-storage/lazuli/internal/rule/azerr"
	"github.com/lazuli-storage/lazuli/internal/rule/cond"
	"github.com/lazuli-storage/lazuli/internal/rule/contentprops"
	"github.com/lazuli-storage/lazuli/internal/rule/metadata"
	"github.com/lazuli-storage/lazuli/internal/rule/structured"
	"github.com/lazuli-storage/lazuli/internal/service/blobdata"
)

// Body limits of the current service version (2019-12-12 and later); older
// versions had smaller ones.
const (
	maxPutBlobBytes     = 5000 << 20
	maxPutBlockBytes    = 4000 << 20
	legacyPutBlobBytes  = 256 << 20
	legacyPutBlockBytes = 100 << 20
	largeLimitsVersion  = "2019-12-12"
)

// putBlobOfNoKind answers a Put Blob that no row of the route table told
// apart: its x-ms-blob-type is missing or unknown.
func (s *Service) putBlobOfNoKind(w http.ResponseWriter, r *http.Request) error {
	if kind := r.Header.Get("X-Ms-Blob-Type"); kind != "" {
		return azerr.InvalidHeader("x-ms-blob-type", kind)
	}
	return azerr.MissingHeader("x-ms-blob-type")
}

// parseContentWrite starts parsing a request whose body is blob content
// (Put Blob, Put Page, Append Block): the container name, a structured
// message body unwrapped into the content it frames, then the conditional
// headers.
func parseContentWrite(r *http.Request) (conditions, error) {
	if err := validContainerName(targetOf(r).Container); err != nil {
		return conditions{}, err
	}
	if _, err := structured.AcceptUpload(r); err != nil {
		return conditions{}, err
	}
	return blobConditions(r, cond.AllConditions)
}

// putBlobArgs is a parsed Put Blob request.
type putBlobArgs struct {
	conds    conditions
	props    contentprops.Props
	metadata metadata.Set
	tier     string
	tags     blobdata.TagSet
	sums     checksums
	length   int64
	expiry   *expiryRequest // nil when the request sets none
}

func (s *Service) parsePutBlob(r *http.Request) (putBlobArgs, error) {
	var a putBlobArgs
	var err error
	if a.conds, err = parseContentWrite(r); err != nil {
		return a, err
	}
	if a.tags, err = parseTagsHeader(r.Header.Get("X-Ms-Tags")); err != nil {
		return a, err
	}
	if a.props, a.metadata, err = parseNewBlobHeaders(r.Header, true); err != nil {
		return a, err
	}
	if err = digestProperty(r.Header, a.props.MD5); err != nil {
		return a, err
	}
	if a.tier, err = parseTier(r.Header); err != nil {
		return a, err
	}
	if a.sums, err = parseChecksums(r.Header); err != nil {
		return a, err
	}
	if a.expiry, err = s.parseCreateExpiry(r); err != nil {
		return a, err
	}
	a.length, err = contentLength(r, versionLimit(r, largeLimitsVersion, maxPutBlobBytes, legacyPutBlobBytes))
	return a, err
}

// digestProperty checks the x-ms-blob-content-md5 of Put Blob, which unlike
// the property of Set Blob Properties or Put Block List must be a 16-byte
// digest: 400 InvalidMd5 otherwise, as quoted with its request in
// azure-sdk-for-js#9507 and azure-sdk-for-java#14430.
func digestProperty(h http.Header, sum []byte) error {
	if sum == nil || len(sum) == md5.Size {
		return nil
	}
	const name = "x-ms-blob-content-md5"
	return azerr.New(azerr.InvalidMd5).With("HeaderName", name).With("HeaderValue", h.Get(name))
}

// putBlob is Put Blob of a block blob: the body streams into one extent,
// then one Update replaces the blob's record (its content, properties and
// metadata; an active lease survives).
func (s *Service) putBlob(w http.ResponseWriter, r *http.Request) error {
	a, err := s.parsePutBlob(r)
	if err != nil {
		return err
	}
	d := a.sums.digests(request.Of(r).Version, true)
	info, crc, err := s.receive(r, a.length, a.sums, d)
	if err != nil {
		return err
	}
	if a.props.MD5 == nil {
		a.props.MD5 = info.MD5[:]
	}
	rec, err := s.writeBlobAs(r, a.conds, blobdata.WriteReplace, func(tx store.Tx, old *blobdata.Blob, refs blobdata.RefDelta) (*blobdata.Blob, error) {
		rec, err := s.replaced(tx, r, old, refs)
		if err != nil {
			return nil, err
		}
		rec.Props, rec.Metadata = a.props, a.metadata
		rec.SetTier(a.tier, s.now())
		rec.Tags = a.tags
		if err := a.expiry.apply(rec, s.now()); err != nil {
			return nil, err
		}
		if err := applyWriteHook(r, rec, s.now()); err != nil {
			return nil, err
		}
		rec.SetSegments([]blobdata.Segment{{Extent: info.ID, Length: info.Size}})
		refs.Add(info.ID)
		return rec, nil
	})
	if err != nil {
		return err
	}
	h := w.Header()
	setWriteResult(h, rec)
	d.setHeaders(h, info.MD5, crc)
	structured.EchoUpload(h, r.Header)
	setRequestEncrypted(h, r)
	return write(w, http.StatusCreated)
}

// receive streams a request body of exactly length bytes into a new extent
// and verifies the declared checksums. A body that ends early is 400.
func (s *Service) receive(r *http.Request, length int64, sums checksums, d digests) (extent.Info, []byte, error) {
	body := d.wrap(request.MarkReads(r.Body))
	ctx := r.Context()
	if !d.md5 {
		ctx = extent.WithoutMD5(ctx)
	}
	info, err := s.extents.Write(ctx, body, length)
	switch {
	case errors.Is(err, extent.ErrTooLarge):
		return info, nil, azerr.New(azerr.RequestBodyTooLarge)
	case err != nil && r.Context().Err() != nil:
		return info, nil, r.Context().Err()
	case request.ShortBody(err):
		return info, nil, azerr.Newf(azerr.InvalidInput, "The request body is shorter than its Content-Length.")
	case err != nil:
		return info, nil, request.BodyError(err)
	case info.Size != length:
		return info, nil, azerr.Newf(azerr.InvalidInput, "The request body is shorter than its Content-Length.")
	}
	crc := body.crc()
	return info, crc, sums.verify(info.MD5, crc)
}
