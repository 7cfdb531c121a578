package quickquery

import (
	"bytes"
	bin "encoding/binary"
	"math"
	"math/big"
	"strconv"
	"strings"
)

// Arrow output (OutputSerialization of type arrow) is an Arrow IPC stream:
// a schema message and an empty record batch in the first resultData
// record, then record batches as results accumulate, without the
// end-of-stream marker, as Azure sends it. The request's
// ArrowConfiguration names each column and its type; the query's values
// are converted to them by position, and a record whose values do not
// convert is a non-fatal error, as for any record.
//
// Each message is the IPC framing (continuation marker, metadata length),
// a FlatBuffers Message (flatbuf.go) and the body, all 8-byte aligned,
// in the layout of Arrow's columnar format version 5, byte for byte as
// Azure writes it (the recordings replayed in replay_test.go).

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
	fields  []ArrowField
	columns []arrowColumn
	rows    int
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

// errColumnCount is the fatal error of a row of another width than the
// schema, as Azure words it (replay_test.go).
var errColumnCount = &ParseError{Name: "ClientError", Msg: "Number of columns in the row does not match the schema."}

// add appends one row. A row of another width is errColumnCount; a value
// that does not convert to its column's type is a RecordError. Either way
// nothing is added.
func (a *arrowBatch) add(values []value) error {
	if len(values) != len(a.fields) {
		return errColumnCount
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
		c.dec, err = toDecimal128(v, f.Precision)
	}
	return c, err
}

// toDecimal128 writes a number as a 128-bit two's complement integer,
// little-endian. Azure does not scale the number to the column's scale:
// the number's digits as written, its decimal point dropped, are the
// unscaled integer, so that 400 in a decimal(4,2) column is sent as 400
// and read as 4.00 (the recordings replayed in replay_test.go). A number
// of more digits than the precision does not convert.
func toDecimal128(v value, precision int) ([16]byte, error) {
	var out [16]byte
	var text string
	switch v.k {
	case kindInt:
		text = strconv.FormatInt(v.i, 10)
	case kindFloat:
		if math.IsNaN(v.f) || math.IsInf(v.f, 0) {
			return out, errTypeConversion
		}
		text = strconv.FormatFloat(v.f, 'f', -1, 64)
	default:
		s, err := v.asString()
		if err != nil {
			return out, err
		}
		text = strings.TrimSpace(s)
	}
	digits, ok := decimalDigits(text)
	if !ok || len(strings.TrimLeft(strings.TrimLeft(digits, "+-"), "0")) > precision {
		return out, errTypeConversion
	}
	n, _ := new(big.Int).SetString(digits, 10)
	if n.Sign() < 0 {
		// Two's complement in 128 bits.
		n.Add(n, new(big.Int).Lsh(big.NewInt(1), 128))
	}
	b := n.FillBytes(make([]byte, 16))
	for i := range 16 {
		out[i] = b[15-i]
	}
	return out, nil
}

// decimalDigits reads a decimal number, an optional sign, digits and an
// optional point among them, and returns it without the point.
func decimalDigits(s string) (string, bool) {
	sign := ""
	if s != "" && (s[0] == '+' || s[0] == '-') {
		sign, s = s[:1], s[1:]
	}
	whole, frac, _ := strings.Cut(s, ".")
	digits := whole + frac
	if digits == "" || strings.Trim(digits, "0123456789") != "" {
		return "", false
	}
	return sign + digits, true
}

// start writes what the service sends before any row: the schema
// message and an empty record batch (as recorded from Azure, see
// replay_test.go).
func (a *arrowBatch) start(b *bytes.Buffer) {
	var w fbBuilder
	fields := make([]int, len(a.fields))
	for i, f := range a.fields {
		fields[i] = w.arrowField(f, i)
	}
	list := w.offsets(fields)
	schema := w.startTable()
	w.addOffset(1, list) // Schema.fields; endianness Little is the default
	writeMessage(b, &w, messageSchema, w.endTable(schema), nil)
	a.writeRecordBatch(b)
}

// The Message header types of Arrow's Message.fbs.
const (
	messageSchema      = 1
	messageRecordBatch = 3
)

// arrowField writes a Field table: the type, the name, the (empty)
// children, then the field, in the order Arrow's C++ writer builds them.
// A field without a name is named by its position, counted from 1.
func (w *fbBuilder) arrowField(f ArrowField, i int) int {
	typeID, typ := w.arrowType(f)
	name := f.Name
	if name == "" {
		name = strconv.Itoa(i + 1)
	}
	nameAt := w.str(name)
	children := w.offsets(nil)
	t := w.startTable()
	w.addOffset(5, children)
	w.addOffset(3, typ)
	w.addOffset(0, nameAt)
	w.addUint8(2, typeID, 0)
	w.addBool(1, true, false) // nullable
	return w.endTable(t)
}

// arrowType writes the Type union member of a field and returns its
// type ID and position (Schema.fbs).
func (w *fbBuilder) arrowType(f ArrowField) (uint8, int) {
	t := w.startTable()
	var id uint8
	switch f.Type {
	case ArrowInt64:
		id = 2
		w.addInt32(0, 64, 0)      // bitWidth
		w.addBool(1, true, false) // is_signed
	case ArrowDouble:
		id = 3
		w.addInt16(0, 2, 0) // precision DOUBLE
	case ArrowString:
		id = 5
	case ArrowBool:
		id = 6
	case ArrowDecimal:
		id = 7
		w.addInt32(2, 128, 128) // bitWidth
		w.addInt32(1, int32(f.Scale), 0)
		w.addInt32(0, int32(f.Precision), 0)
	default: // timestamp[ms], without a time zone
		id = 10
		w.addInt16(0, 1, 0) // unit MILLISECOND
	}
	return id, w.endTable(t)
}

// writeBatch writes the rows held, if any, as one record batch message
// and starts a new batch.
func (a *arrowBatch) writeBatch(b *bytes.Buffer) {
	if a.rows == 0 {
		return
	}
	a.writeRecordBatch(b)
	a.rows = 0
	a.columns = make([]arrowColumn, len(a.fields))
}

// writeRecordBatch writes the rows held as a record batch message. Each
// buffer starts at a multiple of 8 bytes of the body; a column without
// nulls has an empty validity buffer, as Arrow's writers send it.
func (a *arrowBatch) writeRecordBatch(b *bytes.Buffer) {
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
		if nulls > 0 {
			addBuffer(bitmap(col.valid))
		} else {
			addBuffer(nil)
		}
		for _, p := range col.buffers(f.Type) {
			addBuffer(p)
		}
	}
	var w fbBuilder
	nodesAt := w.pairs(nodes)
	buffersAt := w.pairs(buffers)
	batch := w.startTable()
	w.addInt64(0, int64(a.rows), 0)
	w.addOffset(2, buffersAt)
	w.addOffset(1, nodesAt)
	writeMessage(b, &w, messageRecordBatch, w.endTable(batch), body)
}

// buffers are a column's value buffers after its validity bitmap.
func (col *arrowColumn) buffers(t ArrowType) [][]byte {
	switch t {
	case ArrowBool:
		bits := make([]bool, len(col.ints))
		for j, v := range col.ints {
			bits[j] = v == 1
		}
		return [][]byte{bitmap(bits)}
	case ArrowDouble:
		p := make([]byte, 0, 8*len(col.floats))
		for _, v := range col.floats {
			p = bin.LittleEndian.AppendUint64(p, math.Float64bits(v))
		}
		return [][]byte{p}
	case ArrowString:
		offsets := make([]byte, 0, 4*(len(col.strs)+1))
		var data []byte
		offsets = bin.LittleEndian.AppendUint32(offsets, 0)
		for _, s := range col.strs {
			data = append(data, s...)
			offsets = bin.LittleEndian.AppendUint32(offsets, uint32(len(data)))
		}
		return [][]byte{offsets, data}
	case ArrowDecimal:
		p := make([]byte, 0, 16*len(col.decs))
		for _, d := range col.decs {
			p = append(p, d[:]...)
		}
		return [][]byte{p}
	default:
		p := make([]byte, 0, 8*len(col.ints))
		for _, v := range col.ints {
			p = bin.LittleEndian.AppendUint64(p, uint64(v))
		}
		return [][]byte{p}
	}
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

// writeMessage finishes the Message (MetadataVersion V5, the header of
// the given type, the body's length) and frames it as an IPC message: the
// continuation marker, the metadata's length, the metadata padded so
// that the body starts at a multiple of 8 bytes, then the body.
func writeMessage(b *bytes.Buffer, w *fbBuilder, headerType uint8, header int, body []byte) {
	msg := w.startTable()
	w.addInt64(3, int64(len(body)), 0)
	w.addOffset(2, header)
	w.addInt16(0, 4, 0) // V5
	w.addUint8(1, headerType, 0)
	meta := w.finish(w.endTable(msg))
	padded := (len(meta)+8+7)&^7 - 8
	var prefix [8]byte
	bin.LittleEndian.PutUint32(prefix[0:], 0xFFFFFFFF)
	bin.LittleEndian.PutUint32(prefix[4:], uint32(padded))
	b.Write(prefix[:])
	b.Write(meta)
	b.Write(make([]byte, padded-len(meta)))
	b.Write(body)
}
