package record

import (
	"testing"
	"time"
)

// readOp is one read a fuzzed schema may ask for; op bytes choose among
// them. Each returns its value in a comparable form and writes the same
// value back with the encoder, so the fuzzer can check decode, encode,
// decode again. Count is left out: it checks the bytes left, which
// re-encoding non-minimal varints can shorten; Fields exercises it.
type readOp struct {
	read  func(*Decoder) any
	write func(*Encoder, any)
}

var readOps = []readOp{
	{func(d *Decoder) any { return d.Byte() }, func(e *Encoder, v any) { e.Byte(v.(byte)) }},
	{func(d *Decoder) any { return d.Uvarint() }, func(e *Encoder, v any) { e.Uvarint(v.(uint64)) }},
	{func(d *Decoder) any { return d.Varint() }, func(e *Encoder, v any) { e.Varint(v.(int64)) }},
	{func(d *Decoder) any { return d.Fixed64() }, func(e *Encoder, v any) { e.Fixed64(v.(uint64)) }},
	{func(d *Decoder) any { return d.Str() }, func(e *Encoder, v any) { e.Str(v.(string)) }},
	{func(d *Decoder) any { return string(d.Raw()) }, func(e *Encoder, v any) { e.Raw([]byte(v.(string))) }},
	{func(d *Decoder) any { return d.Bool() }, func(e *Encoder, v any) { e.Bool(v.(bool)) }},
	{func(d *Decoder) any { return timeNanos(d.Time()) }, func(e *Encoder, v any) {
		if n := v.(int64); n != 0 {
			e.Time(time.Unix(0, n))
		} else {
			e.Time(time.Time{})
		}
	}},
}

// FuzzDecoder reads arbitrary input with an arbitrary sequence of reads
// (ops) and, when that succeeds, re-encodes what it read and checks that it
// decodes to the same values. It also walks the input as tagged fields. No
// input may panic, and a failed decoder must stay failed.
func FuzzDecoder(f *testing.F) {
	var e Encoder
	e.Field(1, func(e *Encoder) { e.Str("name"); e.Varint(-3); e.Time(time.Unix(5, 6)) })
	e.Field(2, func(e *Encoder) { e.Fixed64(9); e.Bool(true) })
	f.Add([]byte{0, 1, 2}, e.Bytes())
	f.Add([]byte{4, 4, 8}, []byte{1, 'a', 1, 'b', 0})
	f.Add([]byte{3, 7}, []byte{0, 0, 0, 0, 0, 0, 0, 1, 0})
	f.Add([]byte{1}, []byte{0x80, 0x80, 0x80})
	f.Add([]byte{}, []byte{})
	f.Fuzz(func(t *testing.T, ops, in []byte) {
		if len(ops) > 64 {
			ops = ops[:64]
		}
		d := NewDecoder(in)
		values := make([]any, 0, len(ops))
		for _, op := range ops {
			values = append(values, readOps[int(op)%len(readOps)].read(&d))
		}
		if d.Err() == nil {
			checkReencode(t, ops, values)
		} else if d.Len() != 0 || d.Byte() != 0 {
			t.Fatal("a failed decoder still yields data")
		}

		fd := NewDecoder(in)
		fd.Fields(func(_ byte, p *Decoder) {
			if p.Count() > p.Len() {
				t.Fatalf("Count beyond the %d bytes left", p.Len())
			}
			for _, op := range ops {
				readOps[int(op)%len(readOps)].read(p)
			}
		})
		if fd.Err() == nil && fd.Len() != 0 {
			t.Fatalf("Fields stopped with %d bytes left and no error", fd.Len())
		}
	})
}

func checkReencode(t *testing.T, ops []byte, values []any) {
	t.Helper()
	var e Encoder
	for i, op := range ops {
		readOps[int(op)%len(readOps)].write(&e, values[i])
	}
	d := NewDecoder(e.Bytes())
	for i, op := range ops {
		got := readOps[int(op)%len(readOps)].read(&d)
		if got != values[i] {
			t.Fatalf("op %d: re-decoded %v, first decoded %v", i, got, values[i])
		}
	}
	if d.Err() != nil || d.Len() != 0 {
		t.Fatalf("re-decode: err %v, %d bytes left of % x", d.Err(), d.Len(), e.Bytes())
	}
}
