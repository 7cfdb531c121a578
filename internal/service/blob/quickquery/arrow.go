package quickquery

import (
	"bytes"
	bin "encoding/binary"
	"math"
	"math/big"
	"strings"
)

// Arrow output (OutputSerialization of type arrow) is an Arrow IPC stream:
// a schema message, record batches as results accumulate, and the
// end-of-stream marker, carried in the resultData records as any output
// is. The request's ArrowConfiguration names each column and its type;
// the query's values are converted to them by position, and a record whose
// values do not convert is a non-fatal error, as for any record.
//
// Each message is the IPC framing (continuation marker, metadata length),
// a FlatBuffers Message (flatbuf.go) and the body, all 8-byte aligned,
// in the layout of Arrow's columnar format version 5.

// ArrowType is a column type of ArrowConfiguration, as the SDKs spell it.
type ArrowType string

const (
	ArrowInt64     ArrowType = "int64"
	ArrowBool      ArrowType = "bool"
	ArrowTimestamp ArrowType = "timestamp[ms]"
	ArrowString    ArrowType = "string"
	ArrowDouble    ArrowType = "double"
	ArrowDecimal   ArrowType = "decimal"
)

// maxDecimalPrecision is the most digits a 128-bit decimal holds.
const maxDecimalPrecision = 38

// ArrowField is one column of the Arrow output.
type ArrowField struct {
	Name string
	Type ArrowType
	// Precision and Scale are the decimal's digits in all and after the
	// point.
	Precision, Scale int
}

// arrowTypeOf reads a Type element, in any letter case.
func arrowTypeOf(s string) (ArrowType, bool) {
	for _, t := range []ArrowType{ArrowInt64, ArrowBool, ArrowTimestamp, ArrowString, ArrowDouble, ArrowDecimal} {
		if strings.EqualFold(s, string(t)) {
			return t, true
		}
	}
	return "", false
}

// arrowBatchRows is how many rows a record batch holds at most.
const arrowBatchRows = 8192

// arrowBatch accumulates rows into columns and writes them as messages.
type arrowBatch struct {
	fields        []ArrowField
	columns       []arrowColumn
	rows          int
	schemaWritten bool
}

// arrowColumn holds one column's values; which slice is used follows the
// type (bool and timestamp in ints).
type arrowColumn struct {
	valid  []bool
	ints   []int64
	floats []float64
	strs   []string
	decs   [][16]byte
}

func newArrowBatch(fields []ArrowField) *arrowBatch {
	return &arrowBatch{fields: fields, columns: make([]arrowColumn, len(fields))}
}

// add appends one row. A row of another width, or a value that does not
// convert to its column's type, is a RecordError and nothing is added.
func (a *arrowBatch) add(values []value) error {
	if len(values) != len(a.fields) {
		return &RecordError{"InvalidTypeConversion", "The record's values do not match the fields of the Arrow schema."}
	}
	cells := make([]arrowCell, len(values))
	for i, v := range values {
		c, err := toArrowCell(v, a.fields[i])
		if err != nil {
			return err
		}
		cells[i] = c
	}
	for i, c := range cells {
		col := &a.columns[i]
		col.valid = append(col.valid, !c.null)
		switch a.fields[i].Type {
		case ArrowDouble:
			col.floats = append(col.floats, c.f)
		case ArrowString:
			col.strs = append(col.strs, c.s)
		case ArrowDecimal:
			col.decs = append(col.decs, c.dec)
		default:
			col.ints = append(col.ints, c.i)
		}
	}
	a.rows++
	return nil
}

// arrowCell is one converted value.
type arrowCell struct {
	null bool
	i    int64
	f    float64
	s    string
	dec  [16]byte
}

func toArrowCell(v value, f ArrowField) (arrowCell, error) {
	var c arrowCell
	if v.isNullOrMissing() {
		c.null = true
		return c, nil
	}
	var err error
	switch f.Type {
	case ArrowInt64:
		var n value
		if n, err = v.asNumber(); err == nil {
			c.i, err = n.asInt()
		}
	case ArrowBool:
		var b bool
		b, err = v.asBool()
		if b {
			c.i = 1
		}
	case ArrowTimestamp:
		t, terr := v.asTime()
		c.i, err = t.UnixMilli(), terr
	case ArrowString:
		c.s, err = v.asString()
	case ArrowDouble:
		c.f, err = v.asFloat()
	case ArrowDecimal:
		c.dec, err = toDecimal128(v, f.Precision, f.Scale)
	}
	return c, err
}

// toDecimal128 scales a number to the column's scale (rounding half away
// from zero) as a 128-bit two's complement integer, little-endian; a value
// with more digits than the precision does not convert.
func toDecimal128(v value, precision, scale int) ([16]byte, error) {
	var out [16]byte
	var r big.Rat
	switch v.k {
	case kindInt:
		r.SetInt64(v.i)
	case kindFloat:
		if math.IsNaN(v.f) || math.IsInf(v.f, 0) {
			return out, errTypeConversion
		}
		r.SetFloat64(v.f)
	default:
		s, err := v.asString()
		if err != nil {
			return out, err
		}
		if _, ok := r.SetString(strings.TrimSpace(s)); !ok {
			return out, errTypeConversion
		}
	}
	pow := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(scale)), nil)
	r.Mul(&r, new(big.Rat).SetInt(pow))
	// Round half away from zero: (2|num| + den) / 2den, with num's sign.
	num, den := new(big.Int).Abs(r.Num()), r.Denom()
	n := new(big.Int).Add(new(big.Int).Lsh(num, 1), den)
	n.Quo(n, new(big.Int).Lsh(den, 1))
	limit := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(precision)), nil)
	if n.Cmp(limit) >= 0 {
		return out, errTypeConversion
	}
	if r.Sign() < 0 {
		// Two's complement in 128 bits.
		n.Sub(new(big.Int).Lsh(big.NewInt(1), 128), n)
	}
	b := n.FillBytes(make([]byte, 16))
	for i := range 16 {
		out[i] = b[15-i]
	}
	return out, nil
}

// writeSchema writes the schema message once.
func (a *arrowBatch) writeSchema(b *bytes.Buffer) {
	if a.schemaWritten {
		return
	}
	a.schemaWritten = true
	fields := make([][]fbField, len(a.fields))
	for i, f := range a.fields {
		typeID, typeTable := arrowTypeTable(f)
		fields[i] = []fbField{
			fbObject(0, func(w *fbWriter) int { return w.str(f.Name) }),
			fbBool(1, true),
			fbInt8(2, typeID),
			fbObject(3, func(w *fbWriter) int { return w.table(typeTable) }),
			fbObject(5, func(w *fbWriter) int { return w.tables(nil) }),
		}
	}
	schema := []fbField{
		fbInt16(0, 0), // little-endian
		fbObject(1, func(w *fbWriter) int { return w.tables(fields) }),
	}
	writeMessage(b, 1, schema, nil)
}

// arrowTypeTable is the Type union member of a field: its type ID and
// table.
func arrowTypeTable(f ArrowField) (uint8, []fbField) {
	switch f.Type {
	case ArrowInt64:
		return 2, []fbField{fbInt32(0, 64), fbBool(1, true)}
	case ArrowDouble:
		return 3, []fbField{fbInt16(0, 2)} // DOUBLE
	case ArrowString:
		return 5, nil
	case ArrowBool:
		return 6, nil
	case ArrowDecimal:
		return 7, []fbField{fbInt32(0, int32(f.Precision)), fbInt32(1, int32(f.Scale)), fbInt32(2, 128)}
	default: // timestamp[ms], without a time zone
		return 10, []fbField{fbInt16(0, 1)} // MILLISECOND
	}
}

// writeBatch writes the rows held as one record batch message and starts
// a new batch.
func (a *arrowBatch) writeBatch(b *bytes.Buffer) {
	a.writeSchema(b)
	if a.rows == 0 {
		return
	}
	var body []byte
	var nodes, buffers [][2]int64
	addBuffer := func(p []byte) {
		buffers = append(buffers, [2]int64{int64(len(body)), int64(len(p))})
		body = append(body, p...)
		for len(body)%8 != 0 {
			body = append(body, 0)
		}
	}
	for i, f := range a.fields {
		col := &a.columns[i]
		nulls := 0
		for _, ok := range col.valid {
			if !ok {
				nulls++
			}
		}
		nodes = append(nodes, [2]int64{int64(a.rows), int64(nulls)})
		addBuffer(bitmap(col.valid))
		switch f.Type {
		case ArrowBool:
			bits := make([]bool, len(col.ints))
			for j, v := range col.ints {
				bits[j] = v == 1
			}
			addBuffer(bitmap(bits))
		case ArrowDouble:
			p := make([]byte, 0, 8*len(col.floats))
			for _, v := range col.floats {
				p = bin.LittleEndian.AppendUint64(p, math.Float64bits(v))
			}
			addBuffer(p)
		case ArrowString:
			offsets := make([]byte, 0, 4*(len(col.strs)+1))
			var data []byte
			offsets = bin.LittleEndian.AppendUint32(offsets, 0)
			for _, s := range col.strs {
				data = append(data, s...)
				offsets = bin.LittleEndian.AppendUint32(offsets, uint32(len(data)))
			}
			addBuffer(offsets)
			addBuffer(data)
		case ArrowDecimal:
			p := make([]byte, 0, 16*len(col.decs))
			for _, d := range col.decs {
				p = append(p, d[:]...)
			}
			addBuffer(p)
		default:
			p := make([]byte, 0, 8*len(col.ints))
			for _, v := range col.ints {
				p = bin.LittleEndian.AppendUint64(p, uint64(v))
			}
			addBuffer(p)
		}
	}
	batch := []fbField{
		fbInt64(0, int64(a.rows)),
		fbObject(1, func(w *fbWriter) int { return w.pairs(nodes) }),
		fbObject(2, func(w *fbWriter) int { return w.pairs(buffers) }),
	}
	writeMessage(b, 3, batch, body)
	a.rows = 0
	a.columns = make([]arrowColumn, len(a.fields))
}

// writeEnd writes the schema if no batch did, then the end-of-stream
// marker.
func (a *arrowBatch) writeEnd(b *bytes.Buffer) {
	a.writeBatch(b)
	b.Write([]byte{0xFF, 0xFF, 0xFF, 0xFF, 0, 0, 0, 0})
}

// bitmap packs bits least significant first.
func bitmap(bits []bool) []byte {
	p := make([]byte, (len(bits)+7)/8)
	for i, set := range bits {
		if set {
			p[i/8] |= 1 << (i % 8)
		}
	}
	return p
}

// writeMessage frames one IPC message: the continuation marker, the
// metadata's length, the Message (version 5, header of the given union
// type) padded to 8 bytes, then the body.
func writeMessage(b *bytes.Buffer, headerType uint8, header []fbField, body []byte) {
	var w fbWriter
	meta := w.finish([]fbField{
		fbInt16(0, 4), // MetadataVersion V5
		fbInt8(1, headerType),
		fbObject(2, func(w *fbWriter) int { return w.table(header) }),
		fbInt64(3, int64(len(body))),
	})
	for len(meta)%8 != 0 {
		meta = append(meta, 0)
	}
	var prefix [8]byte
	bin.LittleEndian.PutUint32(prefix[0:], 0xFFFFFFFF)
	bin.LittleEndian.PutUint32(prefix[4:], uint32(len(meta)))
	b.Write(prefix[:])
	b.Write(meta)
	b.Write(body)
}
