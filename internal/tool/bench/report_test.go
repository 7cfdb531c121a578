package bench

import (
	"strings"
	"testing"
)

func TestFormatRatio(t *testing.T) {
	cases := []struct {
		a, b []float64
		want string
	}{
		{[]float64{10, 30, 20}, []float64{5, 10, 1}, "4.00x"},
		{[]float64{28}, []float64{0}, "azurite completed none"},
		{[]float64{0}, []float64{0}, "neither completed an operation"},
		{[]float64{0, 0, 1}, []float64{2, 2, 2}, "0.00x"},
	}
	for _, tc := range cases {
		c := Comparison{Scenario: "s", A: "lazuli", B: "azurite", OpsA: tc.a, OpsB: tc.b}
		if mb := median(tc.b); mb > 0 {
			c.Ratio = median(tc.a) / mb
		}
		if got := formatRatio(c); got != tc.want {
			t.Errorf("%v vs %v: %q, want %q", tc.a, tc.b, got, tc.want)
		}
	}
}

// A scenario whose operations take seconds prints its rate, not 0; a
// skipped one says why.
func TestPrintSlowAndSkipped(t *testing.T) {
	var b strings.Builder
	Print(&b, []Result{
		{Target: "lazuli", Scenario: "dfs-rename-tree", Ops: 4, Seconds: 16, OpsPerSec: 0.25, P50ms: 2900},
		{Target: "null", Scenario: "dfs-list-paths", Skipped: "the account has no hierarchical namespace"},
	})
	out := b.String()
	for _, want := range []string{" 0.25 ", "skipped: the account has no hierarchical namespace"} {
		if !strings.Contains(out, want) {
			t.Errorf("Print wrote\n%s\nwithout %q", out, want)
		}
	}
}
