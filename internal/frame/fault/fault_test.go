package fault

import (
	"testing"
	"time"
)

func TestValidate(t *testing.T) {
	cases := []struct {
		name       string
		rule       Rule
		wantErr    bool
		wantStatus int
		wantCode   string
	}{
		{"status implies code", Rule{Status: 503}, false, 503, "ServerBusy"},
		{"code implies status", Rule{Code: "InternalError"}, false, 500, "InternalError"},
		{"both", Rule{Status: 408, Code: "RequestTimeout"}, false, 408, "RequestTimeout"},
		{"412 default", Rule{Status: 412}, false, 412, "ConditionNotMet"},
		{"unknown status without code", Rule{Status: 429}, true, 0, ""},
		{"unknown code without status", Rule{Code: "NoSuchCode"}, true, 0, ""},
		{"not an error status", Rule{Status: 200, Code: "X"}, true, 0, ""},
		{"latency only", Rule{Latency: Duration(time.Second)}, false, 0, ""},
		{"close only", Rule{Close: true}, false, 0, ""},
		{"close and error", Rule{Close: true, Status: 503}, true, 0, ""},
		{"no action", Rule{Service: "blob"}, true, 0, ""},
		{"bad probability", Rule{Status: 503, Probability: 1.5}, true, 0, ""},
		{"every and probability", Rule{Status: 503, Every: 2, Probability: 0.5}, true, 0, ""},
		{"negative count", Rule{Status: 503, Count: -1}, true, 0, ""},
		{"negative latency", Rule{Latency: Duration(-time.Second)}, true, 0, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := c.rule
			err := r.Validate()
			if (err != nil) != c.wantErr {
				t.Fatalf("Validate() = %v, want error %v", err, c.wantErr)
			}
			if err == nil && (r.Status != c.wantStatus || r.Code != c.wantCode) {
				t.Errorf("got %d %q, want %d %q", r.Status, r.Code, c.wantStatus, c.wantCode)
			}
		})
	}
}

func TestSelectors(t *testing.T) {
	req := Request{Service: "blob", Account: "devstoreaccount1", Operation: "PutBlob", Path: "/photos/cat.jpg"}
	cases := []struct {
		rule Rule
		want bool
	}{
		{Rule{}, true},
		{Rule{Service: "blob"}, true},
		{Rule{Service: "queue"}, false},
		{Rule{Account: "devstoreaccount1"}, true},
		{Rule{Account: "other"}, false},
		{Rule{Operation: "PutBlob"}, true},
		{Rule{Operation: "putblob"}, true},
		{Rule{Operation: "GetBlob"}, false},
		{Rule{Prefix: "/photos/"}, true},
		{Rule{Prefix: "photos/c"}, true},
		{Rule{Prefix: "/videos/"}, false},
		{Rule{Service: "blob", Operation: "PutBlob", Prefix: "/photos", Account: "devstoreaccount1"}, true},
	}
	for _, c := range cases {
		c.rule.Status = 503
		if err := c.rule.Validate(); err != nil {
			t.Fatal(err)
		}
		if got := c.rule.selects(req); got != c.want {
			t.Errorf("%+v selects = %v, want %v", c.rule, got, c.want)
		}
	}
}

func TestEveryNthAndCount(t *testing.T) {
	var s Set
	if _, err := s.Add(Rule{Operation: "GetBlob", Every: 3, Count: 2, Status: 503}); err != nil {
		t.Fatal(err)
	}
	var fired []int
	for i := 1; i <= 12; i++ {
		if a := s.Match(Request{Service: "blob", Operation: "GetBlob"}); a != nil {
			fired = append(fired, i)
			if a.Err == nil || a.Err.Status != 503 || a.Err.Code != "ServerBusy" {
				t.Fatalf("action %+v", a)
			}
		}
		if a := s.Match(Request{Service: "blob", Operation: "PutBlob"}); a != nil {
			t.Fatalf("PutBlob was hit by a GetBlob rule")
		}
	}
	if len(fired) != 2 || fired[0] != 3 || fired[1] != 6 {
		t.Errorf("fired on %v, want [3 6]", fired)
	}
	got := s.List()[0]
	if got.Seen != 12 || got.Injected != 2 {
		t.Errorf("seen %d injected %d, want 12 and 2", got.Seen, got.Injected)
	}
}

func TestProbability(t *testing.T) {
	draws := []float64{0.1, 0.9, 0.29, 0.3}
	s := Set{rand: func() float64 { d := draws[0]; draws = draws[1:]; return d }}
	if _, err := s.Add(Rule{Probability: 0.3, Code: "InternalError"}); err != nil {
		t.Fatal(err)
	}
	var got []bool
	for range 4 {
		got = append(got, s.Match(Request{}) != nil)
	}
	want := []bool{true, false, true, false}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("fired %v, want %v", got, want)
		}
	}
}

func TestFirstFiringRuleWinsAndOthersStillCount(t *testing.T) {
	var s Set
	first, _ := s.Add(Rule{Service: "queue", Count: 1, Status: 500})
	second, _ := s.Add(Rule{Service: "queue", Latency: Duration(time.Millisecond)})
	if a := s.Match(Request{Service: "queue"}); a == nil || a.RuleID != first.ID {
		t.Fatalf("first request: %+v", a)
	}
	if a := s.Match(Request{Service: "queue"}); a == nil || a.RuleID != second.ID || a.Err != nil {
		t.Fatalf("second request: %+v", a)
	}
	rules := s.List()
	if rules[0].Seen != 2 || rules[1].Seen != 2 || rules[1].Injected != 1 {
		t.Errorf("counters %+v", rules)
	}
	if !s.Remove(first.ID) || s.Remove(first.ID) {
		t.Error("Remove")
	}
	s.Clear()
	if !s.Empty() {
		t.Error("Clear left rules")
	}
}
