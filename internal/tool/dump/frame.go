package dump

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
)

// Frame types.
const (
	frameHeader byte = 'H'
	frameExtent byte = 'X'
	frameRecord byte = 'R'
	frameEnd    byte = 'E'
)

// magic opens the header body; formatVersion follows it.
const (
	magic         = "lazuli-dump"
	formatVersion = 1
)

// maxSmallFrame bounds the body of every frame but an extent's, which is
// streamed: a corrupt length must not make Load allocate without limit. It
// is far above the largest record any service writes (a block blob's list
// of 50,000 blocks, a 1 MiB table entity).
const maxSmallFrame = 256 << 20

// ErrCorrupt is wrapped by every error about a stream that is not a
// well-formed dump: bad magic, unknown frame, checksum mismatch, truncation.
var ErrCorrupt = errors.New("dump: corrupt stream")

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

func corrupt(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrCorrupt, fmt.Sprintf(format, args...))
}

// frameWriter writes frames to a buffered stream.
type frameWriter struct {
	w   *bufio.Writer
	crc uint32
}

func newFrameWriter(w io.Writer) *frameWriter {
	return &frameWriter{w: bufio.NewWriterSize(w, 256<<10)}
}

// begin writes a frame's type and body length and starts its checksum.
func (fw *frameWriter) begin(typ byte, bodyLen uint64) error {
	var head [1 + binary.MaxVarintLen64]byte
	head[0] = typ
	n := 1 + binary.PutUvarint(head[1:], bodyLen)
	fw.crc = 0
	return fw.write(head[:n])
}

// Write adds body bytes to the current frame; it makes fw an io.Writer for
// streaming an extent.
func (fw *frameWriter) Write(p []byte) (int, error) {
	if err := fw.write(p); err != nil {
		return 0, err
	}
	return len(p), nil
}

func (fw *frameWriter) write(p []byte) error {
	fw.crc = crc32.Update(fw.crc, castagnoli, p)
	_, err := fw.w.Write(p)
	return err
}

// end closes the current frame with its checksum.
func (fw *frameWriter) end() error {
	var sum [4]byte
	binary.BigEndian.PutUint32(sum[:], fw.crc)
	_, err := fw.w.Write(sum[:])
	return err
}

// frame writes a whole small frame.
func (fw *frameWriter) frame(typ byte, body []byte) error {
	if err := fw.begin(typ, uint64(len(body))); err != nil {
		return err
	}
	if err := fw.write(body); err != nil {
		return err
	}
	return fw.end()
}

func (fw *frameWriter) flush() error { return fw.w.Flush() }

// frameReader reads frames from a stream, checking each one's checksum.
type frameReader struct {
	r      *bufio.Reader
	crc    uint32
	remain uint64 // body bytes of the current frame not read yet
	buf    bytes.Buffer
}

func newFrameReader(r io.Reader) *frameReader {
	return &frameReader{r: bufio.NewReaderSize(r, 256<<10)}
}

// next reads the next frame's type and body length. It returns io.EOF only
// at a clean end of the stream, between frames.
func (fr *frameReader) next() (byte, uint64, error) {
	typ, err := fr.r.ReadByte()
	if err != nil {
		return 0, 0, err
	}
	fr.crc = crc32.Update(0, castagnoli, []byte{typ})
	n, err := binary.ReadUvarint(byteCounter{fr})
	if err != nil {
		return 0, 0, truncated(err)
	}
	fr.remain = n
	return typ, n, nil
}

// byteCounter feeds the length varint's bytes into the frame checksum.
type byteCounter struct{ fr *frameReader }

func (b byteCounter) ReadByte() (byte, error) {
	c, err := b.fr.r.ReadByte()
	if err == nil {
		b.fr.crc = crc32.Update(b.fr.crc, castagnoli, []byte{c})
	}
	return c, err
}

// body reads the rest of a small frame's body and its checksum. The buffer
// grows as bytes arrive rather than to the announced length at once, so a
// corrupt length in a short stream costs nothing. The slice is reused by the
// next call.
func (fr *frameReader) body() ([]byte, error) {
	if fr.remain > maxSmallFrame {
		return nil, corrupt("frame of %d bytes exceeds the %d-byte limit", fr.remain, maxSmallFrame)
	}
	fr.buf.Reset()
	if _, err := fr.buf.ReadFrom(io.LimitReader(fr, int64(fr.remain))); err != nil {
		return nil, err
	}
	return fr.buf.Bytes(), fr.finish()
}

// Read reads body bytes of the current frame, at most up to its end; it
// makes fr the io.Reader an extent's content is streamed from.
func (fr *frameReader) Read(p []byte) (int, error) {
	if fr.remain == 0 {
		return 0, io.EOF
	}
	if uint64(len(p)) > fr.remain {
		p = p[:fr.remain]
	}
	n, err := fr.r.Read(p)
	fr.crc = crc32.Update(fr.crc, castagnoli, p[:n])
	fr.remain -= uint64(n)
	if err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	return n, truncated(err)
}

// finish checks that the body was read whole and that the checksum matches.
func (fr *frameReader) finish() error {
	if fr.remain != 0 {
		return corrupt("frame body has %d unread bytes", fr.remain)
	}
	var sum [4]byte
	if _, err := io.ReadFull(fr.r, sum[:]); err != nil {
		return truncated(err)
	}
	if binary.BigEndian.Uint32(sum[:]) != fr.crc {
		return corrupt("frame checksum mismatch")
	}
	return nil
}

// truncated turns an unexpected end of input into a corrupt-stream error.
func truncated(err error) error {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return corrupt("stream ends in the middle of a frame")
	}
	return err
}
