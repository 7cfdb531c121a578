package quickquery

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"

	bin "encoding/binary"
)

// Parquet input: the blob is read whole (up to maxParquetBytes), its
// footer's metadata decoded (thrift.go), and each row group's columns
// decoded into values, row by row. What is read: flat schemas (columns of
// the root, required or optional), the physical types with the STRING,
// DATE, TIMESTAMP and DECIMAL annotations, PLAIN and dictionary
// encodings, data pages of versions 1 and 2, and the UNCOMPRESSED, SNAPPY
// (snappy.go) and GZIP codecs. Anything else ends the query with a fatal
// error record naming it.

// maxParquetBytes bounds the blob a Parquet query reads into memory, and
// maxParquetGroupRows the rows of one row group it decodes at once (a
// run-length encoded column can claim any number in a few bytes).
const (
	maxParquetBytes     = 256 << 20
	maxParquetGroupRows = 1 << 22
)

var parquetMagic = []byte("PAR1")

type parquetColumn struct {
	name      string
	physical  int64 // 0 BOOLEAN 1 INT32 2 INT64 3 INT96 4 FLOAT 5 DOUBLE 6 BYTE_ARRAY 7 FIXED_LEN_BYTE_ARRAY
	typeLen   int
	optional  bool
	converted int64 // -1 when absent
	logical   tStruct
	scale     int
}

type parquetReader struct {
	data    []byte
	columns []parquetColumn
	groups  []tStruct
	group   int
	rows    [][]value // the current row group, by column
	row     int
	offset  int64 // where the current row group's data starts
}

// parquetError ends the query with a fatal error record.
func parquetError(format string, args ...any) error {
	return &ParseError{Msg: "Parquet: " + fmt.Sprintf(format, args...)}
}

func newParquetReader(in io.Reader) (*parquetReader, error) {
	data, err := io.ReadAll(io.LimitReader(in, maxParquetBytes+1))
	if err != nil {
		return nil, err
	}
	if len(data) > maxParquetBytes {
		return nil, parquetError("the blob is larger than %d bytes, the most a Parquet query reads", maxParquetBytes)
	}
	n := len(data)
	if n < 12 || !bytes.Equal(data[:4], parquetMagic) || !bytes.Equal(data[n-4:], parquetMagic) {
		return nil, parquetError("the blob is not a Parquet file")
	}
	footer := int(bin.LittleEndian.Uint32(data[n-8:]))
	if footer > n-12 {
		return nil, parquetError("the footer is malformed")
	}
	t := &thriftReader{b: data[n-8-footer : n-8]}
	meta, err := t.structure(0)
	if err != nil {
		return nil, parquetError("the footer is malformed")
	}
	p := &parquetReader{data: data, rows: nil}
	if p.columns, err = parquetSchema(meta.list(2)); err != nil {
		return nil, err
	}
	for _, g := range meta.list(4) {
		if s, ok := g.(tStruct); ok {
			p.groups = append(p.groups, s)
		}
	}
	return p, nil
}

// parquetSchema reads the flattened schema: the root, then its columns.
func parquetSchema(elems []any) ([]parquetColumn, error) {
	if len(elems) == 0 {
		return nil, parquetError("the schema is empty")
	}
	var cols []parquetColumn
	for _, e := range elems[1:] {
		s, _ := e.(tStruct)
		if s.int(5) > 0 || s.int(3) == 2 {
			return nil, parquetError("column %q is nested or repeated, which is not supported", s.str(4))
		}
		c := parquetColumn{name: s.str(4), physical: s.int(1), typeLen: int(s.int(2)), optional: s.int(3) == 1,
			converted: -1, logical: s.sub(10), scale: int(s.int(7))}
		if s.has(6) {
			c.converted = s.int(6)
		}
		cols = append(cols, c)
	}
	return cols, nil
}

func (p *parquetReader) scanned() int64 { return int64(len(p.data)) }

func (p *parquetReader) next() (record, int64, error) {
	for p.rows == nil || p.row >= len(p.rows[0]) {
		if p.group >= len(p.groups) {
			return nil, 0, io.EOF
		}
		if err := p.loadGroup(p.groups[p.group]); err != nil {
			return nil, 0, err
		}
		p.group++
		if len(p.columns) == 0 {
			return nil, 0, io.EOF
		}
	}
	values := make([]value, len(p.columns))
	for i := range p.columns {
		values[i] = p.rows[i][p.row]
	}
	p.row++
	return &parquetRecord{columns: p.columns, values: values}, p.offset, nil
}

// loadGroup decodes every column of a row group.
func (p *parquetReader) loadGroup(g tStruct) error {
	chunks := g.list(1)
	rows := int(g.int(3))
	if len(chunks) != len(p.columns) || rows < 0 {
		return parquetError("a row group does not match the schema")
	}
	if rows > maxParquetGroupRows {
		return parquetError("a row group has more than %d rows, the most a query reads at once", maxParquetGroupRows)
	}
	p.rows, p.row = make([][]value, len(p.columns)), 0
	for i, ch := range chunks {
		chunk, _ := ch.(tStruct)
		meta := chunk.sub(3)
		start := meta.int(9)
		if d := meta.int(11); d > 0 && d < start {
			start = d
		}
		if i == 0 {
			p.offset = start
		}
		vals, err := p.readChunk(p.columns[i], meta, start, rows)
		if err != nil {
			return err
		}
		p.rows[i] = vals
	}
	return nil
}

// readChunk decodes the pages of one column chunk into rows values.
func (p *parquetReader) readChunk(c parquetColumn, meta tStruct, start int64, rows int) ([]value, error) {
	codec := meta.int(4)
	pos := start
	var dict []value
	out := make([]value, 0, rows)
	for len(out) < rows {
		if pos < 0 || pos >= int64(len(p.data)) {
			return nil, parquetError("column %q runs past the file", c.name)
		}
		t := &thriftReader{b: p.data[pos:]}
		h, err := t.structure(0)
		if err != nil {
			return nil, parquetError("a page header of column %q is malformed", c.name)
		}
		body := pos + int64(t.pos)
		size := h.int(3)
		if size < 0 || body+size > int64(len(p.data)) {
			return nil, parquetError("a page of column %q runs past the file", c.name)
		}
		page := p.data[body : body+size]
		pos = body + size
		n := int(h.sub(5).int(1))
		switch h.int(1) {
		case 2:
			n = int(h.sub(7).int(1))
		case 3:
			n = int(h.sub(8).int(1))
		}
		// A dictionary holds at most a value per bit of its page; a data
		// page at most the rows left.
		if n < 0 || (h.int(1) == 2 && n > 8*int(h.int(2))) || (h.int(1) != 2 && n > rows-len(out)) {
			return nil, parquetError("a page of column %q claims more values than it can hold", c.name)
		}
		switch h.int(1) {
		case 2: // dictionary
			raw, err := decompress(codec, page, int(h.int(2)))
			if err != nil {
				return nil, err
			}
			if dict, _, err = plainValues(c, raw, n); err != nil {
				return nil, err
			}
		case 0: // data page v1
			raw, err := decompress(codec, page, int(h.int(2)))
			if err != nil {
				return nil, err
			}
			dh := h.sub(5)
			if out, err = decodeDataPage(c, raw, n, dh.int(2), dict, out); err != nil {
				return nil, err
			}
		case 3: // data page v2: levels uncompressed before the values
			dh := h.sub(8)
			levels := dh.int(5) + dh.int(6)
			if dh.int(5) < 0 || dh.int(6) < 0 || levels > int64(len(page)) {
				return nil, parquetError("a page of column %q is malformed", c.name)
			}
			values := page[levels:]
			if !dh.has(7) || dh[7] == true {
				if values, err = decompress(codec, values, int(h.int(2)-levels)); err != nil {
					return nil, err
				}
			}
			raw := append(bytes.Clone(page[dh.int(6):levels]), values...)
			if out, err = decodeDataPageV2(c, raw, n, int(dh.int(5)), dh.int(4), dict, out); err != nil {
				return nil, err
			}
		}
	}
	return out[:rows], nil
}

func decodeDataPage(c parquetColumn, raw []byte, n int, encoding int64, dict, out []value) ([]value, error) {
	defined := make([]bool, n)
	for i := range defined {
		defined[i] = true
	}
	if c.optional {
		if len(raw) < 4 {
			return nil, parquetError("a page of column %q is malformed", c.name)
		}
		l := int(bin.LittleEndian.Uint32(raw))
		if l > len(raw)-4 {
			return nil, parquetError("a page of column %q is malformed", c.name)
		}
		levels, err := rleHybrid(raw[4:4+l], 1, n)
		if err != nil {
			return nil, parquetError("the definition levels of column %q are malformed", c.name)
		}
		for i, v := range levels {
			defined[i] = v == 1
		}
		raw = raw[4+l:]
	}
	return decodeValues(c, raw, defined, encoding, dict, out)
}

func decodeDataPageV2(c parquetColumn, raw []byte, n, defLen int, encoding int64, dict, out []value) ([]value, error) {
	defined := make([]bool, n)
	for i := range defined {
		defined[i] = true
	}
	if c.optional {
		levels, err := rleHybrid(raw[:defLen], 1, n)
		if err != nil {
			return nil, parquetError("the definition levels of column %q are malformed", c.name)
		}
		for i, v := range levels {
			defined[i] = v == 1
		}
	}
	return decodeValues(c, raw[defLen:], defined, encoding, dict, out)
}

// decodeValues appends a page's values, NULL where not defined.
func decodeValues(c parquetColumn, raw []byte, defined []bool, encoding int64, dict, out []value) ([]value, error) {
	count := 0
	for _, d := range defined {
		if d {
			count++
		}
	}
	var vals []value
	var err error
	switch encoding {
	case 0: // PLAIN
		vals, _, err = plainValues(c, raw, count)
	case 2, 8: // PLAIN_DICTIONARY, RLE_DICTIONARY
		if len(raw) < 1 {
			return nil, parquetError("a page of column %q is malformed", c.name)
		}
		var idx []uint64
		if idx, err = rleHybrid(raw[1:], int(raw[0]), count); err == nil {
			vals = make([]value, count)
			for i, k := range idx {
				if k >= uint64(len(dict)) {
					return nil, parquetError("column %q names a dictionary entry it does not have", c.name)
				}
				vals[i] = dict[k]
			}
		}
	case 3: // RLE, booleans
		if c.physical != 0 || len(raw) < 4 {
			return nil, parquetError("column %q uses an encoding that is not supported", c.name)
		}
		var bits []uint64
		if bits, err = rleHybrid(raw[4:], 1, count); err == nil {
			vals = make([]value, count)
			for i, b := range bits {
				vals[i] = boolValue(b == 1)
			}
		}
	default:
		return nil, parquetError("column %q uses encoding %d, which is not supported", c.name, encoding)
	}
	if err != nil {
		return nil, parquetError("the values of column %q are malformed", c.name)
	}
	j := 0
	for _, d := range defined {
		if d {
			out = append(out, vals[j])
			j++
		} else {
			out = append(out, null)
		}
	}
	return out, nil
}

// plainValues decodes n PLAIN values.
func plainValues(c parquetColumn, raw []byte, n int) ([]value, int, error) {
	out := make([]value, 0, n)
	pos := 0
	need := func(k int) bool { return pos+k <= len(raw) }
	for i := 0; i < n; i++ {
		switch c.physical {
		case 0:
			if i/8 >= len(raw) {
				return nil, 0, parquetError("the values of column %q are malformed", c.name)
			}
			out = append(out, boolValue(raw[i/8]>>(i%8)&1 == 1))
			continue
		case 1:
			if !need(4) {
				return nil, 0, parquetError("the values of column %q are malformed", c.name)
			}
			out = append(out, c.fromInt(int64(int32(bin.LittleEndian.Uint32(raw[pos:])))))
			pos += 4
		case 2:
			if !need(8) {
				return nil, 0, parquetError("the values of column %q are malformed", c.name)
			}
			out = append(out, c.fromInt(int64(bin.LittleEndian.Uint64(raw[pos:]))))
			pos += 8
		case 3: // INT96: nanoseconds of the day, then the Julian day
			if !need(12) {
				return nil, 0, parquetError("the values of column %q are malformed", c.name)
			}
			nanos := int64(bin.LittleEndian.Uint64(raw[pos:]))
			day := int64(bin.LittleEndian.Uint32(raw[pos+8:]))
			out = append(out, timeValue(time.Unix((day-2440588)*86400, nanos).UTC()))
			pos += 12
		case 4:
			if !need(4) {
				return nil, 0, parquetError("the values of column %q are malformed", c.name)
			}
			out = append(out, floatValue(float64(math.Float32frombits(bin.LittleEndian.Uint32(raw[pos:])))))
			pos += 4
		case 5:
			if !need(8) {
				return nil, 0, parquetError("the values of column %q are malformed", c.name)
			}
			out = append(out, floatValue(math.Float64frombits(bin.LittleEndian.Uint64(raw[pos:]))))
			pos += 8
		case 6, 7:
			l := c.typeLen
			if c.physical == 6 {
				if !need(4) {
					return nil, 0, parquetError("the values of column %q are malformed", c.name)
				}
				l = int(bin.LittleEndian.Uint32(raw[pos:]))
				pos += 4
			}
			if l < 0 || !need(l) {
				return nil, 0, parquetError("the values of column %q are malformed", c.name)
			}
			out = append(out, c.fromBytes(raw[pos:pos+l]))
			pos += l
		default:
			return nil, 0, parquetError("column %q has a type that is not supported", c.name)
		}
	}
	return out, pos, nil
}

// fromInt applies an integer column's annotation: a date, a timestamp, a
// decimal, or a plain integer.
func (c parquetColumn) fromInt(i int64) value {
	switch {
	case c.logical.has(6) || c.converted == 6: // DATE: days since the epoch
		return timeValue(time.Unix(i*86400, 0).UTC())
	case c.logical.has(8):
		switch unit := c.logical.sub(8).sub(2); {
		case unit.has(1):
			return timeValue(time.UnixMilli(i).UTC())
		case unit.has(2):
			return timeValue(time.UnixMicro(i).UTC())
		default:
			return timeValue(time.Unix(0, i).UTC())
		}
	case c.converted == 9:
		return timeValue(time.UnixMilli(i).UTC())
	case c.converted == 10:
		return timeValue(time.UnixMicro(i).UTC())
	case c.logical.has(5) || c.converted == 5:
		return floatValue(float64(i) / math.Pow10(c.decimalScale()))
	}
	return intValue(i)
}

// fromBytes reads a byte array: a decimal's unscaled big-endian integer,
// else text.
func (c parquetColumn) fromBytes(b []byte) value {
	if (c.logical.has(5) || c.converted == 5) && len(b) <= 8 && len(b) > 0 {
		var i int64
		if b[0]&0x80 != 0 {
			i = -1
		}
		for _, x := range b {
			i = i<<8 | int64(x)
		}
		return floatValue(float64(i) / math.Pow10(c.decimalScale()))
	}
	return stringValue(string(b))
}

func (c parquetColumn) decimalScale() int {
	if c.logical.has(5) {
		return int(c.logical.sub(5).int(1))
	}
	return c.scale
}

// rleHybrid decodes n values of the RLE/bit-packing hybrid encoding.
func rleHybrid(b []byte, width, n int) ([]uint64, error) {
	if width < 0 || width > 32 {
		return nil, errThrift
	}
	out := make([]uint64, 0, n)
	byteWidth := (width + 7) / 8
	pos := 0
	for len(out) < n {
		h, k := bin.Uvarint(b[pos:])
		if k <= 0 {
			return nil, errThrift
		}
		pos += k
		if h&1 == 0 {
			count := int(h >> 1)
			if pos+byteWidth > len(b) {
				return nil, errThrift
			}
			var v uint64
			for i := 0; i < byteWidth; i++ {
				v |= uint64(b[pos+i]) << (8 * i)
			}
			pos += byteWidth
			for i := 0; i < count && len(out) < n; i++ {
				out = append(out, v)
			}
			continue
		}
		groups := h >> 1
		if groups > uint64(len(b)) && width > 0 || groups > uint64(n) {
			return nil, errThrift
		}
		if pos+int(groups)*width > len(b) {
			return nil, errThrift
		}
		bit := 0
		for i := 0; i < int(groups)*8 && len(out) < n; i++ {
			var v uint64
			for j := 0; j < width; j++ {
				if b[pos+bit/8]>>(bit%8)&1 == 1 {
					v |= 1 << j
				}
				bit++
			}
			if len(out) < n {
				out = append(out, v)
			}
		}
		pos += int(groups) * width
	}
	return out, nil
}

// decompress undoes a page's codec.
func decompress(codec int64, b []byte, size int) ([]byte, error) {
	switch codec {
	case 0:
		return b, nil
	case 1:
		return snappyDecode(b)
	case 2:
		r, err := gzip.NewReader(bytes.NewReader(b))
		if err != nil {
			return nil, parquetError("a GZIP page is malformed")
		}
		out, err := io.ReadAll(io.LimitReader(r, int64(size)+1))
		if err != nil {
			return nil, parquetError("a GZIP page is malformed")
		}
		return out, nil
	}
	return nil, parquetError("compression codec %d is not supported (UNCOMPRESSED, SNAPPY and GZIP are)", codec)
}

// parquetRecord is one row: columns by name (quoted names case-sensitive)
// or by ordinal.
type parquetRecord struct {
	columns []parquetColumn
	values  []value
}

func (r *parquetRecord) field(f *fieldRef) value {
	if len(f.path) > 1 {
		return missing
	}
	if len(f.path) == 1 {
		step := f.path[0]
		for i, c := range r.columns {
			if c.name == step.name || (!step.quoted && strings.EqualFold(c.name, step.name)) {
				return r.values[i]
			}
		}
	}
	if f.ordinal > 0 && f.ordinal <= len(r.values) {
		return r.values[f.ordinal-1]
	}
	return missing
}

func (r *parquetRecord) all() ([]string, []value) {
	names := make([]string, len(r.columns))
	for i, c := range r.columns {
		names[i] = c.name
		if names[i] == "" {
			names[i] = "_" + strconv.Itoa(i+1)
		}
	}
	return names, r.values
}
