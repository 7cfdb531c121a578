package s3extent

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"hash"
	"io"

	"github.com/minio/minio-go/v7"

	"github.com/lazuli-storage/lazuli/internal/engine/extent"
)

// Write stores r as a new extent and returns once the object is complete on
// the server. At most limit bytes are accepted when limit >= 0. Content of
// one part at most goes up in a single PUT; more, as a multipart upload
// completed only after the last byte was read and aborted on any failure.
func (e *Engine) Write(ctx context.Context, r io.Reader, limit int64) (extent.Info, error) {
	if err := e.open(); err != nil {
		return extent.Info{}, err
	}
	id, err := newID()
	if err != nil {
		return extent.Info{}, err
	}
	bufp := e.bufs.Get().(*[]byte)
	defer e.bufs.Put(bufp)
	w := &writer{e: e, ctx: ctx, key: e.key(dataDir, id), h: extent.ContentHash(ctx), buf: *bufp, limit: limit, src: r}
	if limit >= 0 && limit < 1<<62 {
		// One byte past the limit tells that the input is too large
		// without reading the rest of it.
		w.src = io.LimitReader(r, limit+1)
	}
	n, last, err := w.readPart()
	if err == nil && !last {
		last, err = w.endsAfterPart()
	}
	if err != nil {
		return extent.Info{}, err
	}
	if last {
		err = w.putWhole(n)
	} else {
		err = w.putMultipart(id, n)
	}
	if err != nil {
		return extent.Info{}, err
	}
	info := extent.Info{ID: id, Size: w.size}
	w.h.Sum(info.MD5[:0])
	return info, nil
}

// writer is the state of one Write.
type writer struct {
	e     *Engine
	ctx   context.Context
	key   string
	h     hash.Hash
	buf   []byte
	src   io.Reader
	limit int64
	size  int64
}

// readPart fills the buffer from the input, hashing it, and reports how
// many bytes it holds and whether the input ended.
func (w *writer) readPart() (n int, last bool, err error) {
	if err := w.ctx.Err(); err != nil {
		return 0, false, err
	}
	n, rerr := io.ReadFull(w.src, w.buf)
	w.size += int64(n)
	if w.limit >= 0 && w.size > w.limit {
		return 0, false, extent.ErrTooLarge
	}
	w.h.Write(w.buf[:n])
	switch rerr {
	case nil:
		return n, false, nil
	case io.EOF, io.ErrUnexpectedEOF:
		return n, true, nil
	}
	return 0, false, fmt.Errorf("s3extent: reading content: %w", rerr)
}

// endsAfterPart reports whether the input ends right after a full first
// part, so that content of exactly one part (an 8 MiB block, as the SDKs
// stage large uploads) goes up in one PUT, not as an upload of one part:
// create, part, complete and done marker, four requests. A byte read
// ahead is put back in front of the input, where readPart counts and
// hashes it.
func (w *writer) endsAfterPart() (bool, error) {
	var next [1]byte
	n, err := io.ReadFull(w.src, next[:])
	switch {
	case n == 1:
		w.src = io.MultiReader(bytes.NewReader(next[:]), w.src)
		return false, nil
	case err == io.EOF:
		return true, nil
	}
	return false, fmt.Errorf("s3extent: reading content: %w", err)
}

// putWhole stores the n buffered bytes, the whole content, in one PUT. The
// server checks the Content-MD5 when there is one.
func (w *writer) putWhole(n int) error {
	var md5 string
	if extent.WantsMD5(w.ctx) {
		md5 = base64.StdEncoding.EncodeToString(w.h.Sum(nil))
	}
	_, err := w.e.core.PutObject(w.ctx, w.e.bucket, w.key, bytes.NewReader(w.buf[:n]), int64(n), md5, "", minio.PutObjectOptions{})
	if err != nil {
		return fmt.Errorf("s3extent: write: %w", ctxErr(w.ctx, err))
	}
	return nil
}

// putMultipart uploads the n buffered bytes as the first part and the rest
// of the input in further parts, completes the upload and writes the done
// marker. A failure aborts the upload.
func (w *writer) putMultipart(id string, n int) error {
	uploadID, err := w.e.core.NewMultipartUpload(w.ctx, w.e.bucket, w.key, minio.PutObjectOptions{})
	if err != nil {
		return fmt.Errorf("s3extent: write: %w", ctxErr(w.ctx, err))
	}
	if err := w.uploadParts(uploadID, n); err != nil {
		cctx, cancel := background(w.ctx)
		defer cancel()
		// If the abort fails too, the collector aborts the upload once it
		// is older than its orphan age.
		_ = w.e.core.AbortMultipartUpload(cctx, w.e.bucket, w.key, uploadID)
		return err
	}
	// The marker's time is the content's completion time (doc.go).
	_, err = w.e.core.PutObject(w.ctx, w.e.bucket, w.e.key(doneDir, id), bytes.NewReader(nil), 0, "", "", minio.PutObjectOptions{})
	if err != nil {
		return fmt.Errorf("s3extent: write done marker: %w", ctxErr(w.ctx, err))
	}
	return nil
}

// uploadParts sends the buffered part and the following ones, then
// completes the upload. The input may end exactly at a part boundary: no
// empty part is sent then.
func (w *writer) uploadParts(uploadID string, n int) error {
	var parts []minio.CompletePart
	for last := false; ; {
		if n > 0 {
			part, err := w.uploadPart(uploadID, len(parts)+1, n)
			if err != nil {
				return err
			}
			parts = append(parts, part)
		}
		if last {
			break
		}
		var err error
		if n, last, err = w.readPart(); err != nil {
			return err
		}
	}
	if err := w.ctx.Err(); err != nil {
		return err
	}
	_, err := w.e.core.CompleteMultipartUpload(w.ctx, w.e.bucket, w.key, uploadID, parts, minio.PutObjectOptions{})
	if err != nil {
		return fmt.Errorf("s3extent: complete upload: %w", ctxErr(w.ctx, err))
	}
	return nil
}

// uploadPart sends the n buffered bytes as part number.
func (w *writer) uploadPart(uploadID string, number, n int) (minio.CompletePart, error) {
	if err := w.ctx.Err(); err != nil {
		return minio.CompletePart{}, err
	}
	part, err := w.e.core.PutObjectPart(w.ctx, w.e.bucket, w.key, uploadID, number,
		bytes.NewReader(w.buf[:n]), int64(n), minio.PutObjectPartOptions{})
	if err != nil {
		return minio.CompletePart{}, fmt.Errorf("s3extent: write part %d: %w", number, ctxErr(w.ctx, err))
	}
	return minio.CompletePart{PartNumber: number, ETag: part.ETag}, nil
}
