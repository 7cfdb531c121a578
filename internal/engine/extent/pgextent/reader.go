package pgextent

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/lazuli-storage/lazuli/internal/engine/extent"
)

// errReaderClosed is returned by ReadAt after Close.
var errReaderClosed = errors.New("pgextent: read from a closed reader")

// Open registers a reader of extent id. Its ReadAt calls run with ctx, so
// they end with the request that opened it; Close unregisters it even when
// ctx has ended. A reader that is never closed keeps a removed extent's rows
// for readerTTL.
func (e *Engine) Open(ctx context.Context, id string) (extent.Reader, error) {
	if err := e.acquire(); err != nil {
		return nil, err
	}
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		e.release()
		return nil, err
	}
	r := &reader{e: e, ctx: ctx, id: id, token: int64(binary.LittleEndian.Uint64(b[:])), cacheSeq: -1}
	err := e.relaxed(ctx, e.sql.open, []any{id, r.token}, &r.size, &r.chunk)
	if err != nil {
		e.release()
		if errors.Is(err, pgx.ErrNoRows) {
			return nil, extent.ErrNotFound
		}
		return nil, fmt.Errorf("pgextent: open %s: %w", id, err)
	}
	return r, nil
}

// reader reads an extent's chunk rows on demand and keeps the last chunk it
// fetched, so sequential small reads cost one query per chunk.
type reader struct {
	e     *Engine
	ctx   context.Context
	id    string
	token int64
	size  int64
	chunk int64

	mu       sync.Mutex // guards the fields below; never held during a query
	closed   bool
	cacheSeq int64
	cache    []byte
}

func (r *reader) Size() int64 { return r.size }

// ReadAt fills p from offset off, with io.EOF when p reaches past the end.
// Parallel calls are safe.
func (r *reader) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 {
		return 0, fmt.Errorf("pgextent: negative offset %d", off)
	}
	if off >= r.size {
		return 0, io.EOF
	}
	want := p[:min(int64(len(p)), r.size-off)]
	n := 0
	for n < len(want) {
		pos := off + int64(n)
		seq := pos / r.chunk
		data, err := r.cached(seq)
		if err != nil {
			return n, err
		}
		if data != nil {
			n += copy(want[n:], data[pos-seq*r.chunk:])
			continue
		}
		last := (off + int64(len(want)) - 1) / r.chunk
		m, err := r.fetch(seq, last, want[n:], pos)
		n += m
		if err != nil {
			return n, err
		}
	}
	if len(want) < len(p) {
		return n, io.EOF
	}
	return n, nil
}

// cached returns the cached chunk if it is chunk seq.
func (r *reader) cached(seq int64) ([]byte, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return nil, errReaderClosed
	}
	if r.cacheSeq == seq {
		return r.cache, nil
	}
	return nil, nil
}

// fetch reads chunks first..last in one query, copying into dst the bytes
// from offset pos on, and caches the last chunk. It copies straight from the
// driver's buffer; only the cached chunk is kept.
func (r *reader) fetch(first, last int64, dst []byte, pos int64) (int, error) {
	rows, err := r.e.pool.Query(r.ctx, r.e.sql.chunks, r.id, first, last)
	if err != nil {
		return 0, fmt.Errorf("pgextent: read %s: %w", r.id, err)
	}
	defer rows.Close()
	n, expect := 0, first
	for rows.Next() {
		var seq int64
		var data pgtype.DriverBytes
		if err := rows.Scan(&seq, &data); err != nil {
			return n, fmt.Errorf("pgextent: read %s: %w", r.id, err)
		}
		if err := r.checkChunk(seq, expect, len(data)); err != nil {
			return n, err
		}
		n += copy(dst[n:], data[pos+int64(n)-seq*r.chunk:])
		if seq == last {
			r.keep(seq, data)
		}
		expect++
	}
	if err := rows.Err(); err != nil {
		return n, fmt.Errorf("pgextent: read %s: %w", r.id, err)
	}
	if expect != last+1 {
		return n, fmt.Errorf("pgextent: extent %s: chunk %d missing", r.id, expect)
	}
	return n, nil
}

// checkChunk rejects a chunk row that is not the one expected or whose
// length disagrees with the extent's size and chunk size.
func (r *reader) checkChunk(seq, expect int64, length int) error {
	if seq != expect {
		return fmt.Errorf("pgextent: extent %s: chunk %d missing", r.id, expect)
	}
	if want := min(r.chunk, r.size-seq*r.chunk); int64(length) != want {
		return fmt.Errorf("pgextent: extent %s: chunk %d has %d bytes, want %d", r.id, seq, length, want)
	}
	return nil
}

// keep caches a copy of chunk seq (data belongs to the driver).
func (r *reader) keep(seq int64, data []byte) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.closed {
		r.cacheSeq, r.cache = seq, append(r.cache[:0:0], data...)
	}
}

// Close unregisters the reader and, if it was the last reader of an extent
// removed meanwhile, deletes the extent.
func (r *reader) Close() error {
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return nil
	}
	r.closed, r.cache = true, nil
	r.mu.Unlock()
	defer r.e.release()
	ctx, cancel := background(r.ctx)
	defer cancel()
	var removed bool
	err := r.e.relaxed(ctx, r.e.sql.unregister, []any{r.id, r.token}, &removed)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil // the extent is gone already
	}
	if err != nil {
		return fmt.Errorf("pgextent: close reader of %s: %w", r.id, err)
	}
	if removed {
		if err := r.e.relaxed(ctx, r.e.sql.purge, []any{r.id}); err != nil {
			return fmt.Errorf("pgextent: delete removed extent %s: %w", r.id, err)
		}
	}
	return nil
}
