package quickquery

import bin "encoding/binary"

// A small FlatBuffers writer, enough for the Arrow IPC metadata (arrow.go):
// tables of scalars and offsets, unions, strings, and vectors of tables or
// of 16-byte structs. It writes front to back: a table comes before the
// objects it points to, so every offset (unsigned, forward) is patched once
// its target is written. Every scalar sits at a multiple of its size from
// the buffer's start, as verifiers require.

type fbWriter struct{ b []byte }

// fbField is one table field: inline scalar bytes, or an object written
// after the table (a nested table, string or vector) and pointed to.
type fbField struct {
	id     int
	scalar []byte
	object func(w *fbWriter) int // writes the object, returns its position
}

func fbInt8(id int, v uint8) fbField { return fbField{id: id, scalar: []byte{v}} }
func fbBool(id int, v bool) fbField {
	if v {
		return fbInt8(id, 1)
	}
	return fbInt8(id, 0)
}
func fbInt16(id int, v int16) fbField {
	return fbField{id: id, scalar: bin.LittleEndian.AppendUint16(nil, uint16(v))}
}
func fbInt32(id int, v int32) fbField {
	return fbField{id: id, scalar: bin.LittleEndian.AppendUint32(nil, uint32(v))}
}
func fbInt64(id int, v int64) fbField {
	return fbField{id: id, scalar: bin.LittleEndian.AppendUint64(nil, uint64(v))}
}
func fbObject(id int, write func(w *fbWriter) int) fbField { return fbField{id: id, object: write} }

func (w *fbWriter) pad(align int) {
	for len(w.b)%align != 0 {
		w.b = append(w.b, 0)
	}
}

// finish writes the buffer: the root offset, then the root table.
func (w *fbWriter) finish(root []fbField) []byte {
	w.b = append(w.b, 0, 0, 0, 0)
	pos := w.table(root)
	bin.LittleEndian.PutUint32(w.b[0:], uint32(pos))
	return w.b
}

// table writes a vtable, the table after it, then the table's objects, and
// returns the table's position.
func (w *fbWriter) table(fields []fbField) int {
	maxID := -1
	for _, f := range fields {
		maxID = max(maxID, f.id)
	}
	// The table's inline layout: its vtable offset, then each field at a
	// multiple of its size (the table itself starts at a multiple of 8).
	offsets := make([]int, len(fields))
	size := 4
	for i, f := range fields {
		n := len(f.scalar)
		if f.object != nil {
			n = 4
		}
		for size%n != 0 {
			size++
		}
		offsets[i] = size
		size += n
	}
	w.pad(2)
	vtable := len(w.b)
	w.b = bin.LittleEndian.AppendUint16(w.b, uint16(4+2*(maxID+1)))
	w.b = bin.LittleEndian.AppendUint16(w.b, uint16(size))
	slots := make([]uint16, maxID+1)
	for i, f := range fields {
		slots[f.id] = uint16(offsets[i])
	}
	for _, s := range slots {
		w.b = bin.LittleEndian.AppendUint16(w.b, s)
	}
	w.pad(8)
	start := len(w.b)
	w.b = bin.LittleEndian.AppendUint32(w.b, uint32(start-vtable))
	w.b = append(w.b, make([]byte, size-4)...)
	for i, f := range fields {
		if f.object == nil {
			copy(w.b[start+offsets[i]:], f.scalar)
		}
	}
	for i, f := range fields {
		if f.object != nil {
			w.patch(start+offsets[i], f.object(w))
		}
	}
	return start
}

// patch points the offset at slot to the object at target.
func (w *fbWriter) patch(slot, target int) {
	bin.LittleEndian.PutUint32(w.b[slot:], uint32(target-slot))
}

// str writes a string.
func (w *fbWriter) str(s string) int {
	w.pad(4)
	pos := len(w.b)
	w.b = bin.LittleEndian.AppendUint32(w.b, uint32(len(s)))
	w.b = append(w.b, s...)
	w.b = append(w.b, 0)
	return pos
}

// tables writes a vector of tables.
func (w *fbWriter) tables(items [][]fbField) int {
	w.pad(4)
	pos := len(w.b)
	w.b = bin.LittleEndian.AppendUint32(w.b, uint32(len(items)))
	w.b = append(w.b, make([]byte, 4*len(items))...)
	for i, fields := range items {
		w.patch(pos+4+4*i, w.table(fields))
	}
	return pos
}

// pairs writes a vector of structs of two int64 (Arrow's FieldNode and
// Buffer), the elements 8-aligned after the 4-byte length.
func (w *fbWriter) pairs(items [][2]int64) int {
	w.pad(4)
	if len(w.b)%8 == 0 {
		w.b = append(w.b, 0, 0, 0, 0)
	}
	pos := len(w.b)
	w.b = bin.LittleEndian.AppendUint32(w.b, uint32(len(items)))
	for _, it := range items {
		w.b = bin.LittleEndian.AppendUint64(w.b, uint64(it[0]))
		w.b = bin.LittleEndian.AppendUint64(w.b, uint64(it[1]))
	}
	return pos
}
