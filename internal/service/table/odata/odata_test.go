package odata

import (
	"math"
	"testing"
	"time"
)

// mapEntity is a test entity.
type mapEntity map[string]Value

func (m mapEntity) Property(name string) (Value, bool) {
	v, ok := m[name]
	return v, ok
}

var when = time.Date(2020, 5, 17, 10, 30, 0, 123456700, time.UTC)

var sample = mapEntity{
	"PartitionKey": String("p1"),
	"RowKey":       String("r'5"),
	"Name":         String("Smith"),
	"Age":          Int32(42),
	"Big":          Int64(9007199254740993),
	"Price":        Double(19.5),
	"Whole":        Double(3),
	"Nan":          Double(math.NaN()),
	"Active":       Bool(true),
	"Off":          Bool(false),
	"When":         DateTime(when),
	"Id":           Guid("c9da6455-213d-42c9-9a79-3e9149a57833"),
	"Blob":         Binary([]byte{0x01, 0xAB, 0xFF}),
	"Empty":        String(""),
}

func TestFilterExpressions(t *testing.T) {
	cases := []struct {
		filter string
		want   bool
	}{
		{"", true},
		{"PartitionKey eq 'p1'", true},
		{"PartitionKey eq 'p2'", false},
		{"PartitionKey ne 'p2'", true},
		{"'p1' eq PartitionKey", true},
		{"RowKey eq 'r''5'", true},
		{"RowKey gt 'r'", true},
		{"RowKey lt 'r'", false},
		{"Name ge 'Smith'", true},
		{"Name gt 'Smith'", false},
		{"Name le 'Smith'", true},
		{"Name lt 'Smitha'", true},
		{"Name eq 'smith'", false},
		{"Age eq 42", true},
		{"Age ne 42", false},
		{"Age gt 41", true},
		{"Age ge 42", true},
		{"Age lt 42", false},
		{"Age le 42", true},
		{"40 lt Age", true},
		{"50 lt Age", false},
		{"Age eq 42L", true},
		{"Age eq 42.0", false},
		{"Age eq '42'", false},
		{"Big eq 9007199254740993L", true},
		{"Big gt 9007199254740992L", true},
		{"Big eq 9007199254740993", false},
		{"Big gt 5", false},
		{"Price eq 19.5", true},
		{"Price gt 19", true},
		{"Price lt 20.0", true},
		{"Price ge 1.95e1", true},
		{"Whole eq 3", true},
		{"Whole eq 3.0", true},
		{"Nan eq 1.0", false},
		{"Nan ne 1.0", false},
		{"Active eq true", true},
		{"Active eq false", false},
		{"Off eq false", true},
		{"Active", true},
		{"Off", false},
		{"not Off", true},
		{"not Active", false},
		{"true", true},
		{"false", false},
		{"When eq datetime'2020-05-17T10:30:00.1234567Z'", true},
		{"When gt datetime'2020-05-17T10:30:00Z'", true},
		{"When lt datetime'2020-05-17T10:30:00Z'", false},
		{"When eq datetime'2020-05-17T12:30:00.1234567+02:00'", true},
		{"When eq '2020-05-17T10:30:00.1234567Z'", false},
		{"Id eq guid'C9DA6455-213D-42C9-9A79-3E9149A57833'", true},
		{"Id ne guid'00000000-0000-0000-0000-000000000000'", true},
		{"Id eq 'c9da6455-213d-42c9-9a79-3e9149a57833'", false},
		{"Blob eq X'01abff'", true},
		{"Blob eq binary'01ABFF'", true},
		{"Blob eq X'01ab'", false},
		{"Blob gt X'01ab'", true},
		{"Missing eq 1", false},
		{"Missing ne 1", false},
		{"not (Missing eq 1)", true},
		{"Empty eq ''", true},
		{"Age gt 40 and Name eq 'Smith'", true},
		{"Age gt 50 and Name eq 'Smith'", false},
		{"Age gt 50 or Name eq 'Smith'", true},
		{"Age gt 50 or Name eq 'Jones'", false},
		{"not (Age gt 50) and Active", true},
		{"not Age gt 50", true},
		{"(Age gt 50 or Age lt 45) and (PartitionKey eq 'p1')", true},
		{"Age gt 50 or Age lt 45 and PartitionKey eq 'p2'", false},
		{"(Age gt 50 or Age lt 45) and PartitionKey eq 'p2'", false},
		{"((((Age eq 42))))", true},
		{"Age EQ 42 AND Active eq true", true},
		{"PartitionKey eq 'p1' and RowKey ge 'r' and RowKey lt 's'", true},
		{"1 eq 1", true},
		{"1 eq 2", false},
		{"Age eq -42", false},
		{"Age gt -42", true},
		{"Age gt +41", true},
	}
	for _, c := range cases {
		f, err := Parse(c.filter)
		if err != nil {
			t.Errorf("Parse(%q): %v", c.filter, err)
			continue
		}
		if got := f.Match(sample); got != c.want {
			t.Errorf("%q: got %v, want %v", c.filter, got, c.want)
		}
	}
	if len(cases) < 60 {
		t.Fatalf("only %d cases", len(cases))
	}
}

func TestFilterSyntaxErrors(t *testing.T) {
	bad := []string{
		"Age eq",
		"eq 5",
		"Age eq 5 and",
		"(Age eq 5",
		"Age eq 5)",
		"Name eq 'unterminated",
		"Age eq 5 5",
		"Age == 5",
		"Age eq datetime'yesterday'",
		"Age eq guid'123'",
		"Age eq X'zz'",
		"Age eq foo'1'",
		"Age eq Name",
		"Age eq 12abc",
		"Age eq 1.5.5L",
		"Age eq 99999999999999999999L",
		"Age eq null",
		"Age eq 5 or",
		"not",
		"'abc'",
		"Age eq 1 and A eq 2 and B eq 3 and C eq 4 and D eq 5 and E eq 6 and F eq 7 and G eq 8 and H eq 9 and I eq 10 and J eq 11 and K eq 12 and L eq 13 and M eq 14 and N eq 15 and O eq 16",
	}
	for _, s := range bad {
		if _, err := Parse(s); err == nil {
			t.Errorf("Parse(%q) succeeded, want a syntax error", s)
		}
	}
}

func TestFifteenComparisonsAllowed(t *testing.T) {
	s := "A eq 1"
	for i := 0; i < 14; i++ {
		s += " or A eq 1"
	}
	if _, err := Parse(s); err != nil {
		t.Fatalf("15 comparisons: %v", err)
	}
}

func TestPlan(t *testing.T) {
	cases := []struct {
		filter       string
		pkExact      bool
		pk           string
		empty        bool
		rkLow, rkHi  string
		noBoundsOnPK bool
	}{
		{filter: "PartitionKey eq 'a'", pkExact: true, pk: "a"},
		{filter: "PartitionKey eq 'a' and RowKey ge 'b' and RowKey lt 'c'", pkExact: true, pk: "a", rkLow: "b", rkHi: "c"},
		{filter: "RowKey ge 'b' and PartitionKey eq 'a' and Age gt 5", pkExact: true, pk: "a", rkLow: "b"},
		{filter: "PartitionKey eq 'a' and PartitionKey eq 'b'", empty: true},
		{filter: "PartitionKey eq 'a' or PartitionKey eq 'b'", noBoundsOnPK: true},
		{filter: "not (PartitionKey eq 'a')", noBoundsOnPK: true},
		{filter: "PartitionKey eq 5", empty: true},
		{filter: "'a' eq PartitionKey", pkExact: true, pk: "a"},
		{filter: "PartitionKey eq 'a' and RowKey gt 'z' and RowKey lt 'b'", empty: true},
	}
	for _, c := range cases {
		f, err := Parse(c.filter)
		if err != nil {
			t.Fatalf("Parse(%q): %v", c.filter, err)
		}
		p := f.Plan()
		if p.PK.Empty != c.empty {
			t.Errorf("%q: empty = %v, want %v", c.filter, p.PK.Empty, c.empty)
			continue
		}
		if c.empty {
			continue
		}
		if c.noBoundsOnPK && (p.PK.HasLow || p.PK.HasHigh) {
			t.Errorf("%q: unexpected PK bounds %+v", c.filter, p.PK)
		}
		if p.PK.Exact() != c.pkExact || (c.pkExact && p.PK.Low != c.pk) {
			t.Errorf("%q: PK %+v", c.filter, p.PK)
		}
		if c.rkLow != "" && (!p.RK.HasLow || p.RK.Low != c.rkLow) {
			t.Errorf("%q: RK low %+v", c.filter, p.RK)
		}
		if c.rkHi != "" && (!p.RK.HasHigh || p.RK.High != c.rkHi) {
			t.Errorf("%q: RK high %+v", c.filter, p.RK)
		}
	}
}

func TestRangeContains(t *testing.T) {
	var r Range
	r.restrict(OpGe, "b")
	r.restrict(OpLt, "d")
	for s, want := range map[string]bool{"a": false, "b": true, "c": true, "d": false, "e": false} {
		if r.Contains(s) != want {
			t.Errorf("Contains(%q) != %v", s, want)
		}
	}
}

func TestDateTimeTicksRoundTrip(t *testing.T) {
	for _, tm := range []time.Time{
		time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(1601, 1, 1, 0, 0, 0, 0, time.UTC),
		when,
		time.Date(9999, 12, 31, 23, 59, 59, 999999900, time.UTC),
	} {
		if got := TicksToTime(TimeToTicks(tm)); !got.Equal(tm) {
			t.Errorf("round trip %v -> %v", tm, got)
		}
	}
	if s := FormatDateTime(when); s != "2020-05-17T10:30:00.1234567Z" {
		t.Errorf("FormatDateTime = %s", s)
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"PartitionKey eq 'a' and RowKey gt 'b'",
		"not (Age gt 5) or Active",
		"When eq datetime'2020-05-17T10:30:00Z' and Id eq guid'c9da6455-213d-42c9-9a79-3e9149a57833'",
		"Blob eq X'00ff' or Big le -5L or P gt 1.5e3",
		"((A eq 'x''y'))",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		flt, err := Parse(s)
		if err != nil {
			return
		}
		_ = flt.Match(sample)
		p := flt.Plan()
		// The plan must never exclude a key the filter accepts.
		if flt.Match(sample) && !p.PK.Contains("p1") {
			t.Fatalf("plan %+v excludes a matching entity for %q", p, s)
		}
		if flt.Match(sample) && p.PK.Exact() && !p.RK.Contains("r'5") {
			t.Fatalf("plan %+v excludes a matching row for %q", p, s)
		}
	})
}
