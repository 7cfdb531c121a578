package file

import (
	"net/http"

	"github.com/lazuli-storage/lazuli/internal/engine/store"
	"github.com/lazuli-storage/lazuli/internal/rule/lease"
	"github.com/lazuli-storage/lazuli/internal/service/file/smbstate"
)

// leaseFile is Lease File (learn.microsoft.com/rest/api/storageservices/lease-file): infinite leases only, no renew, an
// immediate break. Acquiring behaves as an SMB open for write and delete
// that shares reads, so open handles with write or delete access refuse it.
func (s *Service) leaseFile(w http.ResponseWriter, r *http.Request) error {
	t := targetOf(r)
	req, err := lease.ParseRequest(r.Header, lease.File)
	if err != nil {
		return err
	}
	if err := readOnlySnapshot(t); err != nil {
		return err
	}
	now := s.now()
	var n *node
	var res lease.Result
	err = s.store.Update(r.Context(), func(tx store.Tx) error {
		var err error
		if n, err = fileFor(tx, t, true); err != nil {
			return err
		}
		if req.Action == lease.Acquire {
			if err := smbstate.Check(smbstate.LeaseFile, n.Opens); err != nil {
				return err
			}
		}
		if n.Lease, res, err = lease.Apply(n.Lease, req, now, lease.File); err != nil {
			return err
		}
		return saveNode(tx, t.Account, t.Share, "", t.Path, n)
	})
	if err != nil {
		return err
	}
	writeLeaseResult(w, n.ETag, res)
	return nil
}
