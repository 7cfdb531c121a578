package cond

import (
	"net/http"
	"testing"
	"time"
)

func TestTierConditions(t *testing.T) {
	changed := time.Date(2026, 11, 24, 12, 0, 0, 500_000_000, time.UTC) // mid-second
	for _, tc := range []struct {
		name, header, value string
		holds               bool
	}{
		{"modified since before", "X-Ms-Access-Tier-If-Modified-Since", "Tue, 24 Nov 2026 11:59:59 GMT", true},
		{"modified since the same second", "X-Ms-Access-Tier-If-Modified-Since", "Tue, 24 Nov 2026 12:00:00 GMT", false},
		{"modified since after", "X-Ms-Access-Tier-If-Modified-Since", "Tue, 24 Nov 2026 12:00:10 GMT", false},
		{"unmodified since the same second", "X-Ms-Access-Tier-If-Unmodified-Since", "Tue, 24 Nov 2026 12:00:00 GMT", true},
		{"unmodified since before", "X-Ms-Access-Tier-If-Unmodified-Since", "Tue, 24 Nov 2026 11:59:50 GMT", false},
		{"none", "X-Other", "x", true},
	} {
		c, err := ParseTier(http.Header{tc.header: {tc.value}})
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if err := c.Check(changed); (err == nil) != tc.holds {
			t.Errorf("%s: Check = %v, want holds=%v", tc.name, err, tc.holds)
		}
	}
	if _, err := ParseTier(http.Header{"X-Ms-Access-Tier-If-Modified-Since": {"yesterday"}}); err == nil {
		t.Error("an unparsable date was accepted")
	}
}
