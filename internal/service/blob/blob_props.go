package blob

import (
	"net/http"

	"github.com/lazuli-storage/lazuli/internal/engine/store"
	"github.com/lazuli-storage/lazuli/internal/frame/request"
	"github.com/lazuli-storage/lazuli/internal/rule/azerr"
	"github.com/lazuli-storage/lazuli/internal/rule/cond"
	"github.com/lazuli-storage/lazuli/internal/rule/lease"
	"github.com/lazuli-storage/lazuli/internal/rule/metadata"
	"github.com/lazuli-storage/lazuli/internal/service/blobdata"
)

// setBlobProperties is Set Blob Properties: the six content properties are
// replaced together (those not sent are cleared, as the service does) and
// the ETag moves.
func (s *Service) setBlobProperties(w http.ResponseWriter, r *http.Request) error {
	conds, err := parseBlobRequest(r, cond.AllConditions)
	if err != nil {
		return err
	}
	props, err := parseContentProps(r.Header, false)
	if err != nil {
		return err
	}
	rec, err := s.writeBlobAs(r, conds, blobdata.WriteProps, func(_ store.Tx, old *blobdata.Blob, _ blobdata.RefDelta) (*blobdata.Blob, error) {
		old.Props = props
		s.touch(old)
		return old, nil
	})
	if err != nil {
		return err
	}
	setBlobETag(w.Header(), rec)
	return write(w, http.StatusOK)
}

// setBlobMetadata is Set Blob Metadata: it replaces all metadata.
func (s *Service) setBlobMetadata(w http.ResponseWriter, r *http.Request) error {
	conds, err := parseBlobRequest(r, cond.AllConditions)
	if err != nil {
		return err
	}
	md, err := metadata.Parse(r.Header)
	if err != nil {
		return err
	}
	rec, err := s.writeBlobAs(r, conds, blobdata.WriteMetadata, func(_ store.Tx, old *blobdata.Blob, _ blobdata.RefDelta) (*blobdata.Blob, error) {
		old.Metadata = md
		s.touch(old)
		return old, nil
	})
	if err != nil {
		return err
	}
	setWriteResult(w.Header(), rec)
	setRequestEncrypted(w.Header(), r)
	return write(w, http.StatusOK)
}

// leaseBlob is Lease Blob: the lease state machine of package lease; the
// blob's ETag and Last-Modified stay as they were.
func (s *Service) leaseBlob(w http.ResponseWriter, r *http.Request) error {
	t := targetOf(r)
	conds, err := parseBlobRequest(r, cond.AllConditions)
	if err != nil {
		return err
	}
	req, err := lease.ParseRequest(r.Header, lease.Blob)
	if err != nil {
		return err
	}
	for _, q := range []string{"snapshot", "versionid"} {
		if r.URL.Query().Get(q) != "" {
			return azerr.Newf(azerr.InvalidQueryParameterValue, "A lease cannot be granted for a blob snapshot or version.").With("QueryParameterName", q)
		}
	}
	account := request.Of(r).Account
	var res lease.Result
	var rec *blobdata.Blob
	err = s.store.Update(r.Context(), func(tx store.Tx) error {
		_, found, err := blobdata.LoadContainer(tx, account, t.Container)
		if err != nil {
			return err
		}
		if !found {
			return containerNotFound()
		}
		b, err := blobdata.LoadLiveBlob(tx, account, t.Container, t.Blob, s.now())
		if err != nil {
			return err
		}
		if b == nil || !b.Committed {
			return blobNotFound()
		}
		if err := checkWriteConditions(conds, b); err != nil {
			return err
		}
		if b.CopyPendingAt(s.now()) {
			// The destination of a pending copy takes no lease operation.
			return azerr.New(azerr.PendingCopyOperation)
		}
		b.Lease, res, err = lease.Apply(b.Lease, req, s.now(), lease.Blob)
		if err != nil {
			return err
		}
		rec = b
		return blobdata.SaveBlob(tx, account, t.Container, t.Blob, b)
	})
	if err != nil {
		return err
	}
	setBlobETag(w.Header(), rec)
	setLeaseResult(w.Header(), res)
	return write(w, res.Status)
}
