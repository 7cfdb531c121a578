package sqlite

import (
	"path/filepath"
	"testing"

	"github.com/lazuli-storage/lazuli/internal/store"
	"github.com/lazuli-storage/lazuli/internal/store/storetest"
)

func TestConformance(t *testing.T) {
	storetest.Run(t, storetest.Engine{
		Name:        "sqlite",
		NewLocation: func(t testing.TB) string { return t.TempDir() },
		Open: func(_ testing.TB, dir string) (store.Store, error) {
			return Open(filepath.Join(dir, "lazuli.db"), Options{})
		},
		Persistent: true,
	})
}
