// Package odata is the Table service's OData $filter language: a lexer, a
// parser producing a small expression tree, an evaluator over typed entity
// property values, and a planner that extracts PartitionKey/RowKey bounds so
// a query can scan a key range instead of the whole table.
//
// Comparisons follow the service's typing: a comparison whose property is
// missing, or holds a value of another type than the literal, does not match
// (so `X ne 1` is false when X is absent). The exceptions are lossless
// numeric widenings: an Int32 literal matches a Double property, and an Int64
// literal matches an Int32 property. An Int32 literal never matches an Int64
// property, which is the service's well-known reason for the `L` suffix.
package odata

import (
	"bytes"
	"cmp"
	"math"
	"time"
)

// Kind is the EDM type of a value.
type Kind uint8

// EDM kinds. The numeric values are persisted by the table service's record
// encoding: never renumber, only append.
const (
	KindNull     Kind = 0
	KindString   Kind = 1
	KindBinary   Kind = 2
	KindBool     Kind = 3
	KindDateTime Kind = 4
	KindDouble   Kind = 5
	KindGuid     Kind = 6
	KindInt32    Kind = 7
	KindInt64    Kind = 8
)

// EDMName is the OData type name of k ("Edm.String", ...).
func (k Kind) EDMName() string {
	switch k {
	case KindString:
		return "Edm.String"
	case KindBinary:
		return "Edm.Binary"
	case KindBool:
		return "Edm.Boolean"
	case KindDateTime:
		return "Edm.DateTime"
	case KindDouble:
		return "Edm.Double"
	case KindGuid:
		return "Edm.Guid"
	case KindInt32:
		return "Edm.Int32"
	case KindInt64:
		return "Edm.Int64"
	}
	return ""
}

// KindByEDMName maps an OData type name to its kind.
func KindByEDMName(name string) (Kind, bool) {
	for k := KindString; k <= KindInt64; k++ {
		if k.EDMName() == name {
			return k, true
		}
	}
	return KindNull, false
}

// Value is one typed property value.
//
//   - String and Guid (canonical lower-case form) use Str.
//   - Binary uses Bytes.
//   - Bool (0 or 1), Int32, Int64 and DateTime (100 ns ticks since
//     0001-01-01 UTC) use Int.
//   - Double uses Float.
type Value struct {
	Kind  Kind
	Str   string
	Bytes []byte
	Int   int64
	Float float64
}

// Constructors for the common kinds.

// String returns an Edm.String value.
func String(s string) Value { return Value{Kind: KindString, Str: s} }

// Int32 returns an Edm.Int32 value.
func Int32(n int32) Value { return Value{Kind: KindInt32, Int: int64(n)} }

// Int64 returns an Edm.Int64 value.
func Int64(n int64) Value { return Value{Kind: KindInt64, Int: n} }

// Double returns an Edm.Double value.
func Double(f float64) Value { return Value{Kind: KindDouble, Float: f} }

// Bool returns an Edm.Boolean value.
func Bool(b bool) Value {
	if b {
		return Value{Kind: KindBool, Int: 1}
	}
	return Value{Kind: KindBool}
}

// Binary returns an Edm.Binary value.
func Binary(b []byte) Value { return Value{Kind: KindBinary, Bytes: b} }

// Guid returns an Edm.Guid value from its canonical text.
func Guid(s string) Value { return Value{Kind: KindGuid, Str: s} }

// tickEpoch is the number of 100 ns ticks between 0001-01-01 and 1970-01-01.
const tickEpoch = 621355968000000000

// DateTime returns an Edm.DateTime value for t, truncated to 100 ns.
func DateTime(t time.Time) Value {
	return Value{Kind: KindDateTime, Int: TimeToTicks(t)}
}

// TimeToTicks converts t to 100 ns ticks since 0001-01-01 UTC, valid over
// the whole Edm.DateTime range (years 1 to 9999).
func TimeToTicks(t time.Time) int64 {
	t = t.UTC()
	secs := t.Unix() + tickEpoch/1e7
	return secs*1e7 + int64(t.Nanosecond()/100)
}

// TicksToTime converts 100 ns ticks since 0001-01-01 back to a UTC time.
func TicksToTime(ticks int64) time.Time {
	secs := ticks/1e7 - tickEpoch/1e7
	return time.Unix(secs, (ticks%1e7)*100).UTC()
}

// Time is the instant of a DateTime value.
func (v Value) Time() time.Time { return TicksToTime(v.Int) }

// compare orders a (a property) against b (a literal). ok is false when the
// two are not comparable, which makes every comparison on them false.
func compare(a, b Value) (c int, ok bool) {
	if a.Kind != b.Kind {
		return compareMixed(a, b)
	}
	switch a.Kind {
	case KindString, KindGuid:
		return cmp.Compare(a.Str, b.Str), true
	case KindBinary:
		return bytes.Compare(a.Bytes, b.Bytes), true
	case KindBool, KindInt32, KindInt64, KindDateTime:
		return cmp.Compare(a.Int, b.Int), true
	case KindDouble:
		return compareFloat(a.Float, b.Float)
	}
	return 0, false
}

// compareMixed handles the lossless numeric widenings the package doc lists.
func compareMixed(prop, lit Value) (int, bool) {
	switch {
	case prop.Kind == KindDouble && lit.Kind == KindInt32:
		return compareFloat(prop.Float, float64(lit.Int))
	case prop.Kind == KindInt32 && lit.Kind == KindInt64:
		return cmp.Compare(prop.Int, lit.Int), true
	}
	return 0, false
}

// compareFloat orders doubles; NaN equals only NaN and is unordered
// otherwise, so it matches eq NaN and nothing else.
func compareFloat(a, b float64) (int, bool) {
	aNaN, bNaN := a != a, b != b
	switch {
	case aNaN && bNaN:
		return 0, true
	case aNaN || bNaN:
		return 0, false
	}
	return cmp.Compare(a, b), true
}

// EqKey is a comparable form of a value for hash indexes: two values that
// compare equal have the same EqKey, including across the numeric
// widenings and for NaN. Different values may share one (a Guid and a
// String of the same text, a Boolean and an integer), so an index lookup
// yields candidates that the filter is still evaluated on.
type EqKey struct {
	class uint8
	n     uint64
	s     string
}

// EqKey classes.
const (
	eqText    = 1 + iota // String and Guid
	eqInteger            // Bool, Int32, Int64, DateTime and integral Double
	eqFloat              // other Double values, by bits
	eqNaN
)

// EqKey returns the value's key; Binary values (and Null) have none.
func (v Value) EqKey() (EqKey, bool) {
	switch v.Kind {
	case KindString, KindGuid:
		return EqKey{class: eqText, s: v.Str}, true
	case KindBool, KindInt32, KindInt64, KindDateTime:
		return EqKey{class: eqInteger, n: uint64(v.Int)}, true
	case KindDouble:
		f := v.Float
		switch {
		case f != f:
			return EqKey{class: eqNaN}, true
		case f == math.Trunc(f) && f >= -(1<<63) && f < 1<<63:
			// Integral: the key an equal Int32 literal has; 0 and -0 meet.
			return EqKey{class: eqInteger, n: uint64(int64(f))}, true
		}
		return EqKey{class: eqFloat, n: math.Float64bits(f)}, true
	}
	return EqKey{}, false
}

// maxTicks is the first tick past 9999-12-31T23:59:59.9999999.
const maxTicks = 3155378976000000000

// AppendDateTime appends ticks as FormatDateTime formats their instant,
// digit by digit: a query page renders a Timestamp per entity, and
// time.Format is a large share of that. Instants outside years 1 to 9999
// take FormatDateTime's own path.
func AppendDateTime(b []byte, ticks int64) []byte {
	if ticks < 0 || ticks >= maxTicks {
		return append(b, FormatDateTime(TicksToTime(ticks))...)
	}
	t := TicksToTime(ticks)
	y, mo, d := t.Date()
	h, mi, s := t.Clock()
	b = appendDigits(b, y, 4)
	b = append(b, '-')
	b = appendDigits(b, int(mo), 2)
	b = append(b, '-')
	b = appendDigits(b, d, 2)
	b = append(b, 'T')
	b = appendDigits(b, h, 2)
	b = append(b, ':')
	b = appendDigits(b, mi, 2)
	b = append(b, ':')
	b = appendDigits(b, s, 2)
	b = append(b, '.')
	b = appendDigits(b, int(ticks%1e7), 7)
	return append(b, 'Z')
}

// AppendDateTimeValue appends ticks as the service renders an Edm.DateTime
// property value: the fraction without trailing zeros, and none at all on a
// whole second ("2020-09-17T00:00:00.111Z", "1970-10-04T00:00:00Z"; the
// recorded live sessions of azure-sdk-for-js sdk/tables/data-tables,
// "should createEntity with Date" and "...with DateTime"). ETags and
// Timestamp keep AppendDateTime's seven digits.
func AppendDateTimeValue(b []byte, ticks int64) []byte {
	b = AppendDateTime(b, ticks)
	end := len(b) - 1 // the 'Z'
	for b[end-1] == '0' {
		end--
	}
	if b[end-1] == '.' {
		end--
	}
	return append(b[:end], 'Z')
}

// appendDigits appends n (non-negative) zero-padded to width digits.
func appendDigits(b []byte, n, width int) []byte {
	var buf [8]byte
	for i := width - 1; i >= 0; i-- {
		buf[i] = byte('0' + n%10)
		n /= 10
	}
	return append(b, buf[:width]...)
}
