package bench

import "testing"

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
