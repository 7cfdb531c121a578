// Package record is the compact binary codec the blob and file services
// store their records in: unsigned and signed varints, big-endian fixed
// 64-bit words, length-prefixed strings and tagged fields. It decodes
// without reflection, which matters because listings decode one record per
// entry and every request decodes at least one.
//
// The byte layout is a stored format: records written by earlier versions
// must keep decoding, so nothing here may change how a value is written.
package record

import (
	"encoding/binary"
	"errors"
	"time"
)

// ErrMalformed reports stored bytes that cannot be decoded.
var ErrMalformed = errors.New("record: malformed")

// Encoder appends values to a byte slice. The zero value is ready to use.
type Encoder struct{ b []byte }

// NewEncoder returns an Encoder whose buffer starts with room for capacity
// bytes, so a record of a known rough size is built without regrowing.
func NewEncoder(capacity int) Encoder { return Encoder{b: make([]byte, 0, capacity)} }

// Bytes returns what has been encoded so far. It aliases the buffer.
func (e *Encoder) Bytes() []byte { return e.b }

// Byte appends one byte.
func (e *Encoder) Byte(c byte) { e.b = append(e.b, c) }

// Uvarint appends n as an unsigned varint.
func (e *Encoder) Uvarint(n uint64) { e.b = binary.AppendUvarint(e.b, n) }

// Varint appends n as a zig-zag signed varint.
func (e *Encoder) Varint(n int64) { e.b = binary.AppendVarint(e.b, n) }

// Fixed64 appends n as eight big-endian bytes.
func (e *Encoder) Fixed64(n uint64) { e.b = binary.BigEndian.AppendUint64(e.b, n) }

// Str appends s with its length as an unsigned varint before it.
func (e *Encoder) Str(s string) { e.Uvarint(uint64(len(s))); e.b = append(e.b, s...) }

// Raw appends p with its length as an unsigned varint before it.
func (e *Encoder) Raw(p []byte) { e.Uvarint(uint64(len(p))); e.b = append(e.b, p...) }

// Bool appends v as one byte, 1 or 0.
func (e *Encoder) Bool(v bool) {
	if v {
		e.Byte(1)
		return
	}
	e.Byte(0)
}

// Time appends t as signed varint nanoseconds since the Unix epoch; the zero
// time is written as 0 so that "unset" survives a round trip.
func (e *Encoder) Time(t time.Time) { e.Varint(timeNanos(t)) }

// Field appends one tagged field: the tag byte, then the payload fill
// writes, length-prefixed. Tagged fields let a later format add data that
// older code skips.
func (e *Encoder) Field(tag byte, fill func(*Encoder)) {
	var inner Encoder
	fill(&inner)
	e.Byte(tag)
	e.Raw(inner.b)
}

func timeNanos(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixNano()
}

// Decoder reads values back in the order they were encoded. The first
// failure sticks: every later read returns a zero value, and Err reports
// ErrMalformed, so a decoding function may read a whole record and check
// once at the end.
type Decoder struct {
	b   []byte
	err error
}

// NewDecoder returns a Decoder over b. Strings it returns are copies;
// byte slices from Raw and Rest alias b.
func NewDecoder(b []byte) Decoder { return Decoder{b: b} }

// Err returns ErrMalformed once any read has failed, nil before.
func (d *Decoder) Err() error { return d.err }

// Fail marks the input malformed, for checks the caller makes itself (a
// count beyond its limit, an impossible value).
func (d *Decoder) Fail() { d.err = ErrMalformed; d.b = nil }

// Len returns how many bytes are left unread.
func (d *Decoder) Len() int { return len(d.b) }

// Rest returns the unread bytes without consuming or copying them.
func (d *Decoder) Rest() []byte { return d.b }

// Byte reads one byte.
func (d *Decoder) Byte() byte {
	if d.err != nil || len(d.b) < 1 {
		d.Fail()
		return 0
	}
	c := d.b[0]
	d.b = d.b[1:]
	return c
}

// Uvarint reads an unsigned varint.
func (d *Decoder) Uvarint() uint64 {
	if d.err != nil {
		return 0
	}
	n, size := binary.Uvarint(d.b)
	if size <= 0 {
		d.Fail()
		return 0
	}
	d.b = d.b[size:]
	return n
}

// Varint reads a zig-zag signed varint.
func (d *Decoder) Varint() int64 {
	if d.err != nil {
		return 0
	}
	n, size := binary.Varint(d.b)
	if size <= 0 {
		d.Fail()
		return 0
	}
	d.b = d.b[size:]
	return n
}

// Fixed64 reads eight big-endian bytes.
func (d *Decoder) Fixed64() uint64 {
	if d.err != nil || len(d.b) < 8 {
		d.Fail()
		return 0
	}
	n := binary.BigEndian.Uint64(d.b)
	d.b = d.b[8:]
	return n
}

// Raw reads a length-prefixed byte string without copying it. The result's
// capacity is its length, so appending to it cannot overwrite the input.
func (d *Decoder) Raw() []byte {
	n := d.Uvarint()
	if d.err != nil || uint64(len(d.b)) < n {
		d.Fail()
		return nil
	}
	p := d.b[:n:n]
	d.b = d.b[n:]
	return p
}

// Str reads a length-prefixed string.
func (d *Decoder) Str() string { return string(d.Raw()) }

// Bool reads one byte as a boolean: 1 is true, anything else false.
func (d *Decoder) Bool() bool { return d.Byte() == 1 }

// Time reads what Encoder.Time wrote, in UTC; 0 is the zero time.
func (d *Decoder) Time() time.Time {
	n := d.Varint()
	if n == 0 {
		return time.Time{}
	}
	return time.Unix(0, n).UTC()
}

// Count reads a list length as an unsigned varint, refusing one longer than
// the bytes left (every element takes at least one byte), so corrupt input
// cannot make the caller allocate much.
func (d *Decoder) Count() int {
	n := d.Uvarint()
	if n > uint64(len(d.b)) {
		d.Fail()
		return 0
	}
	return int(n)
}

// Fields walks the tagged fields of a record body to its end, calling fn
// with a Decoder over each payload. Unknown tags are fn's to ignore. A
// payload fn leaves partly read is fine; one it fails fails d.
func (d *Decoder) Fields(fn func(tag byte, payload *Decoder)) {
	for d.err == nil && len(d.b) > 0 {
		tag := d.Byte()
		payload := &Decoder{b: d.Raw()}
		if d.err != nil {
			return
		}
		fn(tag, payload)
		if payload.err != nil {
			d.err = payload.err
		}
	}
}
