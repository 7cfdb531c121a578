package request

import (
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/lazuli-storage/lazuli/internal/rule/azerr"
)

// failingReader fails every read with err.
type failingReader struct{ err error }

func (r failingReader) Read([]byte) (int, error) { return 0, r.err }

// A body whose reader fails is the client's fault, 400 InvalidInput; an
// error of the storage the body was streamed into (here a database that
// ended the connection) is not, and stays the internal error it is.
func TestBodyErrorBlamesOnlyTheBodysReads(t *testing.T) {
	cause := errors.New("malformed chunked encoding")
	_, readErr := io.ReadAll(MarkReads(failingReader{cause}))
	if e, ok := azerr.As(BodyError(readErr)); !ok || e.Code != azerr.InvalidInput {
		t.Fatalf("a failed body read maps to %v, want InvalidInput", BodyError(readErr))
	}
	storage := errors.New("pgextent: write chunk 0: terminating connection due to administrator command")
	if got := BodyError(storage); got != storage {
		t.Fatalf("a storage error maps to %v, want it unchanged", got)
	}
	if _, err := io.ReadAll(MarkReads(strings.NewReader("whole body"))); err != nil {
		t.Fatalf("a body read to its end: %v", err)
	}
}
