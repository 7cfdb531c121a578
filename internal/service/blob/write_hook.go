package blob

import (
	"context"
	"net/http"
	"time"

	"github.com/lazuli-storage/lazuli/internal/service/blobdata"
)

// WriteHook changes the record Put Blob is about to write, in Put Blob's
// transaction; an error refuses the write, which then stores nothing.
type WriteHook func(rec *blobdata.Blob, now time.Time) error

type writeHookKey struct{}

// WithWriteHook returns ctx under which Put Blob hands the record it
// writes to hook. Path - Create keeps there what no Put Blob header says
// (its proposed lease and encryption context), so that the path is
// created with them or not at all.
func WithWriteHook(ctx context.Context, hook WriteHook) context.Context {
	return context.WithValue(ctx, writeHookKey{}, hook)
}

// applyWriteHook runs the request's write hook, if it has one, on rec.
func applyWriteHook(r *http.Request, rec *blobdata.Blob, now time.Time) error {
	if hook, ok := r.Context().Value(writeHookKey{}).(WriteHook); ok && hook != nil {
		return hook(rec, now)
	}
	return nil
}
