package table

import (
	"strings"
	"testing"

	"github.com/lazuli-storage/lazuli/internal/service/table/odata"
)

// TestETagRendering checks the appending ETag writers against the ETag's
// definition, and that an ETag reads back to its ticks.
func TestETagRendering(t *testing.T) {
	for _, ticks := range []int64{1, 637000000000000001, 638500000123456789, 3155378975999999999} {
		want := `W/"datetime'` + strings.ReplaceAll(odata.FormatDateTime(odata.TicksToTime(ticks)), ":", "%3A") + `'"`
		if got := formatETag(ticks); got != want {
			t.Fatalf("formatETag(%d) = %s, want %s", ticks, got, want)
		}
		if got, want := string(appendJSONETag(nil, ticks)), string(appendJSONString(nil, want)); got != want {
			t.Fatalf("appendJSONETag(%d) = %s, want %s", ticks, got, want)
		}
		if back, ok := parseETag(want); !ok || back != ticks {
			t.Fatalf("parseETag(%s) = %d %v", want, back, ok)
		}
	}
}
