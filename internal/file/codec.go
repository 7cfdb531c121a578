package file

import (
	"encoding/binary"
	"errors"
	"time"
)

// Records are encoded with a small binary codec (varints and
// length-prefixed strings in tagged fields), compact and reflection-free:
// listings decode one record per entry and every file request decodes one.

// errBadRecord reports a stored record that cannot be decoded.
var errBadRecord = errors.New("file: malformed record")

// recordFormat is the first byte of every record this package writes.
const recordFormat = 1

type encoder struct{ b []byte }

func (e *encoder) byte(c byte)      { e.b = append(e.b, c) }
func (e *encoder) uvarint(n uint64) { e.b = binary.AppendUvarint(e.b, n) }
func (e *encoder) varint(n int64)   { e.b = binary.AppendVarint(e.b, n) }
func (e *encoder) str(s string)     { e.uvarint(uint64(len(s))); e.b = append(e.b, s...) }
func (e *encoder) bytes(p []byte)   { e.uvarint(uint64(len(p))); e.b = append(e.b, p...) }
func (e *encoder) time(t time.Time) { e.varint(timeNanos(t)) }

// field appends one tagged field whose payload fill writes, so that later
// formats can add fields older code skips.
func (e *encoder) field(tag byte, fill func(*encoder)) {
	var inner encoder
	fill(&inner)
	e.byte(tag)
	e.bytes(inner.b)
}

// timeNanos stores the zero time as 0 so that "unset" survives.
func timeNanos(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixNano()
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

func (d *decoder) str() string { return string(d.raw()) }

func (d *decoder) time() time.Time {
	n := d.varint()
	if n == 0 {
		return time.Time{}
	}
	return time.Unix(0, n).UTC()
}

// count reads a list length, refusing one longer than the bytes left (each
// element takes at least one byte), so corrupt input cannot allocate much.
func (d *decoder) count() int {
	n := d.uvarint()
	if n > uint64(len(d.b)) {
		d.fail()
		return 0
	}
	return int(n)
}

// fields walks the tagged fields of a record body. Unknown tags are the
// caller's to ignore.
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
