package record

import (
	"bytes"
	"errors"
	"math"
	"testing"
	"time"
)

// The golden bytes below pin the stored format: blob and file records
// written by earlier versions hold exactly these encodings, so a change here
// that makes a test fail breaks data on disk.
func TestEncoderGoldenBytes(t *testing.T) {
	at := time.Date(2024, 5, 6, 7, 8, 9, 10, time.UTC)
	tests := []struct {
		name  string
		write func(*Encoder)
		want  []byte
	}{
		{"byte", func(e *Encoder) { e.Byte(0xab) }, []byte{0xab}},
		{"uvarint small", func(e *Encoder) { e.Uvarint(5) }, []byte{5}},
		{"uvarint two bytes", func(e *Encoder) { e.Uvarint(300) }, []byte{0xac, 0x02}},
		{"uvarint max", func(e *Encoder) { e.Uvarint(math.MaxUint64) },
			[]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}},
		{"varint zig-zag negative", func(e *Encoder) { e.Varint(-1) }, []byte{1}},
		{"varint zig-zag positive", func(e *Encoder) { e.Varint(1) }, []byte{2}},
		{"varint -65", func(e *Encoder) { e.Varint(-65) }, []byte{0x81, 0x01}},
		{"fixed64 big-endian", func(e *Encoder) { e.Fixed64(0x0102030405060708) },
			[]byte{1, 2, 3, 4, 5, 6, 7, 8}},
		{"str", func(e *Encoder) { e.Str("abc") }, []byte{3, 'a', 'b', 'c'}},
		{"empty str", func(e *Encoder) { e.Str("") }, []byte{0}},
		{"raw", func(e *Encoder) { e.Raw([]byte{9, 8}) }, []byte{2, 9, 8}},
		{"nil raw", func(e *Encoder) { e.Raw(nil) }, []byte{0}},
		{"bool true", func(e *Encoder) { e.Bool(true) }, []byte{1}},
		{"bool false", func(e *Encoder) { e.Bool(false) }, []byte{0}},
		{"zero time", func(e *Encoder) { e.Time(time.Time{}) }, []byte{0}},
		{"time", func(e *Encoder) { e.Time(at) }, varintOf(at.UnixNano())},
		{"time in another zone", func(e *Encoder) { e.Time(at.In(time.FixedZone("x", 3600))) },
			varintOf(at.UnixNano())},
		{"field", func(e *Encoder) { e.Field(7, func(e *Encoder) { e.Str("hi"); e.Uvarint(1) }) },
			[]byte{7, 4, 2, 'h', 'i', 1}},
		{"empty field", func(e *Encoder) { e.Field(3, func(*Encoder) {}) }, []byte{3, 0}},
		{"nested fields", func(e *Encoder) {
			e.Field(1, func(e *Encoder) { e.Field(2, func(e *Encoder) { e.Byte(9) }) })
		}, []byte{1, 3, 2, 1, 9}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var e Encoder
			tt.write(&e)
			if !bytes.Equal(e.Bytes(), tt.want) {
				t.Fatalf("encoded % x, want % x", e.Bytes(), tt.want)
			}
		})
	}
}

func varintOf(n int64) []byte {
	var e Encoder
	e.Varint(n)
	return e.Bytes()
}

func TestNewEncoderAppendsToEmptyBuffer(t *testing.T) {
	e := NewEncoder(16)
	if len(e.Bytes()) != 0 || cap(e.Bytes()) != 16 {
		t.Fatalf("len %d cap %d", len(e.Bytes()), cap(e.Bytes()))
	}
	e.Byte(1)
	e.Str("x")
	if !bytes.Equal(e.Bytes(), []byte{1, 1, 'x'}) {
		t.Fatalf("% x", e.Bytes())
	}
}

func TestRoundTrip(t *testing.T) {
	at := time.Date(1999, 12, 31, 23, 59, 59, 999999999, time.FixedZone("y", -7200))
	var e Encoder
	e.Byte(200)
	e.Uvarint(math.MaxUint64)
	e.Varint(math.MinInt64)
	e.Varint(math.MaxInt64)
	e.Fixed64(math.MaxUint64 - 1)
	e.Str("héllo")
	e.Raw([]byte{0, 1, 2})
	e.Bool(true)
	e.Bool(false)
	e.Time(at)
	e.Time(time.Time{})
	e.Uvarint(2)
	e.Byte('a')
	e.Byte('b')

	d := NewDecoder(e.Bytes())
	if got := d.Byte(); got != 200 {
		t.Errorf("Byte %d", got)
	}
	if got := d.Uvarint(); got != math.MaxUint64 {
		t.Errorf("Uvarint %d", got)
	}
	if got := d.Varint(); got != math.MinInt64 {
		t.Errorf("Varint min %d", got)
	}
	if got := d.Varint(); got != math.MaxInt64 {
		t.Errorf("Varint max %d", got)
	}
	if got := d.Fixed64(); got != math.MaxUint64-1 {
		t.Errorf("Fixed64 %d", got)
	}
	if got := d.Str(); got != "héllo" {
		t.Errorf("Str %q", got)
	}
	if got := d.Raw(); !bytes.Equal(got, []byte{0, 1, 2}) || cap(got) != 3 {
		t.Errorf("Raw % x cap %d", got, cap(got))
	}
	if !d.Bool() || d.Bool() {
		t.Error("Bool")
	}
	if got := d.Time(); !got.Equal(at) || got.Location() != time.UTC {
		t.Errorf("Time %v", got)
	}
	if got := d.Time(); !got.IsZero() {
		t.Errorf("zero Time %v", got)
	}
	if n := d.Count(); n != 2 || d.Len() != 2 || !bytes.Equal(d.Rest(), []byte("ab")) {
		t.Errorf("Count %d Len %d Rest %q", n, d.Len(), d.Rest())
	}
	d.Byte()
	d.Byte()
	if d.Err() != nil || d.Len() != 0 {
		t.Fatalf("err %v, %d bytes left", d.Err(), d.Len())
	}
}

// A failed read sticks: later reads return zero values and Err stays set,
// even where the remaining input would have decoded.
func TestDecoderFailures(t *testing.T) {
	tests := []struct {
		name string
		in   []byte
		read func(*Decoder)
	}{
		{"byte of nothing", nil, func(d *Decoder) { d.Byte() }},
		{"uvarint of nothing", nil, func(d *Decoder) { d.Uvarint() }},
		{"unterminated uvarint", []byte{0x80}, func(d *Decoder) { d.Uvarint() }},
		{"uvarint overflow", bytes.Repeat([]byte{0xff}, 11), func(d *Decoder) { d.Uvarint() }},
		{"unterminated varint", []byte{0xff}, func(d *Decoder) { d.Varint() }},
		{"short fixed64", []byte{1, 2, 3, 4, 5, 6, 7}, func(d *Decoder) { d.Fixed64() }},
		{"string longer than input", []byte{5, 'a'}, func(d *Decoder) { d.Str() }},
		{"raw with huge length", []byte{0xff, 0xff, 0xff, 0xff, 0x0f}, func(d *Decoder) { d.Raw() }},
		{"count beyond input", []byte{3, 1, 2}, func(d *Decoder) { d.Count() }},
		{"time of nothing", nil, func(d *Decoder) { d.Time() }},
		{"bool of nothing", nil, func(d *Decoder) { d.Bool() }},
		{"field without payload", []byte{1}, func(d *Decoder) { d.Fields(func(byte, *Decoder) {}) }},
		{"field payload cut short", []byte{1, 3, 0}, func(d *Decoder) { d.Fields(func(byte, *Decoder) {}) }},
		{"payload read past its end", []byte{1, 1, 5, 2, 0},
			func(d *Decoder) { d.Fields(func(_ byte, p *Decoder) { p.Str() }) }},
		{"explicit fail", []byte{1, 2, 3}, func(d *Decoder) { d.Fail() }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := NewDecoder(tt.in)
			tt.read(&d)
			if !errors.Is(d.Err(), ErrMalformed) {
				t.Fatalf("err %v, want ErrMalformed", d.Err())
			}
			if d.Byte() != 0 || d.Uvarint() != 0 || d.Str() != "" || d.Raw() != nil || d.Len() != 0 {
				t.Fatal("a read after a failure returned data")
			}
			if !errors.Is(d.Err(), ErrMalformed) {
				t.Fatalf("err cleared: %v", d.Err())
			}
		})
	}
}

func TestBoolAcceptsOnlyOne(t *testing.T) {
	for in, want := range map[byte]bool{0: false, 1: true, 2: false, 0xff: false} {
		d := NewDecoder([]byte{in})
		if got := d.Bool(); got != want || d.Err() != nil {
			t.Errorf("Bool(%d) = %v, %v", in, got, d.Err())
		}
	}
}

func TestCountAtTheLimit(t *testing.T) {
	d := NewDecoder([]byte{2, 'x', 'y'})
	if n := d.Count(); n != 2 || d.Err() != nil {
		t.Fatalf("count %d err %v", n, d.Err())
	}
}

func TestFieldsWalksEveryFieldAndSkipsUnread(t *testing.T) {
	var e Encoder
	e.Field(1, func(e *Encoder) { e.Str("one") })
	e.Field(99, func(e *Encoder) { e.Str("from a later format"); e.Uvarint(7) })
	e.Field(2, func(e *Encoder) { e.Uvarint(42); e.Str("ignored tail") })
	e.Byte(3) // a field written by hand: tag, then a length-prefixed payload
	e.Raw([]byte{0xaa, 0xbb})

	type seen struct {
		tag  byte
		rest int
	}
	var got []seen
	var one string
	var two uint64
	var three []byte
	d := NewDecoder(e.Bytes())
	d.Fields(func(tag byte, p *Decoder) {
		got = append(got, seen{tag, p.Len()})
		switch tag {
		case 1:
			one = p.Str()
		case 2:
			two = p.Uvarint()
		case 3:
			three = p.Rest()
		}
	})
	if d.Err() != nil || d.Len() != 0 {
		t.Fatalf("err %v left %d", d.Err(), d.Len())
	}
	want := []seen{{1, 4}, {99, 21}, {2, 14}, {3, 2}}
	if len(got) != len(want) {
		t.Fatalf("fields %v", got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("fields %v, want %v", got, want)
		}
	}
	if one != "one" || two != 42 || !bytes.Equal(three, []byte{0xaa, 0xbb}) {
		t.Fatalf("values %q %d % x", one, two, three)
	}
}

func TestFieldsStopsAtFirstFailure(t *testing.T) {
	var e Encoder
	e.Field(1, func(e *Encoder) { e.Byte(0x80) }) // an unterminated varint
	e.Field(2, func(e *Encoder) { e.Byte(1) })
	calls := 0
	d := NewDecoder(e.Bytes())
	d.Fields(func(_ byte, p *Decoder) { calls++; p.Uvarint() })
	if calls != 1 || !errors.Is(d.Err(), ErrMalformed) {
		t.Fatalf("calls %d err %v", calls, d.Err())
	}
}

func TestRawDoesNotLetAppendsOverwriteInput(t *testing.T) {
	in := []byte{1, 'a', 'b'}
	d := NewDecoder(in)
	p := d.Raw()
	_ = append(p, 'z')
	if in[2] != 'b' {
		t.Fatal("append through Raw's result changed the input")
	}
}
