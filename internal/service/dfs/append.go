package dfs

import (
	"crypto/md5"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"io"
	"net/http"
	"time"

	"github.com/lazuli-storage/lazuli/internal/engine/extent"
	"github.com/lazuli-storage/lazuli/internal/engine/store"
	"github.com/lazuli-storage/lazuli/internal/frame/request"
	"github.com/lazuli-storage/lazuli/internal/rule/azerr"
	"github.com/lazuli-storage/lazuli/internal/rule/crc64"
	"github.com/lazuli-storage/lazuli/internal/service/blobdata"
)

// maxAppendBytes is the most one append carries: "the maximum size for
// append data is 4000 MiB" (Path - Update, Content-Length), as for a block.
const maxAppendBytes = 4000 << 20

// appendData is Path - Update action=append: the body is staged as data
// of the file at ?position=, to be committed by a flush (blobdata
// appendstage.go), or at once with flush=true. Checksums the request
// declares are verified (400 Md5Mismatch, Crc64Mismatch) and answered; a
// lease on the file needs its ID, unless x-ms-lease-action takes one; a
// file written with a customer-provided key or under an encryption scope
// needs them again (cpk.go).
func (s *Service) appendData(w http.ResponseWriter, r *http.Request) error {
	pos, err := position(r)
	if err != nil {
		return err
	}
	flush, err := queryBool(r, "flush")
	if err != nil {
		return err
	}
	wl, err := parseWriteLease(r.Header, flush)
	if err != nil {
		return err
	}
	sums, err := parseBodySums(r.Header)
	if err != nil {
		return err
	}
	enc, err := s.parseEncryption(r)
	if err != nil {
		return err
	}
	length, err := bodyLength(r)
	if err != nil {
		return err
	}
	var content contentChange
	if flush {
		if content, err = parseContentHeaders(r.Header); err != nil {
			return err
		}
	}
	body, err := s.receive(r, length, sums)
	if err != nil {
		return err
	}
	t := targetOf(r)
	account := request.Of(r).Account
	renewed := false
	b, err := s.updatePath(r, func(tx store.Tx, b *blobdata.Blob, now time.Time) error {
		if b.IsDirectory() {
			return notOnDirectory()
		}
		if err := enc.check(tx, account, t, b); err != nil {
			return err
		}
		var err error
		if renewed, err = wl.before(b, now); err != nil {
			return err
		}
		if body.Size > 0 {
			data := blobdata.Block{Extent: body.ID, Size: body.Size, KeySHA256: enc.key}
			if err := blobdata.StageAppend(tx, account, t.Filesystem, t.Path, b, pos, data, now); err != nil {
				return err
			}
		}
		if !flush {
			return nil
		}
		return s.flushStaged(tx, r, b, flushArgs{position: pos + body.Size, content: content, lease: wl, enc: enc}, now)
	})
	if err != nil {
		return err
	}
	h := w.Header()
	sums.answer(h, body)
	enc.answer(h)
	if flush {
		h.Set("ETag", b.ETagString())
		h.Set("Last-Modified", httpTime(b.LastModified()))
	}
	if renewed {
		h.Set("X-Ms-Lease-Renewed", "true")
	}
	h.Set("Content-Length", "0")
	w.WriteHeader(http.StatusAccepted)
	return nil
}

// bodyLength is an append's Content-Length, which it requires (411
// MissingContentLengthHeader) and which may not pass maxAppendBytes (413
// RequestBodyTooLarge).
func bodyLength(r *http.Request) (int64, error) {
	if r.ContentLength < 0 || r.ContentLength == 0 && r.Header.Get("Content-Length") == "" {
		return 0, azerr.New(azerr.MissingContentLengthHeader)
	}
	if r.ContentLength > maxAppendBytes {
		return 0, azerr.New(azerr.RequestBodyTooLarge)
	}
	return r.ContentLength, nil
}

// bodySums are the transactional checksums an append declares for its
// body: Content-MD5 and x-ms-content-crc64, nil when absent.
type bodySums struct {
	md5, crc []byte
}

// parseBodySums reads Content-MD5 and x-ms-content-crc64: a value that is
// not Base64 of the digest's length is 400 InvalidMd5 or
// InvalidHeaderValue.
func parseBodySums(h http.Header) (bodySums, error) {
	var s bodySums
	if raw := h.Get("Content-MD5"); raw != "" {
		sum, err := base64.StdEncoding.DecodeString(raw)
		if err != nil || len(sum) != md5.Size {
			return s, azerr.New(azerr.InvalidMd5).With("HeaderName", "Content-MD5").With("HeaderValue", raw)
		}
		s.md5 = sum
	}
	if raw := h.Get("x-ms-content-crc64"); raw != "" {
		sum, err := base64.StdEncoding.DecodeString(raw)
		if err != nil || len(sum) != 8 {
			return s, azerr.InvalidHeader("x-ms-content-crc64", raw)
		}
		s.crc = sum
	}
	return s, nil
}

// received is an append's body, written to an extent.
type received struct {
	extent.Info
	crc []byte
}

// receive streams r's body into a new extent and checks it against sums.
// An empty body stores nothing.
func (s *Service) receive(r *http.Request, length int64, sums bodySums) (received, error) {
	if length == 0 {
		empty := received{Info: extent.Info{MD5: md5.Sum(nil)}, crc: make([]byte, 8)}
		return empty, sums.verify(empty.MD5, empty.crc)
	}
	tee := &crcReader{r: request.MarkReads(r.Body)}
	info, err := s.extents.Write(r.Context(), tee, length)
	switch {
	case errors.Is(err, extent.ErrTooLarge):
		return received{}, azerr.New(azerr.RequestBodyTooLarge)
	case err != nil && r.Context().Err() != nil:
		return received{}, r.Context().Err()
	case request.ShortBody(err) || err == nil && info.Size != length:
		return received{}, azerr.Newf(azerr.InvalidInput, "The request body is shorter than its Content-Length.")
	case err != nil:
		return received{}, request.BodyError(err)
	}
	got := received{Info: info, crc: binary.LittleEndian.AppendUint64(nil, tee.sum)}
	return got, sums.verify(info.MD5, got.crc)
}

// verify compares what the body hashed to with the declared checksums.
func (s bodySums) verify(md5sum [16]byte, crc []byte) error {
	if s.md5 != nil && string(s.md5) != string(md5sum[:]) {
		return azerr.New(azerr.Md5Mismatch).
			With("UserSpecifiedMd5", base64.StdEncoding.EncodeToString(s.md5)).
			With("ServerCalculatedMd5", base64.StdEncoding.EncodeToString(md5sum[:]))
	}
	if s.crc != nil && string(s.crc) != string(crc) {
		return azerr.New(azerr.Crc64Mismatch)
	}
	return nil
}

// answer returns the checksums the request declared, as the service
// computed them.
func (s bodySums) answer(h http.Header, body received) {
	if s.md5 != nil {
		h.Set("Content-MD5", base64.StdEncoding.EncodeToString(body.MD5[:]))
	}
	if s.crc != nil {
		h.Set("X-Ms-Content-Crc64", base64.StdEncoding.EncodeToString(body.crc))
	}
}

// crcReader computes the CRC-64 of what passes through it.
type crcReader struct {
	r   io.Reader
	sum uint64
}

func (c *crcReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.sum = crc64.Update(c.sum, p[:n])
	return n, err
}
