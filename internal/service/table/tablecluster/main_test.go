package tablecluster_test

import (
	"os"
	"testing"

	"github.com/lazuli-storage/lazuli/internal/engine/store/postgres/pgtest"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }
