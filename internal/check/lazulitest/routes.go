package lazulitest

import (
	"testing"

	"github.com/lazuli-storage/lazuli/internal/engine/extent/memory"
	memstore "github.com/lazuli-storage/lazuli/internal/engine/store/memory"
	"github.com/lazuli-storage/lazuli/internal/frame/route"
	"github.com/lazuli-storage/lazuli/internal/frame/server"
	"github.com/lazuli-storage/lazuli/internal/service/blob"
	"github.com/lazuli-storage/lazuli/internal/service/file"
	"github.com/lazuli-storage/lazuli/internal/service/queue"
	"github.com/lazuli-storage/lazuli/internal/service/table"
)

// RouteTable builds service (blob, queue, table or file) on throwaway
// in-memory storage and returns its route table, for tests that walk
// every operation.
func RouteTable(t testing.TB, service string) route.Table {
	t.Helper()
	deps := server.Deps{Store: memstore.New(), Extents: memory.New()}
	var s interface{ Routes() route.Table }
	var err error
	switch service {
	case "blob":
		s, err = blob.New(deps)
	case "queue":
		s, err = queue.New(deps)
	case "table":
		s, err = table.New(deps)
	case "file":
		s, err = file.New(deps)
	default:
		t.Fatalf("no REST service %q", service)
	}
	if err != nil {
		t.Fatal(err)
	}
	return s.Routes()
}
