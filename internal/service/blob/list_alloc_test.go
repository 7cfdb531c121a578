package blob

import (
	"fmt"
	"net/http/httptest"
	"runtime"
	"testing"
	"time"

	"github.com/lazuli-storage/lazuli/internal/base/clock"
	"github.com/lazuli-storage/lazuli/internal/rule/contentprops"
	"github.com/lazuli-storage/lazuli/internal/service/blobdata"
)

// TestBlobListPageAllocatesAboutItsSize writes a full 5,000-blob page and
// counts the bytes allocated meanwhile: a buffer grown by copying as the
// answer is written allocates about five times the answer (each growth
// step a quarter larger than the last), which took nearly half of writing
// such a page (docs/performance.md, Growth); one sized for its items up
// front allocates little more than the answer itself.
func TestBlobListPageAllocatesAboutItsSize(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates on its own account")
	}
	created := time.Date(2026, 11, 28, 4, 0, 0, 0, time.UTC)
	items := make([]blobItem, maxListResults)
	for i := range items {
		rec := &blobdata.Blob{Type: blobdata.BlockBlob, Committed: true, Created: created, Size: 1024,
			Props: contentprops.Props{Type: "application/octet-stream"}}
		items[i] = blobItem{name: fmt.Sprintf("item-%07d", i), rec: rec}
	}
	s := &Service{clock: clock.Real{}}
	r := httptest.NewRequest("GET", "http://127.0.0.1:10000/devstoreaccount1/c?restype=container&comp=list", nil)
	p := listParams{max: maxListResults, include: map[string]bool{}}
	w := httptest.NewRecorder()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	if err := s.writeBlobList(w, r, "c", p, items, ""); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	body := w.Body.Len()
	allocated := after.TotalAlloc - before.TotalAlloc
	t.Logf("a %d-byte page of %d blobs allocated %d bytes", body, len(items), allocated)
	// The recorder copies the answer once; per-item strings (dates,
	// ETags) are small beside each item's XML.
	if limit := uint64(3 * body); allocated > limit {
		t.Fatalf("a %d-byte page of %d blobs allocated %d bytes, more than %d", body, len(items), allocated, limit)
	}
}
