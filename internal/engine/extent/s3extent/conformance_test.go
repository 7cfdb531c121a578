package s3extent

import (
	"testing"

	"github.com/lazuli-storage/lazuli/internal/engine/extent"
	"github.com/lazuli-storage/lazuli/internal/engine/extent/extenttest"
)

func TestConformance(t *testing.T) {
	extenttest.Run(t, func(t testing.TB) extent.Engine { e, _ := openTest(t, Options{}); return e })
}
