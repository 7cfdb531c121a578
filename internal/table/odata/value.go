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
