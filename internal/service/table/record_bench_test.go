package table

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/lazuli-storage/lazuli/internal/check/cpubench"

	"github.com/lazuli-storage/lazuli/internal/base/record"
	"github.com/lazuli-storage/lazuli/internal/service/table/odata"
)

// The entity record in the codec of package record, for comparison with
// the hand-written layout of record.go (see its doc comment for the
// figures). Two forms: positional, the same fields in the same order
// written with the codec's primitives (integers as varints, instants and
// doubles as fixed64, a GUID as two fixed64); and tagged, the format byte
// then tagged fields, as the blob and file records are written.
const (
	entityFormatCodec = 2
	etagTimestamp     = 1
	etagProps         = 2 // count, then each property as writeCodecProps writes it
)

var errBadCodecEntity = errors.New("table: malformed entity record")

func writeCodecProps(e *record.Encoder, props []Property) {
	e.Uvarint(uint64(len(props)))
	for _, p := range props {
		e.Str(p.Name)
		e.Byte(byte(p.Value.Kind))
		switch v := p.Value; v.Kind {
		case odata.KindString:
			e.Str(v.Str)
		case odata.KindBinary:
			e.Raw(v.Bytes)
		case odata.KindGuid:
			raw := appendGuid(make([]byte, 0, 16), v.Str)
			e.Fixed64(binary.BigEndian.Uint64(raw))
			e.Fixed64(binary.BigEndian.Uint64(raw[8:]))
		case odata.KindBool:
			e.Bool(v.Int != 0)
		case odata.KindInt32, odata.KindInt64:
			e.Varint(v.Int)
		case odata.KindDateTime:
			e.Fixed64(uint64(v.Int))
		case odata.KindDouble:
			e.Fixed64(math.Float64bits(v.Float))
		}
	}
}

// readCodecValue reads one value of kind; strings and bytes alias d's
// input, as recordView's do, and the caller copies them to keep them.
func readCodecValue(d *record.Decoder, kind odata.Kind) odata.Value {
	v := odata.Value{Kind: kind}
	switch kind {
	case odata.KindString:
		p := d.Raw()
		v.Str = unsafe.String(unsafe.SliceData(p), len(p))
	case odata.KindBinary:
		v.Bytes = d.Raw()
	case odata.KindGuid:
		var raw [16]byte
		binary.BigEndian.PutUint64(raw[:], d.Fixed64())
		binary.BigEndian.PutUint64(raw[8:], d.Fixed64())
		v.Str = guidText(raw[:])
	case odata.KindBool:
		if d.Bool() {
			v.Int = 1
		}
	case odata.KindInt32, odata.KindInt64:
		v.Int = d.Varint()
	case odata.KindDateTime:
		v.Int = int64(d.Fixed64())
	case odata.KindDouble:
		v.Float = math.Float64frombits(d.Fixed64())
	default:
		d.Fail()
	}
	return v
}

func readCodecProps(d *record.Decoder) []Property {
	n := d.Count()
	props := make([]Property, 0, n)
	for i := 0; i < n && d.Err() == nil; i++ {
		name := d.Str()
		v := readCodecValue(d, odata.Kind(d.Byte()))
		switch v.Kind { // copied, as decodeValue copies: b belongs to the store
		case odata.KindString:
			v.Str = strings.Clone(v.Str)
		case odata.KindBinary:
			v.Bytes = bytes.Clone(v.Bytes)
		}
		props = append(props, Property{Name: name, Value: v})
	}
	return props
}

// findCodecProp walks properties as recordView does, without copying, and
// decodes only the value it returns.
func findCodecProp(d *record.Decoder, name string) (odata.Value, bool) {
	n := d.Count()
	for i := 0; i < n && d.Err() == nil; i++ {
		found := string(d.Raw()) == name
		kind := odata.Kind(d.Byte())
		if found {
			v := readCodecValue(d, kind)
			return v, d.Err() == nil
		}
		skipCodecValue(d, kind)
	}
	return odata.Value{}, false
}

func skipCodecValue(d *record.Decoder, kind odata.Kind) {
	switch kind {
	case odata.KindString, odata.KindBinary:
		d.Raw()
	case odata.KindGuid:
		d.Fixed64()
		d.Fixed64()
	case odata.KindBool:
		d.Byte()
	case odata.KindInt32, odata.KindInt64:
		d.Varint()
	case odata.KindDateTime, odata.KindDouble:
		d.Fixed64()
	default:
		d.Fail()
	}
}

func encodeEntityPositional(e *Entity) []byte {
	enc := record.NewEncoder(encodedSizeHint(e))
	enc.Byte(entityFormatCodec)
	enc.Fixed64(uint64(e.Timestamp))
	writeCodecProps(&enc, e.Props)
	return enc.Bytes()
}

func decodeEntityPositional(pk, rk string, b []byte) (*Entity, error) {
	d := record.NewDecoder(b)
	if d.Byte() != entityFormatCodec {
		return nil, errBadCodecEntity
	}
	e := &Entity{PK: pk, RK: rk, Timestamp: int64(d.Fixed64())}
	e.Props = readCodecProps(&d)
	if d.Err() != nil {
		return nil, errBadCodecEntity
	}
	return e, nil
}

func propertyPositional(b []byte, name string) (odata.Value, bool) {
	d := record.NewDecoder(b)
	d.Byte()
	d.Fixed64()
	return findCodecProp(&d, name)
}

func encodeEntityTagged(e *Entity) []byte {
	enc := record.NewEncoder(encodedSizeHint(e) + 6)
	enc.Byte(entityFormatCodec)
	enc.Field(etagTimestamp, func(enc *record.Encoder) { enc.Fixed64(uint64(e.Timestamp)) })
	enc.Field(etagProps, func(enc *record.Encoder) { writeCodecProps(enc, e.Props) })
	return enc.Bytes()
}

func decodeEntityTagged(pk, rk string, b []byte) (*Entity, error) {
	d := record.NewDecoder(b)
	if d.Byte() != entityFormatCodec {
		return nil, errBadCodecEntity
	}
	e := &Entity{PK: pk, RK: rk}
	d.Fields(func(tag byte, p *record.Decoder) {
		switch tag {
		case etagTimestamp:
			e.Timestamp = int64(p.Fixed64())
		case etagProps:
			e.Props = readCodecProps(p)
		}
	})
	if d.Err() != nil {
		return nil, errBadCodecEntity
	}
	return e, nil
}

// propertyTagged skips to the properties field without the Fields walk,
// the cheapest way the codec offers to reach one value.
func propertyTagged(b []byte, name string) (odata.Value, bool) {
	d := record.NewDecoder(b)
	d.Byte()
	for d.Err() == nil && d.Len() > 0 {
		tag, payload := d.Byte(), d.Raw()
		if tag == etagProps {
			p := record.NewDecoder(payload)
			return findCodecProp(&p, name)
		}
	}
	return odata.Value{}, false
}

// encodedSizeHint is an encoder capacity that holds e without regrowing.
func encodedSizeHint(e *Entity) int {
	n := 1 + 8 + binary.MaxVarintLen64
	for _, p := range e.Props {
		n += len(p.Name) + len(p.Value.Str) + len(p.Value.Bytes) + 2*binary.MaxVarintLen64 + 17
	}
	return n
}

// entityCodec is one way of storing an entity value.
type entityCodec struct {
	name     string
	encode   func(*Entity) []byte
	decode   func(pk, rk string, b []byte) (*Entity, error)
	property func(b []byte, name string) (odata.Value, bool)
}

var entityCodecs = []entityCodec{
	{"hand", encodeEntity, decodeEntity, propertyHand},
	{"positional", encodeEntityPositional, decodeEntityPositional, propertyPositional},
	{"tagged", encodeEntityTagged, decodeEntityTagged, propertyTagged},
}

// propertyHand is a filter's read of one property through a recordView.
func propertyHand(b []byte, name string) (odata.Value, bool) {
	view := recordView{}
	view.reset(nil, b)
	return view.Property(name)
}

// typicalEntity has 10 properties of mixed EDM types; lookedUp is its last
// property, so a lookup walks past every other one.
func typicalEntity() *Entity {
	return &Entity{PK: "customers-eu", RK: "000123456", Timestamp: 639000000000000001, Props: []Property{
		{"Name", odata.String("Ada Lovelace")},
		{"Email", odata.String("ada.lovelace@example.com")},
		{"City", odata.String("London")},
		{"Age", odata.Int32(36)},
		{"Visits", odata.Int64(1234567)},
		{"Score", odata.Double(97.25)},
		{"Active", odata.Bool(true)},
		{"Joined", odata.DateTime(time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC))},
		{"AccountId", odata.Guid("c9da6455-213d-42c9-9a79-3e9149a57833")},
		{"Avatar", odata.Binary(bytes.Repeat([]byte{0xa5, 0x5a}, 16))},
	}}
}

const lookedUp = "Avatar"

// The compared forms hold the same entity, so the benchmarks compare the
// same work.
func TestEntityCodecsAgree(t *testing.T) {
	want := typicalEntity()
	for _, c := range entityCodecs {
		b := c.encode(want)
		if got, err := c.decode(want.PK, want.RK, b); err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("%s: decoded to %+v (%v)", c.name, got, err)
		}
		for _, p := range want.Props {
			if v, ok := c.property(b, p.Name); !ok || !reflect.DeepEqual(v, p.Value) {
				t.Errorf("%s: property %s reads %+v (%v)", c.name, p.Name, v, ok)
			}
		}
		if _, err := c.decode(want.PK, want.RK, b[:len(b)-1]); err == nil {
			t.Errorf("%s: a truncated value decoded", c.name)
		}
	}
}

func BenchmarkEntityEncode(b *testing.B) {
	e := typicalEntity()
	for _, c := range entityCodecs {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			cpubench.Loop(b, func() { c.encode(e) })
			// After the loop, which would reset it.
			b.ReportMetric(float64(len(c.encode(e))), "bytes/record")
		})
	}
}

func BenchmarkEntityDecode(b *testing.B) {
	e := typicalEntity()
	for _, c := range entityCodecs {
		v := c.encode(e)
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			cpubench.Loop(b, func() {
				if _, err := c.decode(e.PK, e.RK, v); err != nil {
					b.Fatal(err)
				}
			})
		})
	}
}

// BenchmarkEntityProperty is a $filter's read of one property of a stored
// entity, made for every entity a query scans.
func BenchmarkEntityProperty(b *testing.B) {
	for _, c := range entityCodecs {
		v := c.encode(typicalEntity())
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			cpubench.Loop(b, func() {
				if _, ok := c.property(v, lookedUp); !ok {
					b.Fatal("not found")
				}
			})
		})
	}
}
