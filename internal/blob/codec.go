package blob

import (
	"encoding/binary"
	"errors"
	"time"
)

// Records are encoded with a small binary codec: unsigned and signed
// varints and length-prefixed strings. It is compact and decodes without
// reflection, which matters because List Blobs and Get Blob decode a record
// per blob.

// errBadRecord reports a stored record that cannot be decoded.
var errBadRecord = errors.New("blob: malformed record")

type encoder struct{ b []byte }

func (e *encoder) byte(c byte)      { e.b = append(e.b, c) }
func (e *encoder) uvarint(n uint64) { e.b = binary.AppendUvarint(e.b, n) }
func (e *encoder) varint(n int64)   { e.b = binary.AppendVarint(e.b, n) }
func (e *encoder) str(s string)     { e.uvarint(uint64(len(s))); e.b = append(e.b, s...) }
func (e *encoder) bytes(p []byte)   { e.uvarint(uint64(len(p))); e.b = append(e.b, p...) }
func (e *encoder) bool(v bool)      { e.byte(boolByte(v)) }
func (e *encoder) time(t time.Time) { e.varint(timeNanos(t)) }
func (e *encoder) fixed64(n uint64) { e.b = binary.BigEndian.AppendUint64(e.b, n) }
func boolByte(v bool) byte {
	if v {
		return 1
	}
	return 0
}

// field appends one tagged field whose payload fill writes. Tagged fields
// let later formats add data that older code skips.
func (e *encoder) field(tag byte, fill func(*encoder)) {
	var inner encoder
	fill(&inner)
	e.byte(tag)
	e.bytes(inner.b)
}

// timeNanos stores the zero time as 0 so that "unset" survives a round trip.
func timeNanos(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixNano()
}

func nanosTime(n int64) time.Time {
	if n == 0 {
		return time.Time{}
	}
	return time.Unix(0, n).UTC()
}

type decoder struct {
	b   []byte
	err error
}

func (d *decoder) fail() { d.err = errBadRecord; d.b = nil }

func (d *decoder) byte() byte {
	if d.err != nil || len(d.b) < 1 {
		d.fail()
		return 0
	}
	c := d.b[0]
	d.b = d.b[1:]
	return c
}

func (d *decoder) uvarint() uint64 {
	if d.err != nil {
		return 0
	}
	n, size := binary.Uvarint(d.b)
	if size <= 0 {
		d.fail()
		return 0
	}
	d.b = d.b[size:]
	return n
}

func (d *decoder) varint() int64 {
	if d.err != nil {
		return 0
	}
	n, size := binary.Varint(d.b)
	if size <= 0 {
		d.fail()
		return 0
	}
	d.b = d.b[size:]
	return n
}

func (d *decoder) fixed64() uint64 {
	if d.err != nil || len(d.b) < 8 {
		d.fail()
		return 0
	}
	n := binary.BigEndian.Uint64(d.b)
	d.b = d.b[8:]
	return n
}

// raw returns the next length-prefixed byte string without copying.
func (d *decoder) raw() []byte {
	n := d.uvarint()
	if d.err != nil || uint64(len(d.b)) < n {
		d.fail()
		return nil
	}
	p := d.b[:n:n]
	d.b = d.b[n:]
	return p
}

func (d *decoder) str() string     { return string(d.raw()) }
func (d *decoder) bool() bool      { return d.byte() == 1 }
func (d *decoder) time() time.Time { return nanosTime(d.varint()) }

// fields walks the tagged fields of a record body, calling fn with a
// decoder over each payload. Unknown tags are the caller's to ignore.
func (d *decoder) fields(fn func(tag byte, payload *decoder)) {
	for d.err == nil && len(d.b) > 0 {
		tag := d.byte()
		payload := &decoder{b: d.raw()}
		if d.err != nil {
			return
		}
		fn(tag, payload)
		if payload.err != nil {
			d.err = payload.err
		}
	}
}
