package pgextent

import (
	"testing"

	"github.com/lazuli-storage/lazuli/internal/engine/extent"
	"github.com/lazuli-storage/lazuli/internal/engine/extent/extenttest"
)

func TestConformance(t *testing.T) {
	extenttest.Run(t, func(t testing.TB) extent.Engine { e, _ := openTest(t, 0); return e })
}

// Small chunks make the suite's extents span many chunk rows.
func TestConformanceSmallChunks(t *testing.T) {
	extenttest.Run(t, func(t testing.TB) extent.Engine { e, _ := openTest(t, 100<<10+3); return e })
}
