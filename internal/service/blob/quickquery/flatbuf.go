package quickquery

import (
	"bytes"
	bin "encoding/binary"
)

// A FlatBuffers builder, enough for the Arrow IPC metadata (arrow.go):
// tables of scalars and offsets, strings, and vectors of offsets or of
// 16-byte structs.
//
// FlatBuffers allow many layouts of the same tables; Azure answers with
// the one of the format's reference builder (FlatBufferBuilder of the
// flatbuffers library, which Apache Arrow's C++ IPC writer uses), and so
// does this one, byte for byte: the buffer grows from its end toward its
// start, so that an object is written before the objects that point to
// it; each scalar is aligned to its size counted from the end, and the
// finished buffer to the largest alignment used; a table field equal to
// its default is left out; a table's vtable is written just before it,
// or, when an identical vtable (the same size, object size and field
// offsets) was written before, that one is shared.

type fbBuilder struct {
	buf      []byte // the bytes written sit at buf[head:]
	head     int
	minAlign int
	// The open table's fields, by vtable slot, and where each ends,
	// counted from the buffer's end.
	fields  []fbFieldLoc
	vtables []int // where each vtable written starts, counted from the end
}

type fbFieldLoc struct{ slot, at int }

// size is how many bytes are written.
func (b *fbBuilder) size() int { return len(b.buf) - b.head }

// reserve makes room for n more bytes in front of those written.
func (b *fbBuilder) reserve(n int) {
	if b.head >= n {
		return
	}
	grown := make([]byte, max(2*len(b.buf), b.size()+n, 256))
	head := len(grown) - b.size()
	copy(grown[head:], b.buf[b.head:])
	b.buf, b.head = grown, head
}

func (b *fbBuilder) prepend(p []byte) {
	b.reserve(len(p))
	b.head -= len(p)
	copy(b.buf[b.head:], p)
}

func (b *fbBuilder) zeros(n int) {
	b.reserve(n)
	b.head -= n
	clear(b.buf[b.head : b.head+n])
}

// preAlign pads so that, after n more bytes, the size is a multiple of
// align.
func (b *fbBuilder) preAlign(n, align int) {
	b.minAlign = max(b.minAlign, align)
	b.zeros(-(b.size() + n) & (align - 1))
}

// scalar writes a little-endian scalar at its alignment and returns its
// position.
func (b *fbBuilder) scalar(p []byte) int {
	b.preAlign(0, len(p))
	b.prepend(p)
	return b.size()
}

func (b *fbBuilder) uint32(v uint32) int { return b.scalar(bin.LittleEndian.AppendUint32(nil, v)) }

// offset writes a reference to the object at target.
func (b *fbBuilder) offset(target int) int {
	b.preAlign(0, 4)
	return b.uint32(uint32(b.size() + 4 - target))
}

// startTable opens a table; it returns the position its fields start at.
func (b *fbBuilder) startTable() int {
	b.fields = b.fields[:0]
	return b.size()
}

// The table fields, by slot (the field's index in the schema), each left
// out when equal to its default.
func (b *fbBuilder) addUint8(slot int, v, def uint8) {
	if v != def {
		b.field(slot, b.scalar([]byte{v}))
	}
}

func (b *fbBuilder) addBool(slot int, v, def bool) {
	if v != def {
		var p byte
		if v {
			p = 1
		}
		b.field(slot, b.scalar([]byte{p}))
	}
}

func (b *fbBuilder) addInt16(slot int, v, def int16) {
	if v != def {
		b.field(slot, b.scalar(bin.LittleEndian.AppendUint16(nil, uint16(v))))
	}
}

func (b *fbBuilder) addInt32(slot int, v, def int32) {
	if v != def {
		b.field(slot, b.scalar(bin.LittleEndian.AppendUint32(nil, uint32(v))))
	}
}

func (b *fbBuilder) addInt64(slot int, v, def int64) {
	if v != def {
		b.field(slot, b.scalar(bin.LittleEndian.AppendUint64(nil, uint64(v))))
	}
}

// addOffset points a field at the object written at target.
func (b *fbBuilder) addOffset(slot, target int) { b.field(slot, b.offset(target)) }

func (b *fbBuilder) field(slot, at int) { b.fields = append(b.fields, fbFieldLoc{slot, at}) }

// endTable closes the table opened at start and returns its position.
func (b *fbBuilder) endTable(start int) int {
	table := b.scalar([]byte{0, 0, 0, 0}) // the vtable's offset, set below
	slots := 0
	for _, f := range b.fields {
		slots = max(slots, f.slot+1)
	}
	vtable := make([]byte, 4+2*slots)
	bin.LittleEndian.PutUint16(vtable[0:], uint16(len(vtable)))
	bin.LittleEndian.PutUint16(vtable[2:], uint16(table-start))
	for _, f := range b.fields {
		bin.LittleEndian.PutUint16(vtable[4+2*f.slot:], uint16(table-f.at))
	}
	use := 0
	for _, at := range b.vtables {
		// The vtable's first bytes are its size: a match is the same size.
		if bytes.HasPrefix(b.buf[len(b.buf)-at:], vtable) {
			use = at
			break
		}
	}
	if use == 0 {
		b.prepend(vtable)
		use = b.size()
		b.vtables = append(b.vtables, use)
	}
	bin.LittleEndian.PutUint32(b.buf[len(b.buf)-table:], uint32(int32(use-table)))
	return table
}

// str writes a string: its length, its bytes and a terminating zero.
func (b *fbBuilder) str(s string) int {
	b.preAlign(len(s)+1, 4)
	b.zeros(1)
	b.prepend([]byte(s))
	return b.uint32(uint32(len(s)))
}

// offsets writes a vector of references to the objects at targets.
func (b *fbBuilder) offsets(targets []int) int {
	b.preAlign(4*len(targets), 4)
	for i := len(targets) - 1; i >= 0; i-- {
		b.offset(targets[i])
	}
	return b.uint32(uint32(len(targets)))
}

// pairs writes a vector of structs of two int64 (Arrow's FieldNode and
// Buffer), 8-aligned.
func (b *fbBuilder) pairs(items [][2]int64) int {
	b.preAlign(16*len(items), 4)
	b.preAlign(16*len(items), 8)
	for i := len(items) - 1; i >= 0; i-- {
		b.prepend(bin.LittleEndian.AppendUint64(bin.LittleEndian.AppendUint64(nil, uint64(items[i][0])), uint64(items[i][1])))
	}
	return b.uint32(uint32(len(items)))
}

// finish writes the reference to the root table and returns the buffer.
func (b *fbBuilder) finish(root int) []byte {
	b.preAlign(4, b.minAlign)
	b.offset(root)
	return b.buf[b.head:]
}
