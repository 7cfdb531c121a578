package s3extent

import (
	"testing"

	"github.com/lazuli-storage/lazuli/internal/engine/extent"
	"github.com/lazuli-storage/lazuli/internal/engine/extent/extenttest"
)

func TestConformance(t *testing.T) {
	extenttest.Run(t, func(t testing.TB) extent.Engine { e, _ := openTest(t, Options{}); return e })
}

// Parts smaller than S3's minimum (which the test server does not enforce)
// make the suite's larger extents multipart uploads of several parts, one
// of them ending exactly at a part boundary.
func TestConformanceSmallParts(t *testing.T) {
	extenttest.Run(t, func(t testing.TB) extent.Engine {
		e, _ := openTest(t, Options{})
		e.partSize = 1 << 20
		return e
	})
}
