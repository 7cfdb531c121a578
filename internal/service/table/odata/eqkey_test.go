package odata

import (
	"math"
	"math/rand/v2"
	"reflect"
	"testing"
	"time"
)

// eqKeyValues covers every kind with values that are equal across kinds
// (3, 3.0, true/1), signed zeros, NaN, fractions, large integers and texts
// shared by a String and a Guid.
var eqKeyValues = []Value{
	String(""), String("a"), String("c9da6455-213d-42c9-9a79-3e9149a57833"),
	Guid("c9da6455-213d-42c9-9a79-3e9149a57833"),
	Bool(true), Bool(false),
	Int32(0), Int32(1), Int32(3), Int32(-7), Int32(math.MaxInt32),
	Int64(0), Int64(3), Int64(math.MaxInt64), Int64(math.MinInt64), Int64(1 << 53),
	Double(0), Double(math.Copysign(0, -1)), Double(3), Double(-7), Double(2.5),
	Double(1 << 53), Double(1e300), Double(math.Inf(1)), Double(math.Inf(-1)),
	Double(math.NaN()), Double(math.MaxInt32),
	{Kind: KindDateTime, Int: 3},
	Binary([]byte{1}),
}

// TestEqKeyAgreesWithCompare: whenever the evaluator finds a property
// equal to a literal, their keys are equal, so an index lookup by the
// literal's key finds every match.
func TestEqKeyAgreesWithCompare(t *testing.T) {
	for _, prop := range eqKeyValues {
		for _, lit := range eqKeyValues {
			c, ok := compare(prop, lit)
			if !ok || c != 0 {
				continue
			}
			pk, pok := prop.EqKey()
			lk, lok := lit.EqKey()
			if prop.Kind == KindBinary {
				if pok || lok {
					t.Errorf("binary values have keys: %v %v", pok, lok)
				}
				continue
			}
			if !pok || !lok || pk != lk {
				t.Errorf("prop %+v eq lit %+v, but keys %+v (%v) and %+v (%v)", prop, lit, pk, pok, lk, lok)
			}
		}
	}
}

func TestEqualities(t *testing.T) {
	cases := map[string][]Equality{
		"":                                 nil,
		"Group eq 42":                      {{"Group", Int32(42)}},
		"42 eq Group and Name eq 'x'":      {{"Group", Int32(42)}, {"Name", String("x")}},
		"Group eq 42 or Name eq 'x'":       nil,
		"not (Group eq 42)":                nil,
		"Group ne 42 and (A eq 1 and B)":   {{"A", Int32(1)}},
		"PartitionKey eq 'p' and X gt 1.5": {{"PartitionKey", String("p")}},
	}
	for filter, want := range cases {
		f, err := Parse(filter)
		if err != nil {
			t.Fatalf("Parse(%q): %v", filter, err)
		}
		if got := f.Equalities(); !reflect.DeepEqual(got, want) {
			t.Errorf("%q: %+v, want %+v", filter, got, want)
		}
	}
}

// TestAppendDateTimeMatchesFormat compares the fast formatter with
// time.Format over edge and random instants.
func TestAppendDateTimeMatchesFormat(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	ticks := []int64{0, 1, 9999999, 1e7, maxTicks - 1, maxTicks, -1, math.MaxInt64, math.MinInt64,
		TimeToTicks(time.Date(2000, 2, 29, 23, 59, 59, 999999900, time.UTC)),
		TimeToTicks(time.Date(999, 1, 1, 0, 0, 0, 100, time.UTC))}
	for i := 0; i < 10000; i++ {
		ticks = append(ticks, r.Int64N(maxTicks))
	}
	for _, n := range ticks {
		want := FormatDateTime(TicksToTime(n))
		if got := string(AppendDateTime([]byte("x"), n)); got != "x"+want {
			t.Fatalf("ticks %d: %q, want %q", n, got, "x"+want)
		}
	}
}

func FuzzAppendDateTime(f *testing.F) {
	f.Add(int64(0))
	f.Add(int64(maxTicks - 1))
	f.Add(int64(637000000000000000))
	f.Fuzz(func(t *testing.T, n int64) {
		if got, want := string(AppendDateTime(nil, n)), FormatDateTime(TicksToTime(n)); got != want {
			t.Fatalf("ticks %d: %q, want %q", n, got, want)
		}
	})
}
