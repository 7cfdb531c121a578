package metrics

import (
	"errors"
	"testing"
	"time"
)

// Recording a request of a kind already seen, and a store transaction,
// allocates nothing: every request pays for it.
func TestRecordingAllocatesNothing(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates on its own account")
	}
	m := New(Options{})
	fail := errors.New("failed")
	for name, record := range map[string]func(){
		"request":     func() { m.Request("blob", "GetBlob", 200, "", 0, 1024, time.Millisecond) },
		"view":        func() { m.views.count(nil) },
		"failed view": func() { m.views.count(fail) },
	} {
		record()
		if allocs := testing.AllocsPerRun(100, record); allocs != 0 {
			t.Errorf("%s: %v allocations; want 0", name, allocs)
		}
	}
}

func BenchmarkRequest(b *testing.B) {
	m := New(Options{})
	b.ReportAllocs()
	for b.Loop() {
		m.Request("blob", "GetBlob", 200, "", 0, 1024, time.Millisecond)
	}
}
