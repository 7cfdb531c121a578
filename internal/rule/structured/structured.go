// Package structured reads and writes structured message bodies
// (x-ms-structured-body: XSM/1.0; properties=crc64), the framing recent
// Azure SDKs use when transfer validation is on: a 13-byte header (version
// 1, the message length, flags, the segment count), then for each segment
// its number and length, its bytes and their CRC-64, and last the CRC-64 of
// all the content. Every integer is little-endian; the CRC-64 is Azure's
// (package crc64).
//
// Uploads (Put Blob, Put Block, Put Page, Append Block, Put Range) send the
// framed body with x-ms-structured-content-length giving the content's own
// length; a download that asks for it (Get Blob, Get File) gets its
// content framed the same way.
package structured

import (
	"encoding/binary"
	"errors"
	"io"
	"net/http"
	"strconv"

	"github.com/lazuli-storage/lazuli/internal/rule/azerr"
	"github.com/lazuli-storage/lazuli/internal/rule/crc64"
)

// Header names and the one body type the service supports.
const (
	BodyHeader          = "X-Ms-Structured-Body"
	ContentLengthHeader = "X-Ms-Structured-Content-Length"
	CRC64Body           = "XSM/1.0; properties=crc64"
)

// Frame sizes, and the segment size downloads are framed with.
const (
	headerSize         = 13
	segmentHeaderSize  = 10
	segmentTrailerSize = 8
	messageTrailerSize = 8
	version            = 1
	flagCRC64          = 1
	DownloadSegment    = 4 << 20
)

// Requested reports whether a request carries or asks for a structured
// body, and checks that it names the supported type (400
// InvalidHeaderValue otherwise).
func Requested(h http.Header) (bool, error) {
	v := h.Get(BodyHeader)
	if v == "" {
		return false, nil
	}
	if v != CRC64Body {
		return false, azerr.InvalidHeader("x-ms-structured-body", v)
	}
	return true, nil
}

// AcceptUpload replaces the body of a request that carries a structured
// message with a reader of the content it frames, and sets the request's
// ContentLength to the content's length (x-ms-structured-content-length),
// so that the handler reads the content as if it had been sent plain.
// Reading past a framing error or a CRC-64 mismatch fails with the
// service's 400. It returns whether the body was structured.
func AcceptUpload(r *http.Request) (bool, error) {
	on, err := Requested(r.Header)
	if !on || err != nil {
		return false, err
	}
	raw := r.Header.Get(ContentLengthHeader)
	if raw == "" {
		return false, azerr.MissingHeader("x-ms-structured-content-length")
	}
	length, err := strconv.ParseInt(raw, 10, 64)
	if err != nil || length < 0 {
		return false, azerr.InvalidHeader("x-ms-structured-content-length", raw)
	}
	if r.ContentLength < headerSize+messageTrailerSize {
		return false, azerr.Newf(azerr.InvalidInput, "The structured message body is shorter than its header and trailer.")
	}
	r.Body = readCloser{NewDecoder(r.Body, r.ContentLength, length), r.Body}
	r.ContentLength = length
	r.Header.Set("Content-Length", strconv.FormatInt(length, 10))
	return true, nil
}

// EchoUpload marks a successful upload's response as the service does when
// the request's body was structured.
func EchoUpload(response, request http.Header) {
	if request.Get(BodyHeader) != "" {
		response.Set(BodyHeader, CRC64Body)
	}
}

// WriteDownload sends n bytes of content as a structured message body: the
// headers that announce it, then the frames, as the bytes come from write.
func WriteDownload(w http.ResponseWriter, status int, n int64, write func(io.Writer) error) error {
	h := w.Header()
	h.Set(BodyHeader, CRC64Body)
	h.Set(ContentLengthHeader, strconv.FormatInt(n, 10))
	h.Set("Content-Length", strconv.FormatInt(EncodedLength(n, DownloadSegment), 10))
	enc, err := NewEncoder(w, n, DownloadSegment)
	if err != nil {
		return err
	}
	w.WriteHeader(status)
	if err := write(enc); err != nil {
		return err
	}
	return enc.Close()
}

type readCloser struct {
	io.Reader
	io.Closer
}

// Decoder reads the content of a structured message, checking its framing
// and checksums as it goes. It fails with a *azerr.Error: 400 InvalidInput
// for framing that is not the format's, 400 Crc64Mismatch for a checksum.
type Decoder struct {
	r           io.Reader
	messageLen  int64 // declared by the transport (Content-Length)
	contentLen  int64 // declared by x-ms-structured-content-length
	started     bool
	segments    int
	segment     int   // current segment number, 1-based
	left        int64 // bytes of the current segment not yet read
	segmentCRC  uint64
	messageCRC  uint64
	contentRead int64
	done        bool
	err         error
}

// NewDecoder reads a message of messageLen bytes framing contentLen bytes.
func NewDecoder(r io.Reader, messageLen, contentLen int64) *Decoder {
	return &Decoder{r: r, messageLen: messageLen, contentLen: contentLen}
}

func malformed(what string) error {
	return azerr.Newf(azerr.InvalidInput, "The structured message body is malformed: %s.", what)
}

func (d *Decoder) Read(p []byte) (int, error) {
	if d.err != nil {
		return 0, d.err
	}
	for d.left == 0 && !d.done {
		if err := d.nextFrame(); err != nil {
			d.err = err
			return 0, err
		}
	}
	if d.done {
		return 0, io.EOF
	}
	if int64(len(p)) > d.left {
		p = p[:d.left]
	}
	n, err := d.r.Read(p)
	d.left -= int64(n)
	d.contentRead += int64(n)
	d.segmentCRC = crc64.Update(d.segmentCRC, p[:n])
	d.messageCRC = crc64.Update(d.messageCRC, p[:n])
	if err == io.EOF && d.left > 0 {
		err = io.ErrUnexpectedEOF
	}
	if err == io.EOF {
		err = nil // the segment trailer is still to come
	}
	if err != nil {
		d.err = err
	}
	return n, err
}

// nextFrame reads what lies between two segments' bytes: the message
// header, the previous segment's CRC-64, the next segment's header, or the
// message trailer.
func (d *Decoder) nextFrame() error {
	if !d.started {
		d.started = true
		return d.readHeader()
	}
	if d.segment > 0 {
		if err := d.checkCRC(d.segmentCRC, "segment"); err != nil {
			return err
		}
	}
	if d.segment == d.segments {
		if err := d.checkCRC(d.messageCRC, "message"); err != nil {
			return err
		}
		if d.contentRead != d.contentLen {
			return malformed("it frames a length other than x-ms-structured-content-length")
		}
		var extra [1]byte
		if n, _ := io.ReadFull(d.r, extra[:]); n != 0 {
			return malformed("data follows the message trailer")
		}
		d.done = true
		return nil
	}
	var h [segmentHeaderSize]byte
	if _, err := io.ReadFull(d.r, h[:]); err != nil {
		return truncated(err)
	}
	d.segment++
	if int(binary.LittleEndian.Uint16(h[:2])) != d.segment {
		return malformed("segments out of order")
	}
	length := binary.LittleEndian.Uint64(h[2:])
	if length > uint64(d.contentLen-d.contentRead) {
		return malformed("a segment is longer than the content")
	}
	d.left, d.segmentCRC = int64(length), 0
	return nil
}

func (d *Decoder) readHeader() error {
	var h [headerSize]byte
	if _, err := io.ReadFull(d.r, h[:]); err != nil {
		return truncated(err)
	}
	switch {
	case h[0] != version:
		return malformed("unsupported version")
	case int64(binary.LittleEndian.Uint64(h[1:9])) != d.messageLen:
		return malformed("its length is not the request's Content-Length")
	case binary.LittleEndian.Uint16(h[9:11])&flagCRC64 == 0:
		return malformed("it carries no CRC-64")
	}
	d.segments = int(binary.LittleEndian.Uint16(h[11:13]))
	if d.segments == 0 {
		return malformed("it has no segment")
	}
	return nil
}

func (d *Decoder) checkCRC(want uint64, what string) error {
	var b [8]byte
	if _, err := io.ReadFull(d.r, b[:]); err != nil {
		return truncated(err)
	}
	if binary.LittleEndian.Uint64(b[:]) != want {
		return azerr.Newf(azerr.Crc64Mismatch, "The CRC-64 of a structured message %s does not match its content.", what)
	}
	return nil
}

func truncated(err error) error {
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		return malformed("it ends early")
	}
	return err
}

// EncodedLength is the length of the message that frames n bytes in
// segments of segmentSize.
func EncodedLength(n int64, segmentSize int64) int64 {
	segments := max((n+segmentSize-1)/segmentSize, 1)
	return headerSize + segments*(segmentHeaderSize+segmentTrailerSize) + n + messageTrailerSize
}

// Encoder frames the n bytes written to it as one structured message in
// segments of segmentSize, writing the frames to w as the bytes come.
type Encoder struct {
	w                   io.Writer
	n, segmentSize      int64
	segments            int64
	segment             int64 // current, 1-based; 0 before the header
	left                int64 // bytes of the current segment still to come
	segmentCRC, message uint64
	written             int64
}

// NewEncoder returns an Encoder of n bytes to w.
func NewEncoder(w io.Writer, n, segmentSize int64) (*Encoder, error) {
	e := &Encoder{w: w, n: n, segmentSize: segmentSize, segments: max((n+segmentSize-1)/segmentSize, 1)}
	if e.segments > 0xFFFF {
		return nil, azerr.Newf(azerr.InvalidInput, "The range is too large for a structured message body.")
	}
	return e, nil
}

// Write frames p; writing more than n bytes in all is an error.
func (e *Encoder) Write(p []byte) (int, error) {
	if e.written+int64(len(p)) > e.n {
		return 0, errors.New("structured: more bytes written than declared")
	}
	done := 0
	for {
		if e.left == 0 {
			if err := e.boundary(); err != nil {
				return done, err
			}
		}
		if len(p) == 0 {
			return done, nil
		}
		k := min(int64(len(p)), e.left)
		chunk := p[:k]
		if _, err := e.w.Write(chunk); err != nil {
			return done, err
		}
		e.segmentCRC = crc64.Update(e.segmentCRC, chunk)
		e.message = crc64.Update(e.message, chunk)
		e.left -= k
		e.written += k
		done += int(k)
		p = p[k:]
	}
}

// boundary writes what comes before the next segment's bytes: the header,
// or the previous segment's CRC-64 and the next one's header. At the end
// it writes nothing; Close finishes the message.
func (e *Encoder) boundary() error {
	var frame []byte
	if e.segment == 0 {
		frame = append(frame, version)
		frame = binary.LittleEndian.AppendUint64(frame, uint64(EncodedLength(e.n, e.segmentSize)))
		frame = binary.LittleEndian.AppendUint16(frame, flagCRC64)
		frame = binary.LittleEndian.AppendUint16(frame, uint16(e.segments))
	} else {
		if e.segment == e.segments {
			return nil
		}
		frame = binary.LittleEndian.AppendUint64(frame, e.segmentCRC)
	}
	e.segment++
	e.left = min(e.segmentSize, e.n-(e.segment-1)*e.segmentSize)
	e.segmentCRC = 0
	frame = binary.LittleEndian.AppendUint16(frame, uint16(e.segment))
	frame = binary.LittleEndian.AppendUint64(frame, uint64(e.left))
	_, err := e.w.Write(frame)
	return err
}

// Close writes the last segment's CRC-64 and the message trailer, once all
// n bytes were written.
func (e *Encoder) Close() error {
	if e.written != e.n {
		return io.ErrShortWrite
	}
	if e.segment == 0 { // no content: one empty segment
		if err := e.boundary(); err != nil {
			return err
		}
	}
	trailer := binary.LittleEndian.AppendUint64(nil, e.segmentCRC)
	trailer = binary.LittleEndian.AppendUint64(trailer, e.message)
	_, err := e.w.Write(trailer)
	return err
}
