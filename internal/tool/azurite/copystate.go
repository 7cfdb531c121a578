package azurite

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/lazuli-storage/lazuli/internal/service/blobdata"
)

// azCopy is the copy state Azurite keeps in a blob's properties when Copy
// Blob or Copy Blob From URL wrote it. Azurite copies at once, so a copy it
// recorded is over: "success", or "aborted" or "failed" in a workspace an
// older release wrote.
type azCopy struct {
	ID          string    `json:"copyId"`
	Status      string    `json:"copyStatus"`
	Source      string    `json:"copySource"`
	Progress    string    `json:"copyProgress"` // "copied/total" bytes
	CompletedAt time.Time `json:"copyCompletionTime"`
}

// state is the copy as a Lazuli record keeps it, nil when the blob was not
// written by a copy. A copy that failed has no Lazuli form (Lazuli's
// copies do not fail once accepted) and is refused, as is a copy still
// pending, which Azurite never leaves behind.
func (c azCopy) state() (*blobdata.CopyState, error) {
	if c.ID == "" {
		return nil, nil
	}
	total, err := copyTotal(c.Progress)
	if err != nil {
		return nil, err
	}
	s := &blobdata.CopyState{ID: c.ID, Source: c.Source, Total: total, Started: c.CompletedAt, Ends: c.CompletedAt}
	switch c.Status {
	case blobdata.CopySuccess:
	case blobdata.CopyAborted:
		s.Aborted = c.CompletedAt
	default:
		return nil, fmt.Errorf("copy %s has status %q, which Lazuli cannot hold", c.ID, c.Status)
	}
	return s, nil
}

// copyTotal reads the total of "copied/total"; Azurite leaves the progress
// out for an empty source.
func copyTotal(progress string) (int64, error) {
	if progress == "" {
		return 0, nil
	}
	_, total, ok := strings.Cut(progress, "/")
	n, err := strconv.ParseInt(total, 10, 64)
	if !ok || err != nil || n < 0 {
		return 0, fmt.Errorf("copy progress %q is not copied/total bytes", progress)
	}
	return n, nil
}
