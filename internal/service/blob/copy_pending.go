package blob

import (
	"net/http"
	"time"

	"github.com/lazuli-storage/lazuli/internal/frame/request"
)

// Azure runs Copy Blob asynchronously: between accounts it answers 202
// with x-ms-copy-status pending, and the copy completes later, which code
// watches by polling the destination's x-ms-copy-status and may stop with
// Abort Copy Blob. Lazuli writes the destination in the request, as
// Azurite does, so such code never sees a pending copy. With
// --crossAccountCopyRate, a copy whose source is another account or
// another server stays pending for as long as copying its bytes at that
// rate would take: its progress reads 0 of the total, writes to it are 409
// PendingCopyOperation, and Abort Copy Blob leaves it empty, as on Azure;
// afterwards it reads as a finished copy. A copy within one account stays
// immediate, as Azure's usually is.

// crossAccountCopyTime is how long a copy of size bytes from src into the
// request's account stays pending.
func (s *Service) crossAccountCopyTime(r *http.Request, src copySource, size int64) time.Duration {
	if s.crossAccountCopyRate <= 0 || (src.local && src.account == request.Of(r).Account) {
		return 0
	}
	return time.Duration(float64(size) / s.crossAccountCopyRate * float64(time.Second))
}
