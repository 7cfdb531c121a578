package pgextent

import (
	"context"
	"errors"
	"fmt"
	"hash"
	"io"

	"github.com/lazuli-storage/lazuli/internal/engine/extent"
)

// errRemovedWhileWriting reports that the sweep (or an operator) removed an
// extent before its Write finished.
var errRemovedWhileWriting = errors.New("pgextent: extent removed while being written")

// Write streams r into a new extent, one chunk row at a time, and returns
// once every row has committed. At most limit bytes are accepted when
// limit >= 0. A failed Write deletes what it inserted.
func (e *Engine) Write(ctx context.Context, r io.Reader, limit int64) (extent.Info, error) {
	if err := e.acquire(); err != nil {
		return extent.Info{}, err
	}
	defer e.release()
	id, err := newID()
	if err != nil {
		return extent.Info{}, err
	}
	if err := ctx.Err(); err != nil {
		return extent.Info{}, err
	}
	if _, err := e.pool.Exec(ctx, e.sql.create, id, e.chunk); err != nil {
		return extent.Info{}, fmt.Errorf("pgextent: write: %w", err)
	}
	info, err := e.writeChunks(ctx, id, r, limit)
	if err != nil {
		cctx, cancel := background(ctx)
		defer cancel()
		_, _ = e.pool.Exec(cctx, e.sql.discard, id) // if this fails, the sweep collects it
		return extent.Info{}, err
	}
	return info, nil
}

// writeChunks copies r into chunk rows of extent id and records its size and
// MD5.
func (e *Engine) writeChunks(ctx context.Context, id string, r io.Reader, limit int64) (extent.Info, error) {
	bufp := e.bufs.Get().(*[]byte)
	defer e.bufs.Put(bufp)
	buf := *bufp
	if limit >= 0 && limit < 1<<62 {
		// One byte past the limit tells that the input is too large
		// without reading the rest of it.
		r = io.LimitReader(r, limit+1)
	}
	h := extent.ContentHash(ctx)
	var size int64
	for seq := 0; ; seq++ {
		n, rerr := io.ReadFull(r, buf)
		if n > 0 {
			size += int64(n)
			if limit >= 0 && size > limit {
				return extent.Info{}, extent.ErrTooLarge
			}
			if err := e.writeChunk(ctx, h, id, seq, buf[:n]); err != nil {
				return extent.Info{}, err
			}
		}
		if rerr == io.EOF || rerr == io.ErrUnexpectedEOF {
			break
		}
		if rerr != nil {
			return extent.Info{}, fmt.Errorf("pgextent: reading content: %w", rerr)
		}
	}
	info := extent.Info{ID: id, Size: size}
	h.Sum(info.MD5[:0])
	tag, err := e.pool.Exec(ctx, e.sql.finish, id, size, info.MD5[:])
	if err != nil {
		return extent.Info{}, fmt.Errorf("pgextent: write: %w", err)
	}
	if tag.RowsAffected() != 1 {
		return extent.Info{}, errRemovedWhileWriting
	}
	return info, nil
}

// writeChunk hashes and inserts one chunk row.
func (e *Engine) writeChunk(ctx context.Context, h hash.Hash, id string, seq int, data []byte) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	h.Write(data)
	if _, err := e.pool.Exec(ctx, e.sql.chunk, id, seq, data); err != nil {
		if isForeignKeyViolation(err) {
			return errRemovedWhileWriting
		}
		return fmt.Errorf("pgextent: write chunk %d: %w", seq, err)
	}
	return nil
}
