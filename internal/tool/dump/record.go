package dump

import (
	"encoding/binary"
	"encoding/hex"
)

// idLen is the length of an extent ID as every engine draws it: 128 random
// bits in lower-case hexadecimal.
const idLen = 32

// ref is one extent reference inside a record: where the ID starts in the
// record's key followed by its value, and the extent's label.
type ref struct {
	pos   int
	label uint64
}

// labelText writes label as idLen hexadecimal digits, the placeholder a
// dump holds where a record names an extent.
func labelText(dst []byte, label uint64) {
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], label)
	for i := range idLen - 2*len(b) {
		dst[i] = '0'
	}
	hex.Encode(dst[idLen-2*len(b):], b[:])
}

// appendRecord appends a record frame's body: the key and value with each
// reference replaced by its label, then the references.
func appendRecord(b, key, value []byte, refs []ref) []byte {
	b = binary.AppendUvarint(b, uint64(len(key)))
	start := len(b)
	b = append(b, key...)
	b = binary.AppendUvarint(b, uint64(len(value)))
	valueStart := len(b)
	b = append(b, value...)
	for _, r := range refs {
		at := start + r.pos
		if r.pos >= len(key) {
			at = valueStart + r.pos - len(key)
		}
		labelText(b[at:at+idLen], r.label)
	}
	b = binary.AppendUvarint(b, uint64(len(refs)))
	for _, r := range refs {
		b = binary.AppendUvarint(b, uint64(r.pos))
		b = binary.AppendUvarint(b, r.label)
	}
	return b
}

// record is a decoded record frame. Key and value alias the frame body.
type record struct {
	key, value []byte
	refs       []ref
}

// parseRecord decodes a record frame's body, checking every reference: in
// order, not overlapping, inside the key or the value, naming one of the
// labels extents already seen, and holding that label's text.
func parseRecord(body []byte, labels uint64, refs []ref) (record, error) {
	d := decoder{b: body}
	rec := record{key: d.bytes(), value: d.bytes()}
	n := d.uvarint()
	if d.bad || n > uint64(len(d.b)) {
		return record{}, corrupt("malformed record frame")
	}
	rec.refs = refs[:0]
	next := 0
	var want [idLen]byte
	for range n {
		pos, label := d.uvarint(), d.uvarint()
		if d.bad {
			return record{}, corrupt("malformed record frame")
		}
		field, at, ok := locate(rec, pos, next)
		if !ok {
			return record{}, corrupt("extent reference at %d lies outside its record or overlaps another", pos)
		}
		if label >= labels {
			return record{}, corrupt("record names extent %d before its extent frame", label)
		}
		labelText(want[:], label)
		if string(field[at:at+idLen]) != string(want[:]) {
			return record{}, corrupt("extent reference at %d does not hold its label", pos)
		}
		rec.refs = append(rec.refs, ref{pos: int(pos), label: label})
		next = int(pos) + idLen
	}
	if len(d.b) != 0 {
		return record{}, corrupt("record frame has %d trailing bytes", len(d.b))
	}
	return rec, nil
}

// locate finds the field (key or value) holding a reference at pos, and the
// offset in it, when the reference starts at or after next and lies
// entirely inside that field.
func locate(rec record, pos uint64, next int) ([]byte, int, bool) {
	if pos < uint64(next) {
		return nil, 0, false
	}
	field, at := rec.key, pos
	if pos >= uint64(len(rec.key)) {
		field, at = rec.value, pos-uint64(len(rec.key))
	}
	if at+idLen > uint64(len(field)) {
		return nil, 0, false
	}
	return field, int(at), true
}

// decoder reads the varint-framed fields of a body, remembering failure.
type decoder struct {
	b   []byte
	bad bool
}

func (d *decoder) uvarint() uint64 {
	if d.bad {
		return 0
	}
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.bad = true
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *decoder) bytes() []byte {
	n := d.uvarint()
	if d.bad || n > uint64(len(d.b)) {
		d.bad = true
		return nil
	}
	out := d.b[:n:n]
	d.b = d.b[n:]
	return out
}
