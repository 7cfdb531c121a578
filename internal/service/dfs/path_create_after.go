package dfs

import (
	"context"
	"net/http"
	"time"

	"github.com/lazuli-storage/lazuli/internal/rule/azerr"
	"github.com/lazuli-storage/lazuli/internal/rule/lease"
	"github.com/lazuli-storage/lazuli/internal/service/blob"
	"github.com/lazuli-storage/lazuli/internal/service/blobdata"
)

// encryptionContextHeader is the value Path - Create may give a file, kept
// as it is and answered on reads of the path and in List Paths; at most
// 1024 characters.
const (
	encryptionContextHeader = "x-ms-encryption-context"
	maxEncryptionContext    = 1024
)

// createExtras is what Path - Create stores on the path beyond what Put
// Blob writes: the lease it proposes and the encryption context.
type createExtras struct {
	lease   *lease.Request
	context string
}

// parseCreateExtras reads x-ms-proposed-lease-id with x-ms-lease-duration
// (15 to 60 seconds, or -1 for an infinite lease), checked as Lease
// Blob's acquire checks them, and x-ms-encryption-context.
func parseCreateExtras(h http.Header) (createExtras, error) {
	x := createExtras{context: h.Get(encryptionContextHeader)}
	if len(x.context) > maxEncryptionContext {
		return x, azerr.InvalidHeader(encryptionContextHeader, x.context)
	}
	if h.Get(lease.HeaderProposedID) == "" && h.Get(lease.HeaderDuration) == "" {
		return x, nil
	}
	acquire := http.Header{}
	acquire.Set(lease.HeaderAction, lease.Acquire)
	for _, name := range []string{lease.HeaderProposedID, lease.HeaderDuration} {
		if v := h.Get(name); v != "" {
			acquire.Set(name, v)
		}
	}
	req, err := lease.ParseRequest(acquire, lease.Blob)
	if err != nil {
		return x, err
	}
	x.lease = &req
	return x, nil
}

// within returns ctx under which Put Blob keeps the extras on the path it
// writes, in its transaction: the lease is acquired as Lease Blob's
// acquire would (a lease another holds is 409 and the path is not
// written). Nothing to keep adds nothing.
func (x createExtras) within(ctx context.Context) context.Context {
	if x.lease == nil && x.context == "" {
		return ctx
	}
	return blob.WithWriteHook(ctx, x.apply)
}

// apply keeps the extras on b, the record being written at now.
func (x createExtras) apply(b *blobdata.Blob, now time.Time) error {
	if x.lease != nil {
		var err error
		if b.Lease, _, err = lease.Apply(b.Lease, *x.lease, now, lease.Blob); err != nil {
			return err
		}
	}
	b.EncryptionContext = x.context
	return nil
}
