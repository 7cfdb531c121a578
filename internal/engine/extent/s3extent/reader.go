package s3extent

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/minio/minio-go/v7"

	"github.com/lazuli-storage/lazuli/internal/engine/extent"
)

// readWindow is the least a ranged GET fetches: callers such as
// io.SectionReader under io.Copy read 32 KiB at a time, and one request per
// 32 KiB would cost more in round trips than in bytes.
const readWindow = 4 << 20

// errReaderClosed is returned by ReadAt after Close.
var errReaderClosed = errors.New("s3extent: read from a closed reader")

// Open returns a reader of extent id, or extent.ErrNotFound if it does not
// exist or was removed. Its ReadAt calls run with ctx, so they end with the
// request that opened it.
func (e *Engine) Open(ctx context.Context, id string) (extent.Reader, error) {
	if err := e.open(); err != nil {
		return nil, err
	}
	if !validID(id) {
		return nil, extent.ErrNotFound
	}
	info, err := e.client.StatObject(ctx, e.bucket, e.key(dataDir, id), minio.StatObjectOptions{})
	if isNotFound(err) {
		return nil, extent.ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("s3extent: open %s: %w", id, ctxErr(ctx, err))
	}
	removed, err := e.exists(ctx, e.key(removedDir, id))
	if err != nil {
		return nil, fmt.Errorf("s3extent: open %s: %w", id, err)
	}
	if removed {
		return nil, extent.ErrNotFound
	}
	return &reader{e: e, ctx: ctx, key: info.Key, size: info.Size}, nil
}

// reader reads an extent with ranged GETs and keeps the last window it
// fetched, so sequential small reads cost one request per window.
type reader struct {
	e    *Engine
	ctx  context.Context
	key  string
	size int64

	mu        sync.Mutex // guards the fields below; never held during a request
	closed    bool
	windowOff int64
	window    []byte
}

func (r *reader) Size() int64 { return r.size }

// ReadAt fills p from offset off, with io.EOF when p reaches past the end.
// Parallel calls are safe.
func (r *reader) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 {
		return 0, fmt.Errorf("s3extent: negative offset %d", off)
	}
	if off >= r.size {
		return 0, io.EOF
	}
	want := p[:min(int64(len(p)), r.size-off)]
	n, err := r.cached(want, off)
	if err != nil || n == len(want) {
		return n, err
	}
	pos := off + int64(n)
	if len(want)-n >= readWindow {
		// A large read goes straight into p.
		m, err := r.fetch(want[n:], pos)
		n += m
		if err != nil {
			return n, err
		}
	} else {
		window := make([]byte, min(readWindow, r.size-pos))
		if _, err := r.fetch(window, pos); err != nil {
			return n, err
		}
		r.keep(pos, window)
		n += copy(want[n:], window)
	}
	if len(want) < len(p) {
		return n, io.EOF
	}
	return n, nil
}

// cached copies into p what the kept window holds from off on.
func (r *reader) cached(p []byte, off int64) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return 0, errReaderClosed
	}
	if off < r.windowOff || off >= r.windowOff+int64(len(r.window)) {
		return 0, nil
	}
	return copy(p, r.window[off-r.windowOff:]), nil
}

func (r *reader) keep(off int64, window []byte) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.closed {
		r.windowOff, r.window = off, window
	}
}

// fetch fills dst with the bytes from off on by one ranged GET (RFC 9110
// section 14.2), failing if the object holds fewer.
func (r *reader) fetch(dst []byte, off int64) (int, error) {
	opts := minio.GetObjectOptions{}
	if err := opts.SetRange(off, off+int64(len(dst))-1); err != nil {
		return 0, err
	}
	body, _, _, err := r.e.core.GetObject(r.ctx, r.e.bucket, r.key, opts)
	if err != nil {
		return 0, fmt.Errorf("s3extent: read %s: %w", r.key, ctxErr(r.ctx, err))
	}
	defer body.Close()
	n, err := io.ReadFull(body, dst)
	if err != nil {
		return n, fmt.Errorf("s3extent: read %s at %d: %w", r.key, off, ctxErr(r.ctx, err))
	}
	return n, nil
}

// Close drops the kept window; nothing on the server tracks the reader.
func (r *reader) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.closed, r.window = true, nil
	return nil
}
