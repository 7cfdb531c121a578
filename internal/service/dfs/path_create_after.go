package dfs

import (
	"net/http"

	"github.com/lazuli-storage/lazuli/internal/engine/store"
	"github.com/lazuli-storage/lazuli/internal/frame/request"
	"github.com/lazuli-storage/lazuli/internal/rule/azerr"
	"github.com/lazuli-storage/lazuli/internal/rule/lease"
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

// store keeps the extras on the path Put Blob has just written: the lease
// is acquired as Lease Blob's acquire would (a lease another holds is
// 409). Nothing to keep costs no transaction.
func (x createExtras) store(s *Service, r *http.Request) error {
	if x.lease == nil && x.context == "" {
		return nil
	}
	t, account := targetOf(r), request.Of(r).Account
	return s.store.Update(r.Context(), func(tx store.Tx) error {
		now := s.now()
		b, err := pathForWrite(tx, account, t.Filesystem, t.Path, now)
		if err != nil || b == nil {
			return err
		}
		if x.lease != nil {
			if b.Lease, _, err = lease.Apply(b.Lease, *x.lease, now, lease.Blob); err != nil {
				return err
			}
		}
		b.EncryptionContext = x.context
		return blobdata.SaveBlob(tx, account, t.Filesystem, t.Path, b)
	})
}
