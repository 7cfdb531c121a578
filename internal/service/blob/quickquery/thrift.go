package quickquery

import (
	"errors"
	"math"

	bin "encoding/binary"
)

// A reader of Thrift's compact protocol, the encoding of Parquet's
// metadata (parquet.go): a struct decodes to its fields by ID, with
// integers as int64, binaries as []byte, lists as []any and structs as
// tStruct.

type tStruct map[int16]any

var errThrift = errors.New("malformed Thrift compact data")

type thriftReader struct {
	b   []byte
	pos int
}

func (t *thriftReader) byte() (byte, error) {
	if t.pos >= len(t.b) {
		return 0, errThrift
	}
	c := t.b[t.pos]
	t.pos++
	return c, nil
}

func (t *thriftReader) uvarint() (uint64, error) {
	v, n := bin.Uvarint(t.b[t.pos:])
	if n <= 0 {
		return 0, errThrift
	}
	t.pos += n
	return v, nil
}

func (t *thriftReader) zigzag() (int64, error) {
	u, err := t.uvarint()
	return int64(u>>1) ^ -int64(u&1), err
}

// structure reads a struct up to its stop field.
func (t *thriftReader) structure(depth int) (tStruct, error) {
	if depth > 32 {
		return nil, errThrift
	}
	s := tStruct{}
	var id int16
	for {
		h, err := t.byte()
		if err != nil {
			return nil, err
		}
		if h == 0 {
			return s, nil
		}
		if delta := int16(h >> 4); delta != 0 {
			id += delta
		} else {
			v, err := t.zigzag()
			if err != nil {
				return nil, err
			}
			id = int16(v)
		}
		typ := h & 0x0F
		switch typ {
		case 1, 2: // a boolean field holds its value in its type
			s[id] = typ == 1
			continue
		}
		v, err := t.value(typ, depth)
		if err != nil {
			return nil, err
		}
		s[id] = v
	}
}

func (t *thriftReader) value(typ byte, depth int) (any, error) {
	switch typ {
	case 1, 2: // a boolean inside a list: one byte
		c, err := t.byte()
		return c == 1, err
	case 3:
		c, err := t.byte()
		return int64(int8(c)), err
	case 4, 5, 6:
		return t.zigzag()
	case 7:
		if t.pos+8 > len(t.b) {
			return nil, errThrift
		}
		f := math.Float64frombits(bin.LittleEndian.Uint64(t.b[t.pos:]))
		t.pos += 8
		return f, nil
	case 8:
		n, err := t.uvarint()
		if err != nil || n > uint64(len(t.b)-t.pos) {
			return nil, errThrift
		}
		p := t.b[t.pos : t.pos+int(n)]
		t.pos += int(n)
		return p, nil
	case 9, 10:
		h, err := t.byte()
		if err != nil {
			return nil, err
		}
		n := uint64(h >> 4)
		if n == 15 {
			if n, err = t.uvarint(); err != nil {
				return nil, err
			}
		}
		if n > uint64(len(t.b)-t.pos) { // every element takes a byte at least
			return nil, errThrift
		}
		out := make([]any, 0, n)
		for range n {
			v, err := t.value(h&0x0F, depth+1)
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		}
		return out, nil
	case 11:
		n, err := t.uvarint()
		if err != nil || n > uint64(len(t.b)-t.pos) {
			return nil, errThrift
		}
		if n == 0 {
			return nil, nil
		}
		kv, err := t.byte()
		if err != nil {
			return nil, err
		}
		for range 2 * n { // read and dropped: Parquet's maps are metadata only
			if _, err := t.value(kv>>4, depth+1); err != nil {
				return nil, err
			}
			kv = kv<<4 | kv>>4
		}
		return nil, nil
	case 12:
		return t.structure(depth + 1)
	}
	return nil, errThrift
}

// Accessors that tolerate absent or mistyped fields.

func (s tStruct) int(id int16) int64 {
	v, _ := s[id].(int64)
	return v
}

func (s tStruct) has(id int16) bool { _, ok := s[id]; return ok }

func (s tStruct) str(id int16) string {
	v, _ := s[id].([]byte)
	return string(v)
}

func (s tStruct) sub(id int16) tStruct {
	v, _ := s[id].(tStruct)
	return v
}

func (s tStruct) list(id int16) []any {
	v, _ := s[id].([]any)
	return v
}
