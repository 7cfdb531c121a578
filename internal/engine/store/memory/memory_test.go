package memory

import (
	"testing"

	"github.com/lazuli-storage/lazuli/internal/engine/store"
	"github.com/lazuli-storage/lazuli/internal/engine/store/storetest"
)

func TestConformance(t *testing.T) {
	storetest.Run(t, storetest.Engine{
		Name:        "memory",
		NewLocation: func(testing.TB) string { return "" },
		Open:        func(testing.TB, string) (store.Store, error) { return New(), nil },
	})
}
