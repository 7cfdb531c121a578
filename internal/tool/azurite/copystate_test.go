package azurite

import (
	"testing"
	"time"
)

// A copy Azurite recorded becomes the record's copy state; one Lazuli
// cannot hold is refused rather than imported as something else.
func TestCopyState(t *testing.T) {
	at := time.Date(2026, 5, 6, 7, 8, 9, 0, time.UTC)
	s, err := azCopy{ID: "id-1", Status: "success", Source: "http://x/a/b", Progress: "12/12", CompletedAt: at}.state()
	if err != nil || s == nil || s.Total != 12 || !s.Ends.Equal(at) || !s.Aborted.IsZero() || s.Source != "http://x/a/b" {
		t.Fatalf("success copy: %+v, %v", s, err)
	}
	if s, err := (azCopy{}).state(); s != nil || err != nil {
		t.Fatalf("no copy: %+v, %v", s, err)
	}
	for _, bad := range []azCopy{{ID: "id-2", Status: "failed"}, {ID: "id-3", Status: "pending"},
		{ID: "id-4", Status: "success", Progress: "12"}, {ID: "id-5", Status: "success", Progress: "1/-3"}} {
		if _, err := bad.state(); err == nil {
			t.Errorf("%+v imported", bad)
		}
	}
}
