package main

import "testing"

func TestReserveHeapLeavesOperatorTuningAlone(t *testing.T) {
	for _, tc := range []struct {
		name, gogc, memLimit string
		want                 int
	}{
		{"defaults", "", "", ballastSize},
		{"GOGC set", "200", "", 0},
		{"GOMEMLIMIT set", "", "512MiB", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("GOGC", tc.gogc)
			t.Setenv("GOMEMLIMIT", tc.memLimit)
			ballast = nil
			t.Cleanup(func() { ballast = nil })
			reserveHeap()
			if len(ballast) != tc.want {
				t.Fatalf("ballast is %d bytes, want %d", len(ballast), tc.want)
			}
		})
	}
}
