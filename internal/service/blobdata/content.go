package blobdata

import (
	"context"
	"io"

	"github.com/lazuli-storage/lazuli/internal/engine/extent"
)

// eagerOpen is how many extents a read opens before it starts streaming.
// Opening pins them: an open extent survives its removal, so a concurrent
// overwrite cannot tear the read. Blobs of more blocks open the rest as
// the stream reaches them, which the collector's grace period covers.
const eagerOpen = 256

// piece is a run of bytes of one extent that a read serves.
type piece struct {
	extent string
	off, n int64
	r      extent.Reader
}

// Content is an open byte range of a blob.
type Content struct {
	engine extent.Engine
	pieces []piece
}

// OpenContent maps [offset, offset+length) of a blob's segments to extent
// pieces and opens the first ones.
func OpenContent(ctx context.Context, engine extent.Engine, segs []Segment, offset, length int64) (*Content, error) {
	c := &Content{engine: engine}
	var pos int64
	end := offset + length
	for _, s := range segs {
		segEnd := pos + s.Length
		if segEnd > offset && pos < end {
			from, to := max(pos, offset), min(segEnd, end)
			c.pieces = append(c.pieces, piece{extent: s.Extent, off: s.Offset + from - pos, n: to - from})
		}
		pos = segEnd
		if pos >= end {
			break
		}
	}
	for i := range c.pieces[:min(len(c.pieces), eagerOpen)] {
		r, err := c.open(ctx, c.pieces[i].extent)
		if err != nil {
			c.Close()
			return nil, err
		}
		c.pieces[i].r = r
	}
	return c, nil
}

// WriteTo streams the range to w, closing each extent once served.
func (c *Content) WriteTo(w io.Writer) (int64, error) {
	var total int64
	for i := range c.pieces {
		p := &c.pieces[i]
		if p.r == nil {
			r, err := c.open(context.Background(), p.extent)
			if err != nil {
				return total, err
			}
			p.r = r
		}
		n, err := copyPiece(w, p)
		total += n
		_ = p.r.Close()
		p.r = nil
		if err != nil {
			return total, err
		}
	}
	return total, nil
}

// open opens one extent; the empty ID is a hole of a page blob, which
// reads as zeros (pagemap.go).
func (c *Content) open(ctx context.Context, id string) (extent.Reader, error) {
	if id == "" {
		return ZeroReader{}, nil
	}
	return c.engine.Open(ctx, id)
}

// Close releases every extent still open.
func (c *Content) Close() {
	for i := range c.pieces {
		if c.pieces[i].r != nil {
			_ = c.pieces[i].r.Close()
			c.pieces[i].r = nil
		}
	}
}

// copyPiece writes one piece, letting the kernel move file-backed bytes
// straight to the socket when the extent engine allows it.
func copyPiece(w io.Writer, p *piece) (int64, error) {
	if s, ok := p.r.(extent.Sectioner); ok {
		src, err := s.Section(p.off, p.n)
		if err != nil {
			return 0, err
		}
		return io.Copy(w, src)
	}
	if p.n <= smallPiece {
		return writeSmallPiece(w, p)
	}
	return io.Copy(w, io.NewSectionReader(p.r, p.off, p.n))
}

// smallPiece is the size up to which a piece not served from a file is
// read whole and handed to w in one Write.
const smallPiece = 64 << 10

// writeSmallPiece reads the piece into memory and writes it with one call.
// io.Copy would go through the response's ReadFrom, which flushes the
// headers in a syscall of their own before the body; one Write lets a small
// response leave in a single segment when the handler returns.
func writeSmallPiece(w io.Writer, p *piece) (int64, error) {
	buf := make([]byte, p.n)
	n, err := p.r.ReadAt(buf, p.off)
	if n < len(buf) {
		if err == nil || err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return 0, err
	}
	written, err := w.Write(buf)
	return int64(written), err
}
