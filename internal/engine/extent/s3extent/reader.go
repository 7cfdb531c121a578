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
//
// Open costs one request: a GET of the whole object, whose response
// headers tell the size (Content-Length) and whether Remove tagged it
// (x-amz-tagging-count, Amazon S3 API Reference, GetObject, "Response
// Syntax"), and whose body the reader goes on reading while its reads
// follow one another from the start (doc.go).
func (e *Engine) Open(ctx context.Context, id string) (extent.Reader, error) {
	if err := e.open(); err != nil {
		return nil, err
	}
	if !validID(id) {
		return nil, extent.ErrNotFound
	}
	key := e.key(dataDir, id)
	body, info, _, err := e.core.GetObject(ctx, e.bucket, key, minio.GetObjectOptions{})
	if isNotFound(err) {
		return nil, extent.ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("s3extent: open %s: %w", id, ctxErr(ctx, err))
	}
	if info.UserTagCount > 0 {
		body.Close()
		return nil, extent.ErrNotFound // tagged by Remove
	}
	if info.Size < 0 {
		body.Close()
		return nil, fmt.Errorf("s3extent: open %s: the server sent no Content-Length", id)
	}
	return &reader{e: e, ctx: ctx, key: key, size: info.Size, stream: body}, nil
}

// reader reads an extent from the body of the GET that opened it while
// its reads follow one another from offset 0, and otherwise with ranged
// GETs, keeping the last window it fetched so that sequential small reads
// cost one request per window.
type reader struct {
	e    *Engine
	ctx  context.Context
	key  string
	size int64

	mu     sync.Mutex // guards the fields below; never held during a request
	closed bool
	// stream is the open GET's body, positioned at streamOff; nil once it
	// is dropped, and while a ReadAt reads from it.
	stream    io.ReadCloser
	streamOff int64
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
	if err == nil && n < len(want) {
		var m int
		m, err = r.read(want[n:], off+int64(n))
		n += m
	}
	if err == nil && len(want) < len(p) {
		err = io.EOF
	}
	return n, err
}

// read fills p from off on: from the stream when it stands at off, the
// rest by ranged GETs.
func (r *reader) read(p []byte, off int64) (int, error) {
	n, err := r.readStream(p, off)
	if err != nil || n == len(p) {
		return n, err
	}
	m, err := r.readRanged(p[n:], off+int64(n))
	return n + m, err
}

// readStream reads p from the stream if it stands at off. A stream that
// fails part way is dropped, and what it did not yield is left to ranged
// GETs: the server or a proxy may end a response that a slow caller reads
// for long. Only a cancelled request is an error here.
func (r *reader) readStream(p []byte, off int64) (int, error) {
	stream := r.takeStream(off)
	if stream == nil {
		return 0, nil
	}
	n, err := io.ReadFull(stream, p)
	if err != nil {
		stream.Close()
		return n, r.ctx.Err()
	}
	r.returnStream(stream, off+int64(n))
	return n, nil
}

// takeStream hands the stream to one ReadAt if it stands at off. A read
// anywhere else means the caller does not read in order from the start:
// the stream is closed then, so that the reader holds no connection.
func (r *reader) takeStream(off int64) io.ReadCloser {
	r.mu.Lock()
	defer r.mu.Unlock()
	stream := r.stream
	r.stream = nil
	if stream != nil && off != r.streamOff {
		stream.Close()
		return nil
	}
	return stream
}

// returnStream puts the stream back at off, or closes it if the reader was
// closed meanwhile or the stream reached the end of the extent. At the end
// it is read to EOF first, so that its connection serves other requests.
func (r *reader) returnStream(stream io.ReadCloser, off int64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.closed && off < r.size {
		r.stream, r.streamOff = stream, off
		return
	}
	if off == r.size {
		_, _ = io.Copy(io.Discard, stream)
	}
	stream.Close()
}

// readRanged fills p from off on with ranged GETs: straight into p when p
// is large, else through a window of readWindow bytes that later reads
// may find in cached.
func (r *reader) readRanged(p []byte, off int64) (int, error) {
	if len(p) >= readWindow {
		return r.fetch(p, off)
	}
	window := make([]byte, min(readWindow, r.size-off))
	if _, err := r.fetch(window, off); err != nil {
		return 0, err
	}
	r.keep(off, window)
	return copy(p, window), nil
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

// Close drops the kept window and closes the stream, unless a ReadAt is
// reading it: that one closes it when it is done.
func (r *reader) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.closed, r.window = true, nil
	if r.stream != nil {
		r.stream.Close()
		r.stream = nil
	}
	return nil
}
