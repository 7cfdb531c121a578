package quickquery

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// CSV describes delimited text, in or out (DelimitedTextConfiguration).
type CSV struct {
	ColumnSeparator string // one character
	FieldQuote      string // one character, or "" for none
	RecordSeparator string
	EscapeChar      string // one character, or "" for none
	HasHeaders      bool
}

// DefaultCSV is what the service assumes when a configuration is absent.
var DefaultCSV = CSV{ColumnSeparator: ",", FieldQuote: `"`, RecordSeparator: "\n"}

// ParseError is input that is not in the declared format, or a row of
// another width than the Arrow output's schema: the service reports it as
// a fatal error and stops.
type ParseError struct {
	Position int64
	Name     string // the error record's name; ParseError when empty
	Msg      string
}

func (e *ParseError) Error() string { return e.Msg }

// reader yields the records of the input and the offset each began at.
type reader interface {
	next() (record, int64, error) // io.EOF at the end
	scanned() int64
}

// countingReader counts the bytes read, for progress records.
type countingReader struct {
	r *bufio.Reader
	n int64
}

func (c *countingReader) ReadByte() (byte, error) {
	b, err := c.r.ReadByte()
	if err == nil {
		c.n++
	}
	return b, err
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// csvReader reads delimited records. Quoted fields may hold separators;
// a doubled quote or the escape character makes the next character literal.
type csvReader struct {
	in      *countingReader
	format  CSV
	header  *csvHeader
	started bool
}

// csvHeader maps field names to positions: exactly for quoted references,
// case-insensitively for unquoted ones.
type csvHeader struct {
	names []string
	exact map[string]int
	fold  map[string]int
}

func newCSVReader(r io.Reader, format CSV) *csvReader {
	return &csvReader{in: &countingReader{r: bufio.NewReaderSize(r, 64<<10)}, format: format}
}

func (c *csvReader) scanned() int64 { return c.in.n }

func (c *csvReader) next() (record, int64, error) {
	if !c.started {
		c.started = true
		if c.format.HasHeaders {
			names, _, err := c.readFields()
			if err != nil && err != io.EOF {
				return nil, 0, err
			}
			c.header = &csvHeader{names: names, exact: map[string]int{}, fold: map[string]int{}}
			for i, n := range names {
				c.header.exact[n] = i
				if _, dup := c.header.fold[strings.ToLower(n)]; !dup {
					c.header.fold[strings.ToLower(n)] = i
				}
			}
		}
	}
	fields, start, err := c.readFields()
	if err != nil {
		return nil, start, err
	}
	return &csvRecord{fields: fields, header: c.header}, start, nil
}

// readFields reads one record. A trailing record separator does not make
// an empty last record.
func (c *csvReader) readFields() ([]string, int64, error) {
	start := c.in.n
	sep, quote, esc := firstByte(c.format.ColumnSeparator), firstByte(c.format.FieldQuote), firstByte(c.format.EscapeChar)
	recSep := c.format.RecordSeparator
	var fields []string
	var field bytes.Buffer
	inQuotes, any := false, false
	for {
		b, err := c.in.ReadByte()
		if err == io.EOF {
			if inQuotes {
				return nil, start, &ParseError{Position: start, Msg: "Unexpected end of data inside a quoted field."}
			}
			if !any {
				return nil, start, io.EOF
			}
			return append(fields, field.String()), start, nil
		}
		if err != nil {
			return nil, start, err
		}
		any = true
		switch {
		case esc != 0 && b == esc:
			nb, err := c.in.ReadByte()
			if err != nil {
				return nil, start, &ParseError{Position: c.in.n, Msg: "Unexpected end of data after the escape character."}
			}
			field.WriteByte(nb)
		case quote != 0 && b == quote:
			if inQuotes && c.peekIs(quote) {
				_, _ = c.in.ReadByte()
				field.WriteByte(quote)
			} else {
				inQuotes = !inQuotes
			}
		case inQuotes:
			field.WriteByte(b)
		case b == sep:
			fields = append(fields, field.String())
			field.Reset()
		case b == recSep[0] && c.restIs(recSep[1:]):
			return append(fields, field.String()), start, nil
		case b == '\r' && recSep == "\n" && c.peekIs('\n'):
			// "\r\n" ends a record whose separator is "\n": the "\r" is
			// part of the line end, not of the last field (azure-sdk-for-
			// python's recorded test_quick_query_readall reads CRLF data
			// back with LF line ends).
		default:
			field.WriteByte(b)
		}
	}
}

func (c *csvReader) peekIs(b byte) bool {
	next, err := c.in.r.Peek(1)
	return err == nil && next[0] == b
}

// restIs consumes rest if the input continues with it (the remainder of a
// multi-byte record separator).
func (c *csvReader) restIs(rest string) bool {
	if rest == "" {
		return true
	}
	next, err := c.in.r.Peek(len(rest))
	if err != nil || string(next) != rest {
		return false
	}
	_, _ = c.in.r.Discard(len(rest))
	c.in.n += int64(len(rest))
	return true
}

func firstByte(s string) byte {
	if s == "" {
		return 0
	}
	return s[0]
}

type csvRecord struct {
	fields []string
	header *csvHeader
}

func (r *csvRecord) field(f *fieldRef) value {
	if len(f.path) > 1 {
		return missing
	}
	i := -1
	if r.header != nil {
		step := f.path[0]
		var ok bool
		if step.quoted {
			i, ok = r.header.exact[step.name]
		} else {
			i, ok = r.header.fold[strings.ToLower(step.name)]
		}
		if !ok {
			i = -1
		}
	}
	if i < 0 && f.ordinal > 0 {
		i = f.ordinal - 1
	}
	if i < 0 || i >= len(r.fields) {
		return null
	}
	return stringValue(r.fields[i])
}

func (r *csvRecord) all() ([]string, []value) {
	names := make([]string, len(r.fields))
	values := make([]value, len(r.fields))
	for i, f := range r.fields {
		if r.header != nil && i < len(r.header.names) {
			names[i] = r.header.names[i]
		} else {
			names[i] = "_" + strconv.Itoa(i+1)
		}
		values[i] = stringValue(f)
	}
	return names, values
}

// jsonReader reads JSON records separated by the record separator
// (whitespace between values when the separator is whitespace).
type jsonReader struct {
	in   *countingReader
	dec  *json.Decoder
	sep  string
	from []pathStep
	// pending holds records a FROM path with [*] produced from one input value.
	pending []any
	at      int64
}

func newJSONReader(r io.Reader, sep string, from []pathStep) *jsonReader {
	in := &countingReader{r: bufio.NewReaderSize(r, 64<<10)}
	j := &jsonReader{in: in, sep: sep, from: from}
	if strings.TrimSpace(sep) == "" {
		j.dec = json.NewDecoder(in)
		j.dec.UseNumber()
	}
	return j
}

func (j *jsonReader) scanned() int64 { return j.in.n }

func (j *jsonReader) next() (record, int64, error) {
	for len(j.pending) == 0 {
		v, at, err := j.value()
		if err != nil {
			return nil, at, err
		}
		j.pending, j.at = selectPath(v, j.from), at
	}
	v := j.pending[0]
	j.pending = j.pending[1:]
	return &jsonRecord{v: v}, j.at, nil
}

// value decodes the next top-level JSON value.
func (j *jsonReader) value() (any, int64, error) {
	if j.dec != nil {
		at := j.dec.InputOffset()
		v, err := decodeOrdered(j.dec)
		if err == io.EOF {
			return nil, at, io.EOF
		}
		if err != nil {
			return nil, at, jsonParseError(at)
		}
		return v, at, nil
	}
	// A non-whitespace separator: split on it, then decode each piece.
	at := j.in.n
	chunk, err := j.readUntilSeparator()
	if err != nil {
		return nil, at, err
	}
	dec := json.NewDecoder(bytes.NewReader(chunk))
	dec.UseNumber()
	v, err := decodeOrdered(dec)
	if err != nil {
		return nil, at, jsonParseError(at)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, at, jsonParseError(at)
	}
	return v, at, nil
}

func (j *jsonReader) readUntilSeparator() ([]byte, error) {
	var buf bytes.Buffer
	for {
		b, err := j.in.ReadByte()
		if err == io.EOF {
			if len(bytes.TrimSpace(buf.Bytes())) == 0 {
				return nil, io.EOF
			}
			return buf.Bytes(), nil
		}
		if err != nil {
			return nil, err
		}
		buf.WriteByte(b)
		if bytes.HasSuffix(buf.Bytes(), []byte(j.sep)) {
			rec := buf.Bytes()[:buf.Len()-len(j.sep)]
			if len(bytes.TrimSpace(rec)) == 0 {
				buf.Reset()
				continue
			}
			return rec, nil
		}
	}
}

// jsonParseError is the fatal error of a JSON record that does not
// parse: the service names it InternalError, "Internal parse exception.",
// at the offset the record began (azure-sdk-for-python
// tests/recordings/test_quick_query.test_quick_query_readall_with_fatal_error_handler.yaml).
func jsonParseError(record int64) error {
	return &ParseError{Position: record, Name: "InternalError", Msg: "Internal parse exception."}
}

// member is one name and value of a JSON object, in input order.
type member struct {
	name string
	v    any
}

// object is a JSON object with its members' order kept, so that SELECT *
// writes them back as they came.
type object []member

// decodeOrdered decodes one JSON value: objects as object, arrays as
// []any, numbers as json.Number.
func decodeOrdered(dec *json.Decoder) (any, error) {
	t, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch d := t.(type) {
	case json.Delim:
		switch d {
		case '{':
			var o object
			for dec.More() {
				k, err := dec.Token()
				if err != nil {
					return nil, err
				}
				v, err := decodeOrdered(dec)
				if err != nil {
					return nil, err
				}
				o = append(o, member{k.(string), v})
			}
			_, err := dec.Token()
			return o, err
		case '[':
			list := []any{}
			for dec.More() {
				v, err := decodeOrdered(dec)
				if err != nil {
					return nil, err
				}
				list = append(list, v)
			}
			_, err := dec.Token()
			return list, err
		}
		return nil, fmt.Errorf("unexpected %v", d)
	}
	return t, nil
}

// selectPath applies the FROM clause's path: members and indexes step in,
// [*] takes every element of an array as a record.
func selectPath(v any, path []pathStep) []any {
	current := []any{v}
	for _, step := range path {
		var next []any
		for _, c := range current {
			switch {
			case step.wildcard:
				if list, ok := c.([]any); ok {
					next = append(next, list...)
				}
			default:
				if x, ok := stepInto(c, step); ok {
					next = append(next, x)
				}
			}
		}
		current = next
	}
	return current
}

// stepInto takes one member or index step; ok is false when it is absent.
func stepInto(v any, step pathStep) (any, bool) {
	if step.index >= 0 {
		list, ok := v.([]any)
		if !ok || step.index >= len(list) {
			return nil, false
		}
		return list[step.index], true
	}
	o, ok := v.(object)
	if !ok {
		return nil, false
	}
	for _, m := range o {
		if m.name == step.name {
			return m.v, true
		}
	}
	if !step.quoted {
		for _, m := range o {
			if strings.EqualFold(m.name, step.name) {
				return m.v, true
			}
		}
	}
	return nil, false
}

type jsonRecord struct{ v any }

func (r *jsonRecord) field(f *fieldRef) value {
	v := r.v
	for _, step := range f.path {
		next, ok := stepInto(v, step)
		if !ok {
			return missing
		}
		v = next
	}
	return jsonToValue(v)
}

func (r *jsonRecord) all() ([]string, []value) {
	o, ok := r.v.(object)
	if !ok {
		return []string{"_1"}, []value{jsonToValue(r.v)}
	}
	names := make([]string, len(o))
	values := make([]value, len(o))
	for i, m := range o {
		names[i], values[i] = m.name, jsonToValue(m.v)
	}
	return names, values
}

// jsonToValue converts a decoded JSON value; objects and arrays stay
// whole (kindJSON) for output.
func jsonToValue(v any) value {
	switch x := v.(type) {
	case nil:
		return null
	case string:
		return stringValue(x)
	case bool:
		return boolValue(x)
	case json.Number:
		if i, err := x.Int64(); err == nil {
			return intValue(i)
		}
		f, _ := x.Float64()
		return floatValue(f)
	}
	return value{k: kindJSON, j: v}
}
