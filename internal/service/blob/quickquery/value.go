package quickquery

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"
	"strings"
	"time"
)

// kind is a value's data type: the language's five (INT, FLOAT, STRING,
// TIMESTAMP, BOOLEAN), plus NULL and MISSING (a JSON field that is absent).
type kind uint8

const (
	kindNull kind = iota
	kindMissing
	kindInt
	kindFloat
	kindString
	kindBool
	kindTime
	kindJSON // a JSON object or array, kept whole for output
)

// value is one typed value. Values read from CSV data are strings; CAST
// and the operators convert them.
type value struct {
	k kind
	i int64 // kindInt; kindBool (0 or 1)
	f float64
	s string
	t time.Time
	j any // kindJSON: object or []any
}

var (
	null    = value{k: kindNull}
	missing = value{k: kindMissing}
)

func intValue(i int64) value      { return value{k: kindInt, i: i} }
func floatValue(f float64) value  { return value{k: kindFloat, f: f} }
func stringValue(s string) value  { return value{k: kindString, s: s} }
func timeValue(t time.Time) value { return value{k: kindTime, t: t} }
func boolValue(b bool) value {
	if b {
		return value{k: kindBool, i: 1}
	}
	return value{k: kindBool}
}

func (v value) isNullOrMissing() bool { return v.k == kindNull || v.k == kindMissing }
func (v value) isNumber() bool        { return v.k == kindInt || v.k == kindFloat }

// RecordError is a problem with one record (a value that does not convert,
// a division by zero): the service reports it as a non-fatal error and
// skips the record.
type RecordError struct {
	Name, Description string
}

func (e *RecordError) Error() string { return e.Name + ": " + e.Description }

var (
	errTypeConversion  = &RecordError{"InvalidTypeConversion", "Invalid type conversion."}
	errDivideByZero    = &RecordError{"DivideByZero", "Division by zero."}
	errInvalidArgument = &RecordError{"InvalidArgument", "Invalid function argument."}
)

func (v value) asString() (string, error) {
	switch v.k {
	case kindString:
		return v.s, nil
	case kindInt:
		return strconv.FormatInt(v.i, 10), nil
	case kindFloat:
		return formatFloat(v.f), nil
	case kindBool:
		return strconv.FormatBool(v.i == 1), nil
	case kindTime:
		return formatTimestamp(v.t), nil
	case kindJSON:
		b, err := json.Marshal(jsonOut(v.j))
		if err != nil {
			return "", errTypeConversion
		}
		return string(b), nil
	}
	return "", errTypeConversion
}

func formatFloat(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

func (v value) asInt() (int64, error) {
	switch v.k {
	case kindInt:
		return v.i, nil
	case kindFloat:
		if math.IsNaN(v.f) || math.Abs(v.f) > math.MaxInt64 {
			return 0, errTypeConversion
		}
		return int64(v.f), nil
	case kindString:
		i, err := strconv.ParseInt(strings.TrimSpace(v.s), 10, 64)
		if err != nil {
			return 0, errTypeConversion
		}
		return i, nil
	case kindBool:
		return v.i, nil
	}
	return 0, errTypeConversion
}

func (v value) asFloat() (float64, error) {
	switch v.k {
	case kindInt:
		return float64(v.i), nil
	case kindFloat:
		return v.f, nil
	case kindString:
		f, err := strconv.ParseFloat(strings.TrimSpace(v.s), 64)
		if err != nil {
			return 0, errTypeConversion
		}
		return f, nil
	}
	return 0, errTypeConversion
}

func (v value) asBool() (bool, error) {
	switch v.k {
	case kindBool:
		return v.i == 1, nil
	case kindString:
		switch strings.ToLower(strings.TrimSpace(v.s)) {
		case "true":
			return true, nil
		case "false":
			return false, nil
		}
	}
	return false, errTypeConversion
}

func (v value) asTime() (time.Time, error) {
	switch v.k {
	case kindTime:
		return v.t, nil
	case kindString:
		return parseTimestamp(strings.TrimSpace(v.s))
	}
	return time.Time{}, errTypeConversion
}

// asNumber converts a string to the number it spells (an INT when it has
// no fraction or exponent); numbers pass through.
func (v value) asNumber() (value, error) {
	switch v.k {
	case kindInt, kindFloat:
		return v, nil
	case kindString:
		t := strings.TrimSpace(v.s)
		if i, err := strconv.ParseInt(t, 10, 64); err == nil {
			return intValue(i), nil
		}
		if f, err := strconv.ParseFloat(t, 64); err == nil {
			return floatValue(f), nil
		}
	case kindBool:
		return intValue(v.i), nil
	}
	return null, errTypeConversion
}

// castTo converts v to type to, as CAST does; NULL and MISSING stay.
func castTo(v value, to kind) (value, error) {
	if v.isNullOrMissing() {
		return v, nil
	}
	switch to {
	case kindInt:
		if v.k == kindString {
			n, err := v.asNumber()
			if err != nil {
				return null, err
			}
			v = n
		}
		i, err := v.asInt()
		return intValue(i), err
	case kindFloat:
		f, err := v.asFloat()
		return floatValue(f), err
	case kindString:
		s, err := v.asString()
		return stringValue(s), err
	case kindBool:
		b, err := v.asBool()
		return boolValue(b), err
	case kindTime:
		t, err := v.asTime()
		return timeValue(t), err
	}
	return null, errTypeConversion
}

// compareValues orders a and b. ok is false when either is NULL or MISSING
// (the comparison is unknown). Mixed types meet at the higher type as the
// language's precedence rules have it: a string beside a number is read as
// a number, beside a timestamp as a timestamp, beside a boolean as one.
func compareValues(a, b value) (cmp int, ok bool, err error) {
	if a.isNullOrMissing() || b.isNullOrMissing() {
		return 0, false, nil
	}
	switch {
	case a.k == kindTime || b.k == kindTime:
		x, err1 := a.asTime()
		y, err2 := b.asTime()
		if err1 != nil || err2 != nil {
			return 0, false, errTypeConversion
		}
		return x.Compare(y), true, nil
	case a.isNumber() || b.isNumber():
		x, err1 := a.asNumber()
		y, err2 := b.asNumber()
		if err1 != nil || err2 != nil {
			return 0, false, errTypeConversion
		}
		return compareNumbers(x, y), true, nil
	case a.k == kindBool || b.k == kindBool:
		x, err1 := a.asBool()
		y, err2 := b.asBool()
		if err1 != nil || err2 != nil {
			return 0, false, errTypeConversion
		}
		return boolOrder(x) - boolOrder(y), true, nil
	}
	return strings.Compare(a.s, b.s), true, nil
}

func boolOrder(b bool) int {
	if b {
		return 1
	}
	return 0
}

func compareNumbers(x, y value) int {
	if x.k == kindInt && y.k == kindInt {
		switch {
		case x.i < y.i:
			return -1
		case x.i > y.i:
			return 1
		}
		return 0
	}
	fx, _ := x.asFloat()
	fy, _ := y.asFloat()
	switch {
	case fx < fy:
		return -1
	case fx > fy:
		return 1
	}
	return 0
}

// text renders a value for CSV output: NULL and MISSING as an empty field.
func (v value) text() string {
	if v.isNullOrMissing() {
		return ""
	}
	s, _ := v.asString()
	return s
}

// jsonValue is the value as encoding/json should write it.
func (v value) jsonValue() any {
	switch v.k {
	case kindInt:
		return v.i
	case kindFloat:
		if math.IsNaN(v.f) || math.IsInf(v.f, 0) {
			return nil
		}
		return v.f
	case kindString:
		return v.s
	case kindBool:
		return v.i == 1
	case kindTime:
		return formatTimestamp(v.t)
	case kindJSON:
		return jsonOut(v.j)
	}
	return nil
}

// jsonOut prepares a decoded JSON value for encoding/json, keeping the
// order of object members.
func jsonOut(v any) any {
	switch x := v.(type) {
	case object:
		return x
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = jsonOut(e)
		}
		return out
	}
	return v
}

// MarshalJSON writes the members in their input order.
func (o object) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, m := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		name, err := json.Marshal(m.name)
		if err != nil {
			return nil, err
		}
		b.Write(name)
		b.WriteByte(':')
		val, err := json.Marshal(jsonOut(m.v))
		if err != nil {
			return nil, err
		}
		b.Write(val)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}
