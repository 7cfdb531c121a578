package request

import (
	"errors"
	"fmt"
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

// A body that ends before its Content-Length is the client's (400); the
// same unexpected EOF from the storage the body streams into, which pgx
// reports for a database connection cut mid-statement, is not: a
// PostgreSQL restart under load was answered 400 InvalidInput, which the
// SDKs do not retry (TestPostgresRestartUnderLoad in cmd/lazuli).
func TestShortBodyIsOnlyTheBodysOwn(t *testing.T) {
	_, cut := io.ReadAll(MarkReads(failingReader{io.ErrUnexpectedEOF}))
	if !ShortBody(cut) || !ShortBody(fmt.Errorf("extent: write: %w", cut)) {
		t.Fatalf("a body cut short (%v) is not reported short", cut)
	}
	storage := fmt.Errorf("pgextent: write: %w", io.ErrUnexpectedEOF)
	if ShortBody(storage) {
		t.Fatalf("a storage error %v is reported as a short body", storage)
	}
	if ShortBody(nil) || ShortBody(io.EOF) {
		t.Fatal("no error, or a plain EOF, is reported as a short body")
	}
}
